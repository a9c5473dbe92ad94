/**
 * Large payloads out of the history: a tool that returns 5 MB, end to end through a payload store (a
 * directory shared by the worker, the client and agentctl as separate processes; and an S3 bucket on
 * a real S3-compatible server), with the history holding references instead of the bytes.
 */
import { readdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { Client, Connection } from '@temporalio/client';
import type { ExternalStorage } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type RunResult } from '../../src/index.js';
import { ScriptedLanguageModel, type ModelFactory } from '../../src/worker/index.js';
import { createExternalStorage } from '../../src/codec/index.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';
import { startS3Server, type S3Server } from '../s3-server.js';

const BLOB = 5 * 1024 * 1024;
const END = 'THE-END';

const bigTool = createTool({
  id: 'big',
  description: 'Returns 5 MB',
  inputSchema: z.object({}),
  execute: () => ({ blob: `${'x'.repeat(BLOB - END.length)}${END}` }),
});

/**
 * The scripted model, which after a tool result says what it was shown of it: how many `x` and whether
 * the end came through. What it answers is what the model saw.
 */
class SeeingModel extends ScriptedLanguageModel {
  override async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const answer = await super.doGenerate(options);
    const tool = options.prompt.findLast((m) => m.role === 'tool');
    if (!tool) return answer;
    const seen = /"(x+)THE-END"/.exec(JSON.stringify(tool.content));
    const text = seen ? `saw ${seen[1]!.length} x and ${END}` : 'saw no blob';
    return { ...answer, content: [{ type: 'text', text }] };
  }
}
const seeing: ModelFactory = (_id, { script }) => new SeeingModel(script ?? []);

const bigAgent = defineAgent({
  id: 'big-agent',
  name: 'Big',
  instructions: 'You fetch big things.',
  model: 'seeing',
  tools: { big: bigTool },
});
const script = [{ toolCalls: [{ toolName: 'big', args: {} }] }, { text: 'placeholder' }];
const saw = `saw ${BLOB - END.length} x and ${END}`;

let raw: Client;
let rawConnection: Connection;
beforeAll(async () => {
  // Reads the history as recorded: without a payload store, nothing is resolved.
  rawConnection = await Connection.connect({ address: temporalAddress() });
  raw = new Client({ connection: rawConnection, namespace: 'default' });
});
afterAll(async () => rawConnection?.close());

/** The run's history as the server keeps it: its size, and the executeTool result as recorded. */
async function recordedHistory(runId: string) {
  const { history } = await raw.workflowService.getWorkflowExecutionHistory({
    namespace: 'default',
    execution: { workflowId: runId },
  });
  const bytes = proto.temporal.api.history.v1.History.encode(history!).finish().length;
  const events = history!.events!;
  const scheduled = (id: unknown) => events.find((s) => Number(s.eventId) === Number(id));
  const completed = events.find(
    (e) =>
      scheduled(e.activityTaskCompletedEventAttributes?.scheduledEventId)?.activityTaskScheduledEventAttributes
        ?.activityType?.name === 'executeTool',
  );
  const toolResult = completed!.activityTaskCompletedEventAttributes!.result!.payloads![0]!;
  const messageType = Buffer.from(toolResult.metadata?.messageType ?? []).toString();
  return { bytes, messageType, size: toolResult.data?.length ?? 0 };
}

/** What every variant proves: the run completes, the model saw the 5 MB, the history has a reference. */
async function runsBig(w: TestWorker): Promise<RunResult> {
  const result = await w.client.generate('big-agent', 'fetch the big thing', { script });
  expect(result.finishReason).toBe('stop');
  expect(result.text).toBe(saw);
  const toolResult = result.steps[0]!.toolResults[0]!;
  if (toolResult.isError) throw new Error(`the tool failed: ${toolResult.error}`);
  expect((toolResult.output as { blob: string }).blob).toHaveLength(BLOB);

  const recorded = await recordedHistory(result.runId);
  expect(recorded.messageType).toBe('temporal.api.sdk.v1.ExternalStorageReference');
  expect(recorded.size).toBeLessThan(1024);
  // The 5 MB went through the tool result, both model calls and the run's result: none of it is here.
  expect(recorded.bytes).toBeLessThan(256 * 1024);
  return result;
}

describe('a directory on this machine', () => {
  let dir: string;
  let w: TestWorker;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payloads-'));
    const externalStorage = await createExternalStorage({ kind: 'files', directory: dir });
    w = await startWorker([bigAgent], { models: { seeing }, externalStorage });
  });
  afterAll(async () => {
    await w?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a 5 MB tool output end to end; the history holds references; agentctl reads the result', async () => {
    const result = await runsBig(w);
    const files = await readdir(join(dir, 'default', result.runId));
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => /^[0-9a-f]{64}$/.test(f))).toBe(true);

    // agentctl is another process: it finds the payloads by the same setting.
    const ctl = (env: Record<string, string>) =>
      agentctl(['--address', temporalAddress(), '--namespace', 'default', 'runs', 'show', result.runId], env);
    const shown = await ctl({ DURABLE_AGENTS_PAYLOAD_STORE: dir });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain(`result: ${saw} (stop, 2 steps`);
    const without = await ctl({ DURABLE_AGENTS_PAYLOAD_STORE: '' });
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/external storage is not configured/);
  });

  it('without a payload store, the same output is a tool error the model sees, as before', async () => {
    const inline = await startWorker([bigAgent], { models: { seeing } });
    try {
      const result = await inline.client.generate('big-agent', 'fetch the big thing', { script });
      expect(result.text).toBe('saw no blob');
      expect(JSON.stringify(result.steps[0])).toMatch(/returned output of \d+ KiB of JSON; at most 256 KiB/);
    } finally {
      await inline.stop();
    }
  });
});

describe('an S3 bucket', () => {
  let s3: S3Server;
  let w: TestWorker;
  let externalStorage: ExternalStorage;
  beforeAll(async () => {
    s3 = await startS3Server();
    externalStorage = await createExternalStorage({
      kind: 's3',
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    w = await startWorker([bigAgent], { models: { seeing }, externalStorage });
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await s3?.stop();
  });

  it('takes a 5 MB tool output end to end; the bucket has the payloads; agentctl reads the result', async () => {
    const result = await runsBig(w);
    const keys = await s3.keys();
    expect(keys.some((k) => k.includes(`/wi/${result.runId}/`))).toBe(true);

    const shown = await agentctl(
      ['--address', temporalAddress(), '--namespace', 'default', 'runs', 'show', result.runId],
      {
        DURABLE_AGENTS_PAYLOAD_STORE: `s3://${s3.bucket}`,
        DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE: '1',
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      },
    );
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain(`result: ${saw} (stop, 2 steps`);
  });
});
