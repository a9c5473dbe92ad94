/**
 * Tracing configured by the environment only, with real processes: a worker (`examples/worker.ts`,
 * which bundles the workflow code itself) and `agentctl` send one trace per run to an OTLP/HTTP
 * endpoint, here a local server that keeps what it is sent.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deleteRecordScript } from '../../examples/records-agent.js';
import type { RunResult } from '../../src/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, spawnWorker } from '../processes.js';

/** A span as OTLP/JSON carries it, with its service. */
interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
  attributes: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; attributes: OtlpAttribute[] }> }>;
  }>;
}
type OtlpAttribute = { key: string; value: Record<string, unknown> };

const received: ExportedSpan[] = [];
let collector: Server;
let dir: string;

function attributes(list: OtlpAttribute[]): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracing-e2e-'));
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpJson;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attributes(resource.attributes)['service.name']);
        for (const { spans } of scopeSpans) {
          for (const s of spans) received.push({ service, ...s, attributes: attributes(s.attributes) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  collector?.close();
  await rm(dir, { recursive: true, force: true });
});

it('sends one trace per run from the worker and agentctl processes, configured by OTEL_* variables alone', async () => {
  const taskQueue = `tracing-${randomUUID()}`;
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // The batch goes out every 100 ms instead of every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const worker = await spawnWorker({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    RECORDS_FILE: join(dir, 'records.json'),
    ...otel,
  });
  try {
    expect(worker.output()).toContain('tracing runs started by tracing clients');
    const scriptFile = join(dir, 'delete-r2.json');
    await writeFile(scriptFile, JSON.stringify(deleteRecordScript));
    const ctl = (args: string[]) =>
      agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', taskQueue, ...args], otel);

    const started = await ctl(['start', 'records-agent', '--prompt', 'Delete r2.', '--script', scriptFile, '--json']);
    expect(started.code).toBe(0);
    const { runId } = JSON.parse(started.stdout) as RunResult;
    const approved = await ctl(['approve', runId, '--as', 'ops', '--latest', '--wait']);
    expect(approved.code).toBe(0);

    // agentctl sent its spans before it exited; the worker sends the workflow's once the run ends.
    const start = received.find(
      (s) => s.name === 'StartWorkflow:agentRun' && s.attributes.temporalWorkflowId === runId,
    );
    expect(start?.service).toBe('durable-agents-client');
    const trace = await waitFor('the workflow spans of the run', async () => {
      const spans = received.filter((s) => s.traceId === start!.traceId);
      return spans.some((s) => s.name === 'RunWorkflow:agentRun') ? spans : undefined;
    });
    const names = trace.map((s) => `${s.service} ${s.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'durable-agents-worker RunWorkflow:agentRun',
        'durable-agents-worker RunActivity:callModel',
        'durable-agents-worker chat scripted',
        'durable-agents-worker execute_tool listRecords',
        'durable-agents-worker execute_tool deleteRecord',
        'durable-agents-worker RunActivity:executeTool',
      ]),
    );
    expect(trace.find((s) => s.name === 'execute_tool deleteRecord')?.attributes).toMatchObject({
      'durable_agents.approval.required': true,
      'durable_agents.decision': 'approve',
      'durable_agents.decision.by': 'ops',
      'durable_agents.tool.outcome': 'result',
    });
    // The approval agentctl sent is a trace of its own, which the workflow's handling of it continues.
    const signal = received.find((s) => s.name === 'SignalWorkflow:approveToolCall');
    expect(signal?.service).toBe('durable-agents-client');
    await waitFor('the handling of the approval', async () =>
      received.find((s) => s.name === 'HandleSignal:approveToolCall' && s.traceId === signal!.traceId),
    );
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
});
