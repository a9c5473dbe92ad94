/**
 * A profile of both workers: one worker process of each system, profiled by V8 (`--cpu-prof`), runs
 * the same runs one system after the other; each thread's samples over its system's runs are put in
 * categories (bench/cpu-profile.ts), per run. Profiling slows both: read the shares, not the totals.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../src/client/index.js';
import { profileSummary } from './cpu-profile.js';
import { fmt, row } from './stats.js';
import { benchScript } from './systems.js';
import type { Say } from './waiting.js';
import { startWorkerProcess, type Bundles, type WorkerKind } from './worker-pool.js';

/** Microseconds of the monotonic clock, the one V8's profiles are stamped with. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

export interface WorkerProfile {
  runs: number;
  /** CPU ms per run by thread and category, and the process's whole CPU ms per run. */
  perRun: Record<WorkerKind, { workflow: Record<string, number>; main: Record<string, number>; process: number }>;
}

export async function workerProfile(
  address: string,
  temporalClient: Client,
  bundles: Bundles,
  say: Say,
  options: { runs: number; steps: number },
): Promise<WorkerProfile> {
  const { runs, steps } = options;
  const perRun = {} as WorkerProfile['perRun'];
  for (const kind of ['floor', 'agent'] as const) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
    const taskQueue = `bench-prof-${kind}-${randomUUID().slice(0, 8)}`;
    const worker = await startWorkerProcess({ address, taskQueue, kind, bundle: bundles[kind], cpuProfileDir: dir });
    const client = await AgentClient.connect({ address, namespace: 'default', taskQueue }).catch(async (err) => {
      await worker.stop();
      throw err;
    });
    const one = (): Promise<unknown> =>
      kind === 'floor'
        ? temporalClient.workflow.execute('engineFloor', {
            taskQueue,
            workflowId: `floor-prof-${randomUUID()}`,
            args: [steps],
          })
        : client.generate('bench-agent', 'go', {
            model: 'scripted',
            script: benchScript(steps),
            maxSteps: steps + 1,
            activeTools: ['noop'],
          });
    let window: { from: number; to: number; cpuMs: number } | undefined;
    try {
      await Promise.all(Array.from({ length: 10 }, one));
      const cpu0 = (await worker.stats()).cpuMs;
      const from = nowUs();
      await Promise.all(Array.from({ length: runs }, one));
      const to = nowUs();
      window = { from, to, cpuMs: (await worker.stats()).cpuMs - cpu0 };
    } finally {
      await client.close();
      // The profiles are written when the process exits.
      await worker.stop();
    }
    try {
      const summary = await profileSummary(dir, window.from, window.to);
      const per = (m: Map<string, number>) => Object.fromEntries([...m].map(([k, v]) => [k, v / runs]));
      perRun[kind] = { workflow: per(summary.workflow), main: per(summary.main), process: window.cpuMs / runs };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  report(say, runs, steps, perRun);
  return { runs, perRun };
}

function report(say: Say, runs: number, steps: number, perRun: WorkerProfile['perRun']): void {
  say(`## Where a worker's CPU goes: ${runs} runs of ${steps} steps on one profiled worker process of each`);
  say('');
  say('ms per run in the V8 CPU profile of each JavaScript thread over its runs, by what the sample ran under');
  say("(bench/cpu-profile.ts). A sample's time is the wall time until the next one, so a thread waiting for a");
  say("core counts too; profiling slows both systems. The last row is the process's CPU time, the SDK's Rust");
  say('threads included.');
  say('');
  say('| thread: category | engine floor | this project | more |');
  say('|---|---|---|---|');
  for (const thread of ['workflow', 'main'] as const) {
    const categories = [...new Set([...Object.keys(perRun.floor[thread]), ...Object.keys(perRun.agent[thread])])];
    const of = (kind: WorkerKind, c: string) => perRun[kind][thread][c] ?? 0;
    for (const c of categories.sort((a, b) => of('agent', b) - of('agent', a))) {
      if (c === 'idle') continue;
      say(
        row([
          `${thread}: ${c}`,
          fmt(of('floor', c), 1),
          fmt(of('agent', c), 1),
          fmt(of('agent', c) - of('floor', c), 1),
        ]),
      );
    }
  }
  say(
    row([
      'the whole process: CPU time',
      fmt(perRun.floor.process, 1),
      fmt(perRun.agent.process, 1),
      fmt(perRun.agent.process - perRun.floor.process, 1),
    ]),
  );
  say('');
}
