/**
 * The upgrade path of docs/upgrading.md, with real worker processes of two builds of one Worker
 * Deployment on the dev server. Build v1 starts runs on two task queues: one whose workers pin runs
 * (the default), one whose workers let them auto-upgrade. Some wait for approval (of a tool v2 removes,
 * of a tool whose input schema v2 changes), one per queue is inside a slow tool when v1 stops (SIGTERM
 * on the pinned queue, SIGKILL on the other). Build v2 changes the run loop behind a patch
 * (test/fixtures/upgrade/v2-loop.ts) and the tools (test/fixtures/upgrade/agents.ts). Every run ends as
 * the design says: pinned runs on a v1 worker started again to drain them, auto-upgraded runs on v2,
 * through the patch for what they do there.
 */
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult, type Script } from '../../src/index.js';
import { AgentClient, type BuildInfo } from '../../src/client/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, killHard, spawnWorker, type WorkerProcess } from '../processes.js';
import { UPGRADE_AGENT_ID } from '../fixtures/upgrade/agents.js';
import { TOOL_PAUSE_PATCH } from '../fixtures/upgrade/v2-loop.js';

const deploymentName = `upgrade-${randomUUID()}`;
const queues = { pinned: `upgrade-pinned-${randomUUID()}`, upgrading: `upgrade-auto-${randomUUID()}` } as const;
type Side = keyof typeof queues;
const behaviorOf: Record<Side, string> = { pinned: 'PINNED', upgrading: 'AUTO_UPGRADE' };

let gateDir: string;
const processes: WorkerProcess[] = [];
const clients = {} as Record<Side, AgentClient>;

beforeAll(async () => {
  gateDir = await mkdtemp(join(tmpdir(), 'upgrade-'));
  for (const side of ['pinned', 'upgrading'] as const) {
    clients[side] = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: queues[side],
      tracing: false,
    });
  }
});

afterAll(async () => {
  for (const w of processes) w.child.kill('SIGKILL');
  for (const c of Object.values(clients)) await c.close();
  await rm(gateDir, { recursive: true, force: true });
});

/** A worker process of `build` serving `side`'s queue, versioned from its environment as `npm run worker` is. */
async function startWorker(build: 'v1' | 'v2', side: Side, { setCurrent = true } = {}): Promise<WorkerProcess> {
  const worker = await spawnWorker(
    {
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: queues[side],
      TEMPORAL_DEPLOYMENT_NAME: deploymentName,
      TEMPORAL_BUILD_ID: build,
      TEMPORAL_VERSIONING_BEHAVIOR: behaviorOf[side],
      ...(setCurrent ? { TEMPORAL_SET_CURRENT_VERSION: 'true' } : {}),
      UPGRADE_GATE_DIR: gateDir,
    },
    'test/fixtures/upgrade/worker.ts',
  );
  processes.push(worker);
  return worker;
}

const ctl = (...args: string[]) => agentctl(['--address', temporalAddress(), '--namespace', 'default', ...args]);

async function builds(): Promise<BuildInfo[]> {
  const out = await ctl('builds', '--deployment', deploymentName, '--json');
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as BuildInfo[];
}

/** Waits until `agentctl builds` shows what `check` wants (visibility catches up a moment after a change). */
async function buildsUntil(what: string, check: (builds: BuildInfo[]) => boolean): Promise<BuildInfo[]> {
  return waitFor(
    what,
    async () => {
      const now = await builds();
      return check(now) ? now : undefined;
    },
    60_000,
  );
}

const buildOf = (all: BuildInfo[], buildId: string) => all.find((b) => b.buildId === buildId);

/** The patches a run's history recorded markers for. */
async function patchesOf(side: Side, runId: string): Promise<string[]> {
  const history = await clients[side].temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { id: string }).id] : [];
  });
}

/**
 * The run's result once it ends; fails as soon as the run is wedged instead (a workflow task failed,
 * say by non-determinism: the worker retries such a task forever and the run never ends).
 */
async function finished(side: Side, runId: string): Promise<RunResult> {
  const handle = clients[side].temporal.workflow.getHandle(runId);
  let settled = false;
  const wedged = (async (): Promise<never> => {
    for (;;) {
      const failed = (await handle.fetchHistory()).events?.find((e) => e.workflowTaskFailedEventAttributes);
      if (failed) {
        const why = failed.workflowTaskFailedEventAttributes?.failure?.message;
        throw new Error(`run ${runId} is wedged: a workflow task failed: ${why}`);
      }
      if (settled) throw new Error('not wedged');
      await sleep(500);
    }
  })();
  try {
    return await Promise.race([clients[side].result(runId), wedged]);
  } finally {
    settled = true;
    wedged.catch(() => undefined);
  }
}

const lookupScript: Script = [
  { toolCalls: [{ toolName: 'legacyLookup', args: { id: 'r1' } }] },
  { text: 'Looked up.' },
];
const transferArgs = { to: 'acme', amount: 100 };
const transferScript: Script = [{ toolCalls: [{ toolName: 'transfer', args: transferArgs }] }, { text: 'Handled.' }];
const stepScript = (gate: string): Script => [
  { toolCalls: [{ toolName: 'slowStep', args: { gate } }] },
  { text: 'Step done.' },
];

interface InFlight {
  lookup: RunResult;
  transfer: RunResult;
  step: string;
}

/** Starts `side`'s runs on v1: two wait for approval, one is inside its slow step when this returns. */
async function startRuns(side: Side): Promise<InFlight> {
  const client = clients[side];
  const paused = async (script: Script) => {
    const { runId } = await client.start(UPGRADE_AGENT_ID, 'Go.', { script });
    const result = await client.next(runId);
    expect(result.finishReason).toBe('suspended');
    return result;
  };
  const lookup = await paused(lookupScript);
  const transfer = await paused(transferScript);
  expect(transfer.suspendPayload).toMatchObject({ toolName: 'transfer', args: transferArgs });
  const { runId: step } = await client.start(UPGRADE_AGENT_ID, 'Go.', { script: stepScript(side) });
  await waitFor(`${side}'s slow step to start`, () =>
    access(join(gateDir, `${side}.started`)).then(
      () => true,
      () => undefined,
    ),
  );
  return { lookup, transfer, step };
}

/** Approves as an operator does, naming the call and the fingerprint the approver saw. */
async function approve(run: RunResult): Promise<void> {
  const { toolCallId, fingerprint } = run.suspendPayload!;
  const out = await ctl('--as', 'ops', 'approve', run.runId, '--tool-call', toolCallId, '--fingerprint', fingerprint);
  expect(out, out.stderr).toMatchObject({ code: 0 });
}

/** The input schema shown with a waiting call (`agentctl runs show --json`): what its approver decides on. */
async function shownSchema(runId: string): Promise<unknown> {
  const out = await ctl('runs', 'show', runId, '--json');
  const shown = JSON.parse(out.stdout) as { pendingToolCalls: { inputSchema?: unknown }[] };
  return shown.pendingToolCalls[0]?.inputSchema;
}

// Five worker processes, each bundling the workflows, a graceful stop and a heartbeat timeout: a cap, not a measure.
describe('upgrading from v1 to v2 while runs are in flight', { timeout: 600_000 }, () => {
  it('finishes pinned runs on a v1 worker kept for them, and moves auto-upgrading ones to v2 through its patch', async () => {
    const v1 = { pinned: await startWorker('v1', 'pinned'), upgrading: await startWorker('v1', 'upgrading') };
    await buildsUntil('v1 current', (all) => buildOf(all, 'v1')?.status === 'current');
    const pinned = await startRuns('pinned');
    const upgrading = await startRuns('upgrading');

    // v1 stops: gracefully on the pinned queue (its slow step is cancelled at the end of the grace
    // time), killed on the other (its step's heartbeat times out).
    v1.pinned.child.kill('SIGTERM');
    await killHard(v1.upgrading);
    expect(await v1.pinned.exited).toEqual({ code: 0, signal: null });

    await Promise.all([startWorker('v2', 'pinned'), startWorker('v2', 'upgrading')]);
    // The other queue's three runs move at their next task (the killed step's retry may have moved it already).
    const autoUpgrading = (all: BuildInfo[]) =>
      (buildOf(all, 'v1')?.autoUpgrade ?? 0) + (buildOf(all, 'v2')?.autoUpgrade ?? 0);
    const rolledOut = await buildsUntil(
      'v2 current, v1 draining',
      (all) =>
        buildOf(all, 'v2')?.status === 'current' &&
        buildOf(all, 'v1')?.status === 'draining' &&
        autoUpgrading(all) === 3,
    );
    // The pinned queue's three runs need v1: two wait for approval, one for its step to run again.
    expect(buildOf(rolledOut, 'v1')).toMatchObject({ pinned: { running: 1, waiting: 2 }, retirable: false });
    expect(buildOf(rolledOut, 'v2')).toMatchObject({ pinned: { running: 0, waiting: 0 } });
    const table = await ctl('builds', '--deployment', deploymentName);
    expect(table.stdout).toMatch(new RegExp(`^${deploymentName} +v1 +draining +1 +2 +\\d+ +no$`, 'm'));

    // The approvers see the calls and the input schema as v1 recorded them, on either queue.
    for (const run of [pinned.transfer, upgrading.transfer]) {
      expect(await shownSchema(run.runId)).toMatchObject({ properties: { to: {}, amount: {} } });
      expect(await shownSchema(run.runId)).not.toMatchObject({ properties: { currency: {} } });
    }
    for (const run of [pinned.lookup, pinned.transfer, upgrading.lookup, upgrading.transfer]) await approve(run);
    for (const side of ['pinned', 'upgrading'] as const) await writeFile(join(gateDir, `${side}.go`), '');

    // Auto-upgraded runs finish on v2, with v2's tools: the removed tool and the call that no longer fits
    // the schema are tool errors the model sees (the call never runs with arguments nobody approved).
    const up = {
      lookup: await finished('upgrading', upgrading.lookup.runId),
      transfer: await finished('upgrading', upgrading.transfer.runId),
      step: await finished('upgrading', upgrading.step),
    };
    expect(up.lookup).toMatchObject({ finishReason: 'stop', text: 'Looked up.' });
    expect(up.lookup.toolResults).toEqual([
      expect.objectContaining({
        isError: true,
        error: `Agent "${UPGRADE_AGENT_ID}" has no tool "legacyLookup" on this worker.`,
      }),
    ]);
    expect(up.transfer).toMatchObject({ finishReason: 'stop', text: 'Handled.' });
    expect(up.transfer.toolCalls).toEqual([expect.objectContaining({ toolName: 'transfer', args: transferArgs })]);
    expect(up.transfer.toolResults).toEqual([
      expect.objectContaining({
        isError: true,
        error: expect.stringMatching(/^Invalid arguments for tool "transfer":.*currency/s),
      }),
    ]);
    // Killed mid-step on v1: the retry ran v2's code.
    expect(up.step.toolResults).toEqual([
      expect.objectContaining({ isError: false, output: { gate: 'upgrading', ranOn: 'v2' } }),
    ]);
    for (const result of Object.values(up)) {
      expect((await clients.upgrading.getRun(result.runId)).build).toEqual({
        deploymentName,
        buildId: 'v2',
        behavior: 'AUTO_UPGRADE',
      });
    }
    // v2's loop change: the approved calls ran after the upgrade and took the new path (the marker
    // records it); the step's execution was recorded by v1 and replayed on the old path.
    expect(await patchesOf('upgrading', up.lookup.runId)).toContain(TOOL_PAUSE_PATCH);
    expect(await patchesOf('upgrading', up.transfer.runId)).toContain(TOOL_PAUSE_PATCH);
    expect(await patchesOf('upgrading', up.step.runId)).not.toContain(TOOL_PAUSE_PATCH);

    // The pinned runs wait for a v1 worker: approved, released, and not done; v1 cannot go.
    for (const runId of [pinned.lookup.runId, pinned.transfer.runId, pinned.step]) {
      expect((await clients.pinned.getRun(runId)).workflowStatus).toBe('RUNNING');
    }
    expect(buildOf(await builds(), 'v1')).toMatchObject({ retirable: false });

    // A v1 worker started again (not made current) drains them, with v1's code.
    const drain = await startWorker('v1', 'pinned', { setCurrent: false });
    const kept = {
      lookup: await finished('pinned', pinned.lookup.runId),
      transfer: await finished('pinned', pinned.transfer.runId),
      step: await finished('pinned', pinned.step),
    };
    expect(kept.lookup.toolResults).toEqual([
      expect.objectContaining({ isError: false, output: { id: 'r1', ranOn: 'v1' } }),
    ]);
    // The call ran with the arguments approved, checked by the schema the approver saw.
    expect(kept.transfer.toolResults).toEqual([
      expect.objectContaining({ isError: false, output: { ...transferArgs, ranOn: 'v1' } }),
    ]);
    expect(kept.step.toolResults).toEqual([
      expect.objectContaining({ isError: false, output: { gate: 'pinned', ranOn: 'v1' } }),
    ]);
    for (const result of Object.values(kept)) {
      expect(result.finishReason).toBe('stop');
      expect((await clients.pinned.getRun(result.runId)).build).toEqual({
        deploymentName,
        buildId: 'v1',
        behavior: 'PINNED',
      });
      expect(await patchesOf('pinned', result.runId)).not.toContain(TOOL_PAUSE_PATCH);
    }

    // Nothing needs v1 any more: agentctl says it can go.
    await buildsUntil('v1 retirable', (all) => buildOf(all, 'v1')?.retirable === true);
    const drained = await ctl('builds', '--deployment', deploymentName);
    expect(drained.stdout).toMatch(new RegExp(`^${deploymentName} +v1 +\\S+ +0 +0 +0 +yes$`, 'm'));
    drain.child.kill('SIGTERM');
    expect(await drain.exited).toEqual({ code: 0, signal: null });

    // New runs start on v2, with its added tool and its loop.
    const fresh = await clients.pinned.generate(UPGRADE_AGENT_ID, 'Go.', {
      script: [{ toolCalls: [{ toolName: 'exchangeRate', args: { currency: 'USD' } }] }, { text: 'Rate found.' }],
    });
    expect(fresh.toolResults).toEqual([
      expect.objectContaining({ isError: false, output: { currency: 'USD', rate: 0.9, ranOn: 'v2' } }),
    ]);
    expect((await clients.pinned.getRun(fresh.runId)).build).toMatchObject({ buildId: 'v2', behavior: 'PINNED' });
    expect(await patchesOf('pinned', fresh.runId)).toContain(TOOL_PAUSE_PATCH);
  });
});
