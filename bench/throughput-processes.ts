/**
 * Runs per second with 2 and 4 worker processes, for 50 and 200 concurrent runs, this project next to
 * the engine floor on the same setup, in rounds that alternate which system goes first (so that a
 * noisy minute falls on both), with the spread over the rounds; and what one run costs beside the
 * floor's: events and workflow tasks, CPU of the dev server, the workers and the client, and the
 * server's persistence requests by operation.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../src/client/index.js';
import type { DevServer } from './dev-server.js';
import { chainHistory, eventTypes, type ChainHistory } from './history.js';
import { difference, persistenceRequests } from './server-metrics.js';
import { fmt, quantile, row } from './stats.js';
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
  persistence: Map<string, number>;
}

/**
 * CPU times and the server's counters. The counters are read outside the CPU window (first before it,
 * last after it), so that rendering and parsing them is not counted against the runs.
 */
async function sample(server: DevServer, workers: WorkerProcess[], when: 'before' | 'after'): Promise<Sample> {
  const early = when === 'before' ? await persistenceRequests(server.metricsUrl) : undefined;
  const stats = await Promise.all(workers.map((w) => w.stats()));
  const own = process.cpuUsage();
  const cpu = {
    server: await procCpuMs(server.pid),
    workers: stats.reduce((sum, s) => sum + s.cpuMs, 0),
    client: (own.user + own.system) / 1000,
    machine: machineCpuMs(),
  };
  return { ...cpu, persistence: early ?? (await persistenceRequests(server.metricsUrl)) };
}

type System = 'engine floor' | 'this project';
const systemOf: Record<WorkerKind, System> = { floor: 'engine floor', agent: 'this project' };

export interface ThroughputFigure {
  system: System;
  processes: number;
  concurrent: number;
  round: number;
  runsPerSecond: number;
  seconds: number;
  /** CPU time per run, ms: the dev server, the workers, the client, the whole machine (busy). */
  cpuMsPerRun: { server: number; workers: number; client: number; machine: number };
}

/** What one run of each system costs, over every measured run. */
export interface RunCost {
  runs: number;
  /** Of a sample of the measured runs, averaged. */
  history: ChainHistory;
  cpuMsPerRun: ThroughputFigure['cpuMsPerRun'];
  /** The server's persistence requests per run, by operation. */
  persistencePerRun: Record<string, number>;
  /** The event types of one run's history, in order. */
  events: string[];
}

export interface ThroughputResults {
  rounds: number;
  /** Steps of each run. */
  steps: number;
  figures: ThroughputFigure[];
  costs: Record<System, RunCost>;
}

const median = (values: number[]): number => quantile(values, 0.5);
const spread = (values: number[], digits: number): string =>
  `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}-${fmt(Math.max(...values), digits)})`;

export async function processThroughput(
  address: string,
  temporalClient: Client,
  server: DevServer,
  bundles: Bundles,
  say: Say,
  options: { processes: number[]; concurrent: number[]; steps: number; rounds: number },
): Promise<ThroughputResults> {
  const { steps, rounds } = options;
  if (!(rounds >= 1)) throw new Error(`processThroughput: rounds must be at least 1, not ${rounds}`);
  const figures: ThroughputFigure[] = [];
  /** Counts rounds across rows, so that each system goes first equally often over the section. */
  let roundsRun = 0;
  const totals: Record<WorkerKind, { runs: number; cpu: ThroughputFigure['cpuMsPerRun']; ops: Map<string, number> }> = {
    floor: { runs: 0, cpu: { server: 0, workers: 0, client: 0, machine: 0 }, ops: new Map() },
    agent: { runs: 0, cpu: { server: 0, workers: 0, client: 0, machine: 0 }, ops: new Map() },
  };
  const measuredIds: Record<WorkerKind, string[]> = { floor: [], agent: [] };
  /** Every row of one processes count, on its started workers. */
  async function measureRows(
    processes: number,
    client: AgentClient,
    queues: Record<WorkerKind, string>,
    workers: Record<WorkerKind, WorkerProcess[]>,
  ): Promise<void> {
    const runOne: Record<WorkerKind, () => Promise<string>> = {
      floor: async () => {
        const workflowId = `floor-tp-${randomUUID()}`;
        await temporalClient.workflow.execute('engineFloor', { taskQueue: queues.floor, workflowId, args: [steps] });
        return workflowId;
      },
      agent: async () => {
        const result = await client.generate('bench-agent', 'go', {
          model: 'scripted',
          script: benchScript(steps),
          maxSteps: steps + 1,
          activeTools: ['noop'],
        });
        return result.runId;
      },
    };
    // A warm-up round: every process's first runs load its workflow code.
    for (const kind of ['floor', 'agent'] as const) {
      await Promise.all(Array.from({ length: processes * 2 }, () => runOne[kind]()));
    }
    for (const concurrent of options.concurrent) {
      for (let round = 0; round < rounds; round++) {
        // Every other round the other system goes first.
        const order: WorkerKind[] = roundsRun++ % 2 === 0 ? ['floor', 'agent'] : ['agent', 'floor'];
        for (const kind of order) {
          const before = await sample(server, workers[kind], 'before');
          const t = performance.now();
          measuredIds[kind] = await Promise.all(Array.from({ length: concurrent }, () => runOne[kind]()));
          const ms = performance.now() - t;
          const after = await sample(server, workers[kind], 'after');
          const machineShare =
            (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total);
          const cpuMsPerRun = {
            server: (after.server - before.server) / concurrent,
            workers: (after.workers - before.workers) / concurrent,
            client: (after.client - before.client) / concurrent,
            machine: (machineShare * cpus().length * ms) / concurrent,
          };
          figures.push({
            system: systemOf[kind],
            processes,
            concurrent,
            round,
            runsPerSecond: concurrent / (ms / 1000),
            seconds: ms / 1000,
            cpuMsPerRun,
          });
          const total = totals[kind];
          total.runs += concurrent;
          for (const k of Object.keys(cpuMsPerRun) as Array<keyof typeof cpuMsPerRun>) {
            total.cpu[k] += cpuMsPerRun[k] * concurrent;
          }
          for (const [op, n] of difference(before.persistence, after.persistence)) {
            total.ops.set(op, (total.ops.get(op) ?? 0) + n);
          }
        }
      }
    }
  }

  for (const processes of options.processes) {
    const queues: Record<WorkerKind, string> = {
      floor: `bench-tp-floor-${randomUUID().slice(0, 8)}`,
      agent: `bench-tp-agent-${randomUUID().slice(0, 8)}`,
    };
    const workers: Record<WorkerKind, WorkerProcess[]> = { floor: [], agent: [] };
    const started: WorkerProcess[] = [];
    let client: AgentClient | undefined;
    try {
      for (const kind of ['floor', 'agent'] as const) {
        workers[kind] = await Promise.all(
          Array.from({ length: processes }, async () => {
            const w = await startWorkerProcess({ address, taskQueue: queues[kind], kind, bundle: bundles[kind] });
            started.push(w);
            return w;
          }),
        );
      }
      client = await AgentClient.connect({ address, namespace: 'default', taskQueue: queues.agent });
      await measureRows(processes, client, queues, workers);
    } finally {
      await client?.close();
      await Promise.all(started.map((w) => w.stop()));
    }
  }

  const costs = {} as Record<System, RunCost>;
  for (const kind of ['floor', 'agent'] as const) {
    // The histories of a sample of the last measured runs (each system's runs are all alike).
    const histories = await Promise.all(measuredIds[kind].slice(0, 5).map((id) => chainHistory(temporalClient, id)));
    const mean = Object.fromEntries(
      Object.keys(histories[0]!).map((k) => [
        k,
        histories.reduce((sum, h) => sum + h[k as keyof ChainHistory], 0) / histories.length,
      ]),
    ) as unknown as ChainHistory;
    const total = totals[kind];
    costs[systemOf[kind]] = {
      runs: total.runs,
      history: mean,
      cpuMsPerRun: Object.fromEntries(
        Object.entries(total.cpu).map(([k, v]) => [k, v / total.runs]),
      ) as ThroughputFigure['cpuMsPerRun'],
      persistencePerRun: Object.fromEntries([...total.ops].map(([op, n]) => [op, n / total.runs])),
      events: await eventTypes(temporalClient, measuredIds[kind][0]!),
    };
  }
  report(say, options, figures, costs);
  return { rounds, steps, figures, costs };
}

function report(
  say: Say,
  options: { processes: number[]; concurrent: number[]; steps: number; rounds: number },
  figures: ThroughputFigure[],
  costs: Record<System, RunCost>,
): void {
  const { steps, rounds } = options;
  say(`## Throughput with worker processes: runs of ${steps} steps, completed runs per second`);
  say('');
  say('Each worker a process of its own, started from a pre-built bundle; the runs start at once and the');
  say(`time runs until the last completes. ${rounds} rounds of each row, the systems one after the other, the`);
  say('other first every other round: median (min-max over the rounds); the ratio is taken within each round.');
  say('');
  say(row(['worker processes', 'concurrent runs', 'engine floor runs/s', 'this project runs/s', 'ratio']));
  say('|---|---|---|---|---|');
  for (const processes of options.processes) {
    for (const concurrent of options.concurrent) {
      const of = (system: System) =>
        figures
          .filter((f) => f.system === system && f.processes === processes && f.concurrent === concurrent)
          .sort((a, b) => a.round - b.round);
      const floor = of('engine floor');
      const ours = of('this project');
      const ratios = ours.map((f, i) => f.runsPerSecond / floor[i]!.runsPerSecond);
      say(
        row([
          processes,
          concurrent,
          spread(
            floor.map((f) => f.runsPerSecond),
            1,
          ),
          spread(
            ours.map((f) => f.runsPerSecond),
            1,
          ),
          spread(ratios, 2),
        ]),
      );
    }
  }
  say('');
  const floor = costs['engine floor'];
  const ours = costs['this project'];
  say(`## What one run of ${steps} steps costs, beside the engine floor (every run above)`);
  say('');
  say('| per run | engine floor | this project | more |');
  say('|---|---|---|---|');
  // Rounded to zero, a difference shows as 0, not -0.
  const diff = (x: number, digits: number) => fmt(Math.abs(x) < 0.5 * 10 ** -digits ? 0 : x, digits);
  const line = (label: string, a: number, b: number, digits = 1) =>
    say(row([label, fmt(a, digits), fmt(b, digits), diff(b - a, digits)]));
  line('history events', floor.history.events, ours.history.events, 0);
  line('workflow tasks', floor.history.workflowTasks, ours.history.workflowTasks, 0);
  line('activities', floor.history.activities, ours.history.activities, 0);
  line('local activities', floor.history.localActivities, ours.history.localActivities, 0);
  line('history KiB', floor.history.bytes / 1024, ours.history.bytes / 1024);
  line('CPU ms, dev server', floor.cpuMsPerRun.server, ours.cpuMsPerRun.server);
  line('CPU ms, worker processes', floor.cpuMsPerRun.workers, ours.cpuMsPerRun.workers);
  line('CPU ms, client (this process)', floor.cpuMsPerRun.client, ours.cpuMsPerRun.client);
  line('CPU ms, whole machine', floor.cpuMsPerRun.machine, ours.cpuMsPerRun.machine);
  const ops = [...new Set([...Object.keys(floor.persistencePerRun), ...Object.keys(ours.persistencePerRun)])];
  const per = (c: RunCost, op: string) => c.persistencePerRun[op] ?? 0;
  const sum = (c: RunCost) => ops.reduce((s, op) => s + per(c, op), 0);
  line('persistence requests, all', sum(floor), sum(ours));
  for (const op of ops.sort((a, b) => per(ours, b) - per(floor, b) - (per(ours, a) - per(floor, a)))) {
    if (Math.max(per(floor, op), per(ours, op)) >= 0.5) line(`- ${op}`, per(floor, op), per(ours, op));
  }
  say('');
  say(`Events this project's run records beyond the floor's: ${extraEvents(floor.events, ours.events)}.`);
  say('');
}

/** The multiset difference of two runs' event types, as "TYPE x N". */
function extraEvents(floor: string[], ours: string[]): string {
  const count = (list: string[]) => list.reduce((m, e) => m.set(e, (m.get(e) ?? 0) + 1), new Map<string, number>());
  const a = count(floor);
  const extra = [...count(ours)].map(([e, n]) => [e, n - (a.get(e) ?? 0)] as const).filter(([, n]) => n > 0);
  return extra.map(([e, n]) => `${e} x ${n}`).join(', ') || 'none';
}
