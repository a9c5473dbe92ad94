/**
 * Item 6 of issue #15: runs per second with 2 and 4 worker processes, for 50 and 200 concurrent runs,
 * this project next to the engine floor on the same setup, with where the CPU time went (the dev
 * server, the workers, the client starting and waiting on runs).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../src/client/index.js';
import { fmt, row } from './stats.js';
import { benchScript } from './systems.js';
import { startWorkerProcess, type Bundles, type WorkerKind, type WorkerProcess } from './worker-pool.js';
import type { Say } from './waiting.js';

/** CPU time of a process, ms, from /proc (Linux). */
async function procCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
}

/** CPU time of the whole machine, busy and total, ms. */
function machineCpuMs(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
    total += t;
    busy += t - c.times.idle;
  }
  return { busy, total };
}

interface Sample {
  server: number;
  workers: number;
  client: number;
  machine: { busy: number; total: number };
}

async function sample(serverPid: number, workers: WorkerProcess[]): Promise<Sample> {
  const stats = await Promise.all(workers.map((w) => w.stats()));
  const own = process.cpuUsage();
  return {
    server: await procCpuMs(serverPid),
    workers: stats.reduce((sum, s) => sum + s.cpuMs, 0),
    client: (own.user + own.system) / 1000,
    machine: machineCpuMs(),
  };
}

export interface ThroughputFigure {
  system: 'engine floor' | 'this project';
  processes: number;
  concurrent: number;
  runsPerSecond: number;
  seconds: number;
  /** CPU cores busy on average over the measurement: the dev server, the workers, the client, the machine. */
  cores: { server: number; workers: number; client: number; machine: number };
}

export async function processThroughput(
  address: string,
  temporalClient: Client,
  serverPid: number,
  bundles: Bundles,
  say: Say,
  options: { processes: number[]; concurrent: number[]; steps: number },
): Promise<ThroughputFigure[]> {
  const { steps } = options;
  const figures: ThroughputFigure[] = [];
  for (const processes of options.processes) {
    const queues: Record<WorkerKind, string> = {
      floor: `bench-tp-floor-${randomUUID().slice(0, 8)}`,
      agent: `bench-tp-agent-${randomUUID().slice(0, 8)}`,
    };
    const workers: Record<WorkerKind, WorkerProcess[]> = { floor: [], agent: [] };
    for (const kind of ['floor', 'agent'] as const) {
      workers[kind] = await Promise.all(
        Array.from({ length: processes }, () =>
          startWorkerProcess({ address, taskQueue: queues[kind], kind, bundle: bundles[kind] }),
        ),
      );
    }
    const client = await AgentClient.connect({ address, namespace: 'default', taskQueue: queues.agent });
    const runOne: Record<WorkerKind, () => Promise<unknown>> = {
      floor: () =>
        temporalClient.workflow.execute('engineFloor', {
          taskQueue: queues.floor,
          workflowId: `floor-tp-${randomUUID()}`,
          args: [steps],
        }),
      agent: () =>
        client.generate('bench-agent', 'go', {
          model: 'scripted',
          script: benchScript(steps),
          maxSteps: steps + 1,
          activeTools: ['noop'],
        }),
    };
    try {
      // A warm-up round: every process's first runs load its workflow code.
      for (const kind of ['floor', 'agent'] as const) {
        await Promise.all(Array.from({ length: processes * 2 }, () => runOne[kind]()));
      }
      for (const concurrent of options.concurrent) {
        for (const kind of ['floor', 'agent'] as const) {
          const before = await sample(serverPid, workers[kind]);
          const t = performance.now();
          await Promise.all(Array.from({ length: concurrent }, () => runOne[kind]()));
          const ms = performance.now() - t;
          const after = await sample(serverPid, workers[kind]);
          const machine = after.machine.total - before.machine.total;
          figures.push({
            system: kind === 'floor' ? 'engine floor' : 'this project',
            processes,
            concurrent,
            runsPerSecond: concurrent / (ms / 1000),
            seconds: ms / 1000,
            cores: {
              server: (after.server - before.server) / ms,
              workers: (after.workers - before.workers) / ms,
              client: (after.client - before.client) / ms,
              machine: ((after.machine.busy - before.machine.busy) / machine) * cpus().length,
            },
          });
        }
      }
    } finally {
      await client.close();
      await Promise.all([...workers.floor, ...workers.agent].map((w) => w.stop()));
    }
  }
  say(`## Throughput with worker processes: runs of ${steps} steps, completed runs per second`);
  say('');
  say('Each worker a process of its own, started from a pre-built bundle; the runs start at once and the');
  say('time runs until the last completes. CPU: cores busy on average over that time (2 = both cores).');
  say('');
  say(
    row(['worker processes', 'concurrent runs', 'engine floor runs/s', 'this project runs/s', 'ratio']) +
      ' CPU, this project: dev server / workers / client / whole machine |',
  );
  say('|---|---|---|---|---|---|');
  for (const processes of options.processes) {
    for (const concurrent of options.concurrent) {
      const of = (system: ThroughputFigure['system']) =>
        figures.find((f) => f.system === system && f.processes === processes && f.concurrent === concurrent)!;
      const floor = of('engine floor');
      const ours = of('this project');
      const c = ours.cores;
      const cpu = `${fmt(c.server, 2)} / ${fmt(c.workers, 2)} / ${fmt(c.client, 2)} / ${fmt(c.machine, 2)}`;
      say(
        `| ${processes} | ${concurrent} | ${fmt(floor.runsPerSecond, 1)} | ${fmt(ours.runsPerSecond, 1)} | ` +
          `${fmt(ours.runsPerSecond / floor.runsPerSecond, 2)} | ${cpu} |`,
      );
    }
  }
  say('');
  say('| worker processes | concurrent runs | CPU, engine floor: dev server / workers / client / whole machine |');
  say('|---|---|---|');
  for (const f of figures.filter((x) => x.system === 'engine floor')) {
    const c = f.cores;
    say(row([f.processes, f.concurrent, [c.server, c.workers, c.client, c.machine].map((x) => fmt(x, 2)).join(' / ')]));
  }
  say('');
  return figures;
}
