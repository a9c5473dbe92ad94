/**
 * A rolling restart of three worker processes of one build (each stopped with SIGTERM, drained, and
 * replaced before the next), while 500 runs wait for approval and 50 are mid-step: no run lost, no tool
 * call executed twice, no run wedged. Runs against the cluster (`npm run test:faults`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { spawnWorker, type WorkerProcess } from '../processes.js';

const WAITING = 500;
const MID_STEP = 50;
/** Steps of each busy run, 2 s each: the runs stay mid-step through the whole roll. */
const STEPS = 20;

const onCluster = inject('temporalServerKind') === 'cluster';
const taskQueue = `rolling-${randomUUID()}`;
let dir: string;
let executionsFile: string;
let client: AgentClient;
const workers: WorkerProcess[] = [];

const worker = async () => {
  const w = await spawnWorker(
    { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: taskQueue, EXECUTIONS_FILE: executionsFile },
    'test/fixtures/rolling-worker.ts',
  );
  workers.push(w);
  return w;
};

/** Every execution so far, by call: a call executed twice counts 2. */
async function executions(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await readFile(executionsFile, 'utf8')).split('\n').filter(Boolean)) {
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

beforeAll(async () => {
  if (!onCluster) return;
  dir = await mkdtemp(join(tmpdir(), 'rolling-'));
  executionsFile = join(dir, 'executions.log');
  await writeFile(executionsFile, '');
  client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue, tracing: false });
});
afterAll(async () => {
  if (!onCluster) return;
  for (const w of workers) w.child.kill('SIGKILL');
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(onCluster)('a rolling restart of the workers', { timeout: 900_000 }, () => {
  it('of three processes, while 500 runs wait and 50 are mid-step, loses, repeats and wedges nothing', async () => {
    const serving = [await worker(), await worker(), await worker()];
    const payScript = [{ toolCalls: [{ toolName: 'pay', args: { amount: 5 } }] }, { text: 'Paid.' }];
    const waiting: string[] = [];
    for (let i = 0; i < WAITING; i++) {
      waiting.push((await client.start('rolling-agent', 'pay', { model: 'scripted', script: payScript })).runId);
    }
    const paused = await Promise.all(waiting.map((runId) => client.next(runId)));
    expect(paused.filter((r) => r.finishReason !== 'suspended')).toEqual([]);
    const stepScript = [
      ...Array.from({ length: STEPS }, (_, n) => ({ toolCalls: [{ toolName: 'step', args: { n } }] })),
      { text: 'Done.' },
    ];
    const busy: string[] = [];
    for (let i = 0; i < MID_STEP; i++) {
      busy.push((await client.start('rolling-agent', 'work', { model: 'scripted', script: stepScript })).runId);
    }
    await waitFor(
      'every busy run mid-step',
      async () => ((await executions()).size >= MID_STEP ? true : undefined),
      60_000,
    );

    // The roll: each process stopped as a deploy stops it (SIGTERM: it stops polling and finishes what it
    // holds), and replaced before the next one goes.
    const began = Date.now();
    for (const [i, old] of serving.entries()) {
      old.child.kill('SIGTERM');
      expect(await old.exited).toEqual({ code: 0, signal: null });
      serving[i] = await worker();
    }
    const rolledMs = Date.now() - began;
    // The roll happened under load: busy runs were still mid-way when it ended.
    const { WORKFLOW_EXECUTION_STATUS_RUNNING: RUNNING } = proto.temporal.api.enums.v1.WorkflowExecutionStatus;
    const statuses = await Promise.all(busy.map((runId) => client.temporal.workflow.getHandle(runId).describe()));
    const busyAfterTheRoll = statuses.filter((d) => d.raw.workflowExecutionInfo?.status === RUNNING).length;

    await Promise.all(waiting.map((runId) => client.decide({ kind: 'approve', runId, principal: 'ops' })));
    const results = await Promise.all([...waiting, ...busy].map((runId) => client.result(runId)));
    const recoveredMs = Date.now() - began - rolledMs;
    const counts = await executions();
    const { EVENT_TYPE_WORKFLOW_TASK_FAILED } = proto.temporal.api.enums.v1.EventType;
    let wedged = 0;
    for (const runId of [...waiting, ...busy]) {
      const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
      if ((history.events ?? []).some((e) => e.eventType === EVENT_TYPE_WORKFLOW_TASK_FAILED)) wedged++;
    }
    const outcome = {
      lost: results.filter((r) => r.finishReason !== 'stop').length,
      executedTwice: [...counts.values()].filter((n) => n > 1).length,
      executed: counts.size,
      wedged,
      rolledMs,
      recoveredMs,
    };
    console.log(`rolling restart: ${JSON.stringify({ ...outcome, busyAfterTheRoll })}`);
    expect(outcome).toMatchObject({
      lost: 0,
      executedTwice: 0,
      executed: WAITING + MID_STEP * STEPS,
      wedged: 0,
    });
    expect(busyAfterTheRoll).toBeGreaterThan(0);
  });
});
