/**
 * Faults a cluster sees, on a production-shaped cluster of the test's own (temporal-cluster.sh: PostgreSQL,
 * four services, TLS), each while 200 runs stream (their tool mid-execution, having written to the stream,
 * a reader on each) and 100 wait for approval: the frontend restarted, PostgreSQL restarted, and the
 * network between the worker and the server (a TCP proxy the test controls) dropped for 30 s (the tools
 * writing to their streams again 10 s in, while it is down), then delayed for 30 s. Each reports the runs
 * lost, the tool calls executed twice, the runs wedged and the streams that did not end or lack a write
 * (all 0), how long the fault lasted and how long the runs took to finish once it was over. Runs with
 * `npm run test:faults` (DURABLE_AGENTS_TEST_SERVER=cluster).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type RunStreamChunk, type ToolExecutionContext } from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { resolveConnection } from '../../src/connection/config.js';
import { createWorker } from '../../src/worker/index.js';
import { waitFor } from '../helpers.js';
import { ownServer, type OwnServer } from '../processes.js';
import { tcpProxy, type ProxyMode, type TcpProxy } from '../tcp-proxy.js';

const STREAMING = 200;
const WAITING = 100;

/** Executions of each call, by run and call: a call executed twice shows as 2. */
const executions = new Map<string, number>();
const count = (runId: string, toolCallId: string) => {
  const key = `${runId}/${toolCallId}`;
  executions.set(key, (executions.get(key) ?? 0) + 1);
};
/** The streaming runs' tool waits here, mid-execution, until the fault is over. */
let release: () => void = () => {};
let gate = new Promise<void>((resolve) => (release = resolve));

/** The patient step writes again here, in the middle of the fault. */
let midway: () => void = () => {};
let midwayGate = new Promise<void>((resolve) => (midway = resolve));

/** A step that writes to its run's stream, then waits, mid-execution, until the fault is over. */
const slowStep = async (_input: unknown, { runId, toolCallId, writer }: ToolExecutionContext) => {
  count(runId, toolCallId);
  await writer.write({ type: 'data-progress', data: 'started' });
  await gate;
  await writer.write({ type: 'data-progress', data: 'done' });
  return { done: true };
};
/** The same, and a write while the fault is on: mid-stream as well as mid-tool. */
const patientStep = async (_input: unknown, { runId, toolCallId, writer }: ToolExecutionContext) => {
  count(runId, toolCallId);
  await writer.write({ type: 'data-progress', data: 'started' });
  await midwayGate;
  await writer.write({ type: 'data-progress', data: 'midway' });
  await gate;
  await writer.write({ type: 'data-progress', data: 'done' });
  return { done: true };
};
// The activity heartbeats meanwhile (every 10 s / 3, the SDK's throttle permitting): a worker that died
// here would be noticed within the heartbeat timeout, and the call run again elsewhere.
// The test holds it as long as its load takes to set up: the default 2 minutes could end it first.
const slow = createTool({
  id: 'slow-step',
  description: 'A step',
  inputSchema: z.object({}),
  activity: { startToCloseTimeout: '30 minutes' },
  execute: slowStep,
});
// A partition looks to the server like a worker that died: a call whose heartbeat timeout is shorter than
// the partition runs again after it. This one waits out 60 s.
const patient = createTool({
  id: 'patient-step',
  description: 'A step that waits out a partition',
  inputSchema: z.object({}),
  activity: { startToCloseTimeout: '30 minutes', heartbeatTimeout: '60 seconds' },
  execute: patientStep,
});
const pay = createTool({
  id: 'pay',
  description: 'Pays',
  inputSchema: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }, { runId, toolCallId }) => {
    count(runId, toolCallId);
    return { paid: amount };
  },
});
const faultAgent = defineAgent({
  id: 'fault-agent',
  name: 'Faults',
  model: 'scripted',
  tools: { slow, patient, pay },
});

const stepScript = (toolName: 'slow' | 'patient') => [{ toolCalls: [{ toolName, args: {} }] }, { text: 'Done.' }];
const payScript = [{ toolCalls: [{ toolName: 'pay', args: { amount: 5 } }] }, { text: 'Paid.' }];

const onCluster = inject('temporalServerKind') === 'cluster';
let dir: string;
let server: OwnServer;
/** The worker reaches the frontend through it; clients and readers do not. */
let proxy: TcpProxy;
let client: AgentClient;
let stopWorker: () => Promise<void>;

beforeAll(async () => {
  if (!onCluster) return;
  dir = await mkdtemp(join(tmpdir(), 'cluster-faults-'));
  server = ownServer('cluster', join(dir, 'cluster'), 0);
  const address = await server.start();
  const taskQueue = `faults-${randomUUID()}`;
  proxy = await tcpProxy(address);
  const connection = await NativeConnection.connect(resolveConnection({ address: proxy.address }).connectionOptions);
  const worker = await createWorker({
    agents: [faultAgent],
    enableScriptedModel: true,
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    tracing: false,
    notifications: false,
    externalStorage: false,
    // Every streaming run's tool is mid-execution at once, and every run stays cached: the readers ask
    // each run twice a second, and a run evicted would be replayed for every question.
    workerOptions: {
      maxConcurrentActivityTaskExecutions: STREAMING + WAITING + 50,
      maxCachedWorkflows: STREAMING + WAITING + 50,
    },
  });
  const running = worker.run();
  client = await AgentClient.connect({ address, namespace: 'default', taskQueue, tracing: false });
  stopWorker = async () => {
    worker.shutdown();
    await running;
    await connection.close();
  };
}, 300_000);

afterAll(async () => {
  if (!onCluster) return;
  release(); // a failed test leaves its tools waiting, which a worker's shutdown waits for
  await client?.close();
  await stopWorker?.();
  await proxy?.close();
  await server?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** Whether a run's history holds a workflow task that failed (a wedged run keeps failing them). */
async function wedged(runId: string): Promise<boolean> {
  const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
  const { EVENT_TYPE_WORKFLOW_TASK_FAILED } = proto.temporal.api.enums.v1.EventType;
  return (history.events ?? []).some((e) => e.eventType === EVENT_TYPE_WORKFLOW_TASK_FAILED);
}

/** Reads a run's stream to its end, as a UI would; the chunks it saw. */
async function read(stream: AsyncIterable<RunStreamChunk>): Promise<RunStreamChunk[]> {
  const chunks: RunStreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/**
 * Starts the load (runs mid-tool with a reader each, runs waiting for approval), puts the fault on, takes
 * it off, lets everything finish, and counts what went wrong.
 */
async function underLoad(step: 'slow' | 'patient', fault: () => Promise<void>) {
  executions.clear();
  gate = new Promise<void>((resolve) => (release = resolve));
  midwayGate = new Promise<void>((resolve) => (midway = resolve));
  const t0 = Date.now();
  const streaming = [];
  const readers = [];
  // Streamed, as a UI starts them: a finished run stays readable for its readers a few seconds behind
  // (the default grace, 10 s), so that none misses its last chunks.
  for (let i = 0; i < STREAMING; i++) {
    const stream = await client.stream('fault-agent', 'go', { model: 'scripted', script: stepScript(step) });
    streaming.push(stream.runId);
    readers.push(read(stream));
  }
  const waiting = [];
  for (let i = 0; i < WAITING; i++) {
    waiting.push((await client.start('fault-agent', 'pay', { model: 'scripted', script: payScript })).runId);
  }
  const startedMs = Date.now() - t0;
  await waitFor('every step started', async () => (executions.size >= STREAMING ? true : undefined), 240_000);
  const midStepMs = Date.now() - t0;
  const paused = await Promise.all(waiting.map((runId) => client.next(runId)));
  expect(paused.filter((r) => r.finishReason !== 'suspended')).toEqual([]);
  const loadMs = Date.now() - t0;

  const began = Date.now();
  await fault();
  const over = Date.now();
  release();
  await Promise.all(waiting.map((runId) => client.decide({ kind: 'approve', runId, principal: 'ops' })));
  const results = await Promise.all([...streaming, ...waiting].map((runId) => client.result(runId)));
  const recoveredMs = Date.now() - over;
  const streams = await Promise.all(readers);
  const wedgedRuns = (await Promise.all([...streaming, ...waiting].map(wedged))).filter(Boolean).length;
  const progress = (chunks: RunStreamChunk[]) =>
    chunks.flatMap((c) => (c.type === 'data-progress' ? [(c as { data: unknown }).data] : []));
  const written = step === 'patient' ? 'started,midway,done' : 'started,done';
  const cutShort = streams.filter((chunks) => progress(chunks).join() !== written);
  return {
    lost: results.filter((r) => r.finishReason !== 'stop').length,
    executedTwice: [...executions.values()].filter((n) => n > 1).length,
    executed: executions.size,
    wedged: wedgedRuns,
    unfinishedStreams: streams.filter((chunks) => chunks.at(-1)?.type !== 'finish').length,
    streamsWithoutTheirWrites: cutShort.length,
    // What the first of them held, for a failure to show.
    ...(cutShort[0] ? { aStreamCutShort: cutShort[0].map((c) => `${c.offset}:${c.type}`).join(' ') } : {}),
    setUpMs: { startedMs, midStepMs, loadMs },
    faultMs: over - began,
    recoveredMs,
  };
}

/** What every fault must leave: nothing lost, repeated, wedged or cut short. */
const unharmed = {
  lost: 0,
  executedTwice: 0,
  executed: STREAMING + WAITING,
  wedged: 0,
  unfinishedStreams: 0,
  streamsWithoutTheirWrites: 0,
};

/**
 * The network down, or slow, for 30 s, the patient steps writing to their streams 10 s in: a fault's
 * length, not a wait for a condition.
 */
const partition = async (mode: ProxyMode) => {
  proxy.set(mode);
  await sleep(10_000);
  midway();
  await sleep(20_000);
  proxy.set({ kind: 'pass' });
};

describe.runIf(onCluster)('faults a cluster sees', { timeout: 900_000 }, () => {
  it('loses, repeats and wedges nothing when the frontend restarts under load', async () => {
    const outcome = await underLoad('slow', () => server.restart('frontend'));
    console.log(`frontend restart: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(unharmed);
  });

  it('loses, repeats and wedges nothing when PostgreSQL restarts under load', async () => {
    const outcome = await underLoad('slow', () => server.restart('postgres'));
    console.log(`PostgreSQL restart: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(unharmed);
  });

  it('loses, repeats and wedges nothing when the network to the worker drops for 30 s', async () => {
    const before = proxy.connections();
    const outcome = await underLoad('patient', () => partition({ kind: 'drop' }));
    console.log(`network dropped 30 s: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(unharmed);
    // The fault happened: the worker's connections were cut, and it came back on new ones.
    expect(proxy.connections()).toBeGreaterThan(before);
  });

  it('loses, repeats and wedges nothing when the network to the worker is slow for 30 s', async () => {
    const outcome = await underLoad('slow', () => partition({ kind: 'delay', ms: 1_000 }));
    console.log(`network delayed 1 s for 30 s: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(unharmed);
  });
});
