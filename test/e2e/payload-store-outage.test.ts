/**
 * The payload store unavailable for a minute while tools write large outputs: an S3 bucket (SeaweedFS)
 * reached through a TCP proxy the test cuts. Each output waits, with its activity heartbeating, until
 * the store takes writes again; no run is lost, no call runs twice, no output is lost, none wedges.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent } from '../../src/index.js';
import { createExternalStorage } from '../../src/codec/index.js';
import { startWorker, waitFor, type TestWorker } from '../helpers.js';
import { startS3Server, type S3Server } from '../s3-server.js';
import { tcpProxy, type TcpProxy } from '../tcp-proxy.js';

const RUNS = 20;
const BLOB = 1024 * 1024;
const OUTAGE_MS = 60_000;

const executions = new Map<string, number>();
let release: () => void = () => {};
const gate = new Promise<void>((resolve) => (release = resolve));

const big = createTool({
  id: 'big',
  description: 'Returns 1 MB',
  inputSchema: z.object({}),
  // Room for the set-up, the minute's outage and the way back on a loaded machine: the output waits for
  // the store up to this, less 15 s.
  activity: { startToCloseTimeout: '5 minutes' },
  execute: async (_input, { runId, toolCallId }) => {
    const key = `${runId}/${toolCallId}`;
    executions.set(key, (executions.get(key) ?? 0) + 1);
    await gate;
    return { blob: 'x'.repeat(BLOB) };
  },
});
const storeAgent = defineAgent({ id: 'store-agent', name: 'Store', model: 'scripted', tools: { big } });
const script = [{ toolCalls: [{ toolName: 'big', args: {} }] }, { text: 'Stored.' }];

let s3: S3Server;
let proxy: TcpProxy;
let w: TestWorker;
beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await tcpProxy(new URL(s3.endpoint).host);
  // The worker and the client reach the bucket through the proxy.
  const externalStorage = await createExternalStorage({
    kind: 's3',
    bucket: s3.bucket,
    endpoint: `http://${proxy.address}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  w = await startWorker([storeAgent], { externalStorage });
}, 120_000);
afterAll(async () => {
  release();
  await w?.stop();
  await proxy?.close();
  await s3?.stop();
});

describe('the payload store down for a minute', () => {
  it(
    'delays the large outputs written meanwhile: none lost, none run twice, none wedged',
    { timeout: 300_000 },
    async () => {
      const runIds = [];
      for (let i = 0; i < RUNS; i++) {
        runIds.push((await w.client.start('store-agent', 'go', { model: 'scripted', script })).runId);
      }
      await waitFor('every tool running', async () => (executions.size >= RUNS ? true : undefined), 60_000);

      // The store goes away, and every tool returns its output while it is gone.
      proxy.set({ kind: 'drop' });
      release();
      await sleep(OUTAGE_MS); // the outage's length, not a wait for a condition
      const restored = Date.now();
      proxy.set({ kind: 'pass' });

      const results = await Promise.all(runIds.map((runId) => w.client.result(runId)));
      const { EVENT_TYPE_WORKFLOW_TASK_FAILED } = proto.temporal.api.enums.v1.EventType;
      let wedged = 0;
      let closedDuringTheOutage = 0;
      for (const runId of runIds) {
        const handle = w.client.temporal.workflow.getHandle(runId);
        const history = await handle.fetchHistory();
        if ((history.events ?? []).some((e) => e.eventType === EVENT_TYPE_WORKFLOW_TASK_FAILED)) wedged++;
        if ((await handle.describe()).closeTime!.getTime() < restored) closedDuringTheOutage++;
      }
      const outputs = results.map((r) => r.steps[0]?.toolResults?.[0]);
      const outcome = {
        lost: results.filter((r) => r.finishReason !== 'stop').length,
        executedTwice: [...executions.values()].filter((n) => n > 1).length,
        executed: executions.size,
        outputsLost: outputs.filter(
          (o) => o?.isError !== false || (o.output as { blob?: string }).blob?.length !== BLOB,
        ).length,
        wedged,
        closedDuringTheOutage,
        recoveredMs: Date.now() - restored,
      };
      console.log(`payload store down 60 s: ${JSON.stringify(outcome)}`);
      expect(outcome).toMatchObject({
        lost: 0,
        executedTwice: 0,
        executed: RUNS,
        outputsLost: 0,
        wedged: 0,
        closedDuringTheOutage: 0,
      });
    },
  );
});
