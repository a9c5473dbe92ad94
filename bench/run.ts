/**
 * `npm run bench` (quick, a few minutes on 2 cores) and `npm run bench -- --full`: every figure of
 * bench/README.md, measured in one run against a dev server of its own. Prints a markdown table,
 * writes the raw figures to bench/results/<quick|full>.json and the charts to bench/results/*.png.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { promisify } from 'node:util';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { lineChart } from './chart.js';
import { entriesSection } from './entries.js';
import { startDevServer } from './dev-server.js';
import { failureModels } from './model-failures.js';
import { streamModels } from './stream-model.js';
import { chainHistory as chainOf } from './history.js';
import { fmt, quantile, summarize, type Summary } from './stats.js';
import { streamLatencyHttp } from './stream-http.js';
import { benchScript, startSystems, type Systems } from './systems.js';
import { processThroughput } from './throughput-processes.js';
import { approvalTimes, waitingRuns } from './waiting.js';
import { writeReadmeSummary, type SummaryInput } from './readme-summary.js';
import { buildBundles } from './worker-pool.js';
import { workerProfile } from './worker-profile.js';

const run = promisify(execFile);
const full = process.argv.includes('--full');
const mode = full ? 'full' : 'quick';
/** `--only wall,history`: run only these sections (a focused A/B); the results then go to `<mode>-only.*`. */
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
const section = (name: string): boolean => !only || only.has(name);
const P = full
  ? {
      reps: { 1: 30, 10: 10, 50: 5 } as Record<number, number>,
      historySteps: [1, 10, 50, 200],
      approvals: 200,
      concurrent: 50,
      waiting: Number(process.env.BENCH_WAITING ?? 10_000),
      waitingSamples: 50,
      processes: [2, 4],
      processConcurrent: [50, 200],
      processRounds: 5,
      profileRuns: 400,
      deltas: 500,
      httpDeltas: 300,
      httpRounds: 5,
      agentctlRuns: 50,
      readers: [0, 1, 50],
    }
  : {
      reps: { 1: 10, 10: 4, 50: 2 } as Record<number, number>,
      historySteps: [1, 10, 50, 200],
      approvals: 50,
      concurrent: 50,
      waiting: Number(process.env.BENCH_WAITING ?? 200),
      waitingSamples: 20,
      processes: (process.env.BENCH_PROCESSES ?? '2,4').split(',').map(Number),
      processConcurrent: (process.env.BENCH_PROCESS_CONCURRENT ?? '50,200').split(',').map(Number),
      processRounds: Number(process.env.BENCH_PROCESS_ROUNDS ?? 3),
      profileRuns: 150,
      deltas: 150,
      httpDeltas: 150,
      httpRounds: 2,
      agentctlRuns: 15,
      readers: [0, 1, 50],
    };

Runtime.install({ logger: new DefaultLogger('WARN') });
// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const { temporal } = proto;
const results: Record<string, unknown> = {
  mode,
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    node: process.version,
    cpuModel: cpus()[0]?.model.trim(),
    memoryGiB: totalmem() / 2 ** 30,
  },
};
const lines: string[] = [];
const say = (line = ''): void => {
  lines.push(line);
  console.log(line);
};

async function historyOf(s: Systems, workflowId: string) {
  return s.temporal.workflow.getHandle(workflowId).fetchHistory();
}

/** The history of a run's whole continue-as-new chain (bench/history.ts). */
const chainHistory = (s: Systems, workflowId: string) => chainOf(s.temporal, workflowId);

async function wallTimePerStep(s: Systems): Promise<void> {
  say('## Wall time per step (ms): median / p95 over runs');
  say('');
  say('Each repetition runs the four systems one after the other. The ratio to the engine floor is of the');
  say('medians, and in brackets the 10th-90th percentile of the ratio within each repetition.');
  say('');
  const columns = ['steps', 'in-process (AI SDK)', 'engine floor', '@temporalio/ai-sdk', 'this project'];
  columns.push('ratio to in-process', 'to engine floor', 'to @temporalio/ai-sdk');
  say(`| ${columns.join(' | ')} |`);
  say(`|${columns.map(() => '---').join('|')}|`);
  const out: Record<string, Record<string, Summary>> = {};
  const ratioToFloor: Record<string, Summary> = {};
  // BENCH_WALL_STEPS=1 BENCH_WALL_REPS=40: a focused A/B of one figure with more repetitions.
  const stepsList = process.env.BENCH_WALL_STEPS?.split(',').map(Number) ?? [1, 10, 50];
  for (const steps of stepsList) {
    const per: Record<string, number[]> = { inProcess: [], engineFloor: [], peer: [], durable: [] };
    // Interleaved, so that noise from the shared machine falls on every system alike.
    const reps = Number(process.env.BENCH_WALL_REPS ?? P.reps[steps] ?? 4);
    for (let r = 0; r < reps; r++) {
      for (const name of ['inProcess', 'engineFloor', 'peer', 'durable'] as const) {
        const t = performance.now();
        await s[name](steps);
        per[name]!.push((performance.now() - t) / steps);
      }
    }
    const sum = Object.fromEntries(Object.entries(per).map(([k, v]) => [k, summarize(v)])) as Record<string, Summary>;
    out[steps] = sum;
    const d = sum.durable!.median;
    const cells = [String(steps)];
    for (const name of ['inProcess', 'engineFloor', 'peer', 'durable']) {
      cells.push(`${fmt(sum[name]!.median)} / ${fmt(sum[name]!.p95)}`);
    }
    // The ratio within each repetition (the systems ran back to back): its spread says how far to trust it.
    const perRep = per.durable!.map((ms, i) => ms / per.engineFloor![i]!);
    const repSpread = `${fmt(quantile(perRep, 0.1), 2)}-${fmt(quantile(perRep, 0.9), 2)}`;
    ratioToFloor[steps] = summarize(perRep);
    cells.push(`${fmt(d / sum.inProcess!.median, 1)}x`, `${fmt(d / sum.engineFloor!.median, 2)}x (${repSpread})`);
    cells.push(`${fmt(d / sum.peer!.median, 2)}x`);
    say(`| ${cells.join(' | ')} |`);
  }
  results.wallTimePerStepMs = out;
  results.wallRatioToFloorPerRepetition = ratioToFloor;
  const names: Record<string, string> = {
    inProcess: 'in-process (AI SDK)',
    engineFloor: 'engine floor',
    peer: '@temporalio/ai-sdk',
    durable: 'this project',
  };
  const rows = Object.entries(out).flatMap(([steps, sums]) =>
    Object.entries(sums).map(([k, v]) => ({ x: Number(steps), y: v.median, series: names[k]! })),
  );
  await lineChart('bench/results/wall-per-step.png', 'Wall time per step (median)', rows, {
    x: 'steps per run',
    y: 'ms per step',
    logY: true,
  });
  say('');
  say('![wall time per step](results/wall-per-step.png)');
  say('');
}

async function historyGrowth(s: Systems): Promise<void> {
  say('## History per run: events / KiB');
  say('');
  say('| steps | engine floor | @temporalio/ai-sdk | this project |');
  say('|---|---|---|---|');
  const rows: Array<{ x: number; y: number; series: string }> = [];
  const out: Record<number, Record<string, Awaited<ReturnType<typeof chainHistory>>>> = {};
  /** Bytes of JSON of this project's conversation at the end of each run: what the history must show once. */
  const conversationBytes: Record<number, number> = {};
  for (const steps of P.historySteps) {
    const ids = {
      'engine floor': `floor-h-${randomUUID()}`,
      '@temporalio/ai-sdk': `peer-h-${randomUUID()}`,
      'this project': `run-h-${randomUUID()}`,
    };
    await s.temporal.workflow.execute('engineFloor', {
      taskQueue: s.queues.floor,
      workflowId: ids['engine floor'],
      args: [steps],
    });
    await s.temporal.workflow.execute('aiSdkPeer', {
      taskQueue: s.queues.peer,
      workflowId: ids['@temporalio/ai-sdk'],
      args: [steps],
    });
    const ours = await s.client.generate('bench-agent', 'go', {
      model: 'scripted',
      script: benchScript(steps),
      maxSteps: steps + 1,
      activeTools: ['noop'],
      runId: ids['this project'],
    });
    conversationBytes[steps] = Buffer.byteLength(JSON.stringify(ours.messages));
    out[steps] = {};
    for (const [series, id] of Object.entries(ids)) {
      const chain = await chainHistory(s, id);
      out[steps]![series] = chain;
      rows.push({ x: steps, y: chain.bytes / 1024, series });
    }
    const cell = (k: string) => `${out[steps]![k]!.events} / ${fmt(out[steps]![k]!.bytes / 1024, 0)}`;
    say(`| ${steps} | ${cell('engine floor')} | ${cell('@temporalio/ai-sdk')} | ${cell('this project')} |`);
  }
  say('');
  say('(Summed over the continue-as-new chain of each run.)');
  say('');
  for (const series of ['engine floor', '@temporalio/ai-sdk', 'this project']) {
    const one = out[1]![series]!;
    const local = one.localActivities > 0 ? ` (and ${one.localActivities} local)` : '';
    const counts = `${one.workflowTasks} workflow tasks, ${one.activities} activities${local}, ${one.events} events`;
    say(`- ${series}, 1-step run: ${counts}`);
  }
  const [a, b] = [50, 200];
  for (const series of ['engine floor', '@temporalio/ai-sdk', 'this project']) {
    // Bytes per step grow with steps when every model call carries the whole conversation.
    const growth = out[b]![series]!.bytes / b / (out[a]![series]!.bytes / a);
    const perStep = (n: number) => fmt(out[n]![series]!.bytes / n / 1024, 2);
    const kibs = `${perStep(a)} / ${perStep(b)} KiB a step`;
    say(`- ${series}: bytes per step at ${b} steps / at ${a} steps = ${fmt(growth)} (${kibs})`);
    say('  (1 is linear growth; more means superlinear)');
  }
  // The goal: at most twice the engine floor's history plus the conversation's own bytes.
  const floor = out[b]!['engine floor']!.bytes;
  const ours = out[b]!['this project']!.bytes;
  const budget = 2 * floor + conversationBytes[b]!;
  say(
    `- this project at ${b} steps: ${fmt(ours / 1024, 0)} KiB against 2 × the engine floor + the conversation ` +
      `(${fmt(conversationBytes[b]! / 1024, 0)} KiB) = ${fmt(budget / 1024, 0)} KiB: ${fmt(ours / budget)} of it`,
  );
  results.history = out;
  results.conversationBytes = conversationBytes;
  await lineChart('bench/results/history-bytes.png', 'History size per run', rows, { x: 'steps', y: 'KiB of history' });
  say('');
  say('![history](results/history-bytes.png)');
  say('');
}

/** What a provider's failure adds to a one-step run's history: retried attempts, and a fallback model. */
async function modelFailureHistory(s: Systems): Promise<void> {
  const key = randomUUID().slice(0, 8);
  const runs = {
    'answered at once': await s.client.generate('bench-agent', 'go', { model: 'bench-ok/x' }),
    'after 3 failed attempts (429)': await s.client.generate('bench-agent', 'go', { model: `bench-429/${key}:3` }),
    'by a fallback model': await s.client.generate('bench-fallback-agent', 'go'),
  };
  say('## History of a one-step run whose provider fails');
  say('');
  say('| the model step | events | KiB | activities |');
  say('|---|---|---|---|');
  const out: Record<string, Awaited<ReturnType<typeof chainHistory>>> = {};
  for (const [name, run] of Object.entries(runs)) {
    if (run.text !== 'done') throw new Error(`model-failures: the run "${name}" answered ${JSON.stringify(run.text)}`);
    const chain = (out[name] = await chainHistory(s, run.runId));
    say(`| ${name} | ${chain.events} | ${fmt(chain.bytes / 1024, 1)} | ${chain.activities} |`);
  }
  say('');
  say(
    "(Temporal records an activity's failed attempts in no event: a retried step costs its history the " +
      'last failure, in the completed event of its one activity. A fallback answers within the attempt.)',
  );
  say('');
  results.modelFailureHistory = out;
}

/** One run that asks for 20 approvals one after the other: what waiting on pauses adds to its history. */
async function approvalHistory(s: Systems): Promise<void> {
  const approvals = 20;
  const script = [
    ...Array.from({ length: approvals }, (_, i) => ({ toolCalls: [{ toolName: 'guarded', args: { i } }] })),
    { text: 'done' },
  ];
  let run = await s.client.generate('bench-agent', 'go', { model: 'scripted', script, maxSteps: approvals + 1 });
  while (run.finishReason === 'suspended') run = await s.client.approveToolCallGenerate({ runId: run.runId });
  const chain = await chainHistory(s, run.runId);
  say('## History of a run with 20 approvals');
  say('');
  say(`${chain.events} events, ${fmt(chain.bytes / 1024, 0)} KiB, ${chain.upserts} memo upserts`);
  say('');
  results.approvalHistory = chain;
}

async function approvalLatency(s: Systems): Promise<void> {
  const script = [{ toolCalls: [{ toolName: 'guarded', args: { i: 1 } }] }, { text: 'done' }];
  const latencies: number[] = [];
  for (let i = 0; i < P.approvals; i++) {
    const paused = await s.client.generate('bench-agent', 'go', { model: 'scripted', script });
    await s.client.approveToolCallGenerate({ runId: paused.runId });
    latencies.push(approvalTimes((await historyOf(s, paused.runId)).events ?? []).latencyMs);
  }
  const sum = summarize(latencies);
  results.approvalLatencyMs = sum;
  say(`## Approval latency: approve signal accepted -> tool activity started (${sum.n} approvals)`);
  say('');
  say(`p50 ${fmt(sum.median, 1)} ms, p99 ${fmt(sum.p99, 1)} ms (min ${fmt(sum.min, 1)}, max ${fmt(sum.max, 1)})`);
  say('');
}

async function throughput(address: string, s: Systems): Promise<void> {
  const steps = 3;
  const out: Record<string, number> = {};
  for (const workers of [1, 2]) {
    const { createWorker } = await import('../src/index.js');
    const extra =
      workers === 2
        ? await createWorker({
            agents: [(await import('./systems.js')).benchAgent],
            address,
            namespace: 'default',
            taskQueue: s.client.taskQueue,
            enableScriptedModel: true,
          })
        : undefined;
    const extraRun = extra?.run();
    const t = performance.now();
    await Promise.all(Array.from({ length: P.concurrent }, () => s.durable(steps)));
    out[`${workers} worker${workers > 1 ? 's' : ''}`] = P.concurrent / ((performance.now() - t) / 1000);
    extra?.worker.shutdown();
    await extraRun;
  }
  results.throughputRunsPerSecond = { concurrentRuns: P.concurrent, stepsPerRun: steps, ...out };
  say(`## Throughput: ${P.concurrent} concurrent runs of ${steps} steps, completed runs per second`);
  say('');
  for (const [k, v] of Object.entries(out)) say(`- ${k} (in one process): ${fmt(v, 1)} runs/s`);
  say('');
}

async function streamLatency(s: Systems): Promise<void> {
  const stream = await s.client.stream('bench-agent', 'go', { model: `bench-stream/${P.deltas}`, streamGraceMs: 0 });
  const latencies: number[] = [];
  for await (const chunk of stream) {
    if (chunk.type !== 'text-delta') continue;
    const now = Date.now();
    for (const stamp of chunk.delta.split(';').filter(Boolean)) latencies.push(now - Number(stamp));
  }
  const sum = summarize(latencies);
  results.streamLatencyMs = sum;
  say(
    `## Stream latency: model activity emits a delta -> subscriber receives it (${sum.n} deltas, batches every 100 ms)`,
  );
  say('');
  say(`p50 ${fmt(sum.median, 0)} ms, p99 ${fmt(sum.p99, 0)} ms`);
  say('');
}

interface TimedCommand {
  key: string;
  label: string;
  /** The arguments of `node`; set-up here is not timed. */
  args: () => Promise<string[]>;
  /** Runs after the command, untimed. */
  after?: () => Promise<unknown>;
}

/**
 * agentctl as a shell script calls it: a process of its own, from start to exit, through the shipped bin
 * (not npx, which adds npm's own start). Interleaved with a bare Node start, the floor under any command.
 */
async function agentctlStartToExit(address: string, s: Systems): Promise<void> {
  const script = [{ toolCalls: [{ toolName: 'guarded', args: { i: 1 } }] }, { text: 'done' }];
  const at = ['--address', address, '--namespace', 'default'];
  let approved = '';
  const commands: TimedCommand[] = [
    { key: 'node', label: "`node -e ''` (Node's own start)", args: async () => ['-e', ''] },
    { key: 'help', label: '`agentctl --help`', args: async () => ['bin/agentctl.js', '--help'] },
    {
      key: 'runsList',
      label: '`agentctl runs list` (50 runs listed)',
      args: async () => ['bin/agentctl.js', 'runs', 'list', ...at],
    },
    {
      key: 'approve',
      label: '`agentctl approve RUN --fingerprint F --as NAME` (a run waiting for approval)',
      args: async () => {
        const paused = await s.client.generate('bench-agent', 'go', { model: 'scripted', script });
        approved = paused.runId;
        // The fingerprint an operator reads from `agentctl runs show` before deciding.
        const fingerprint = paused.pendingToolCalls[0]!.fingerprint;
        return ['bin/agentctl.js', 'approve', approved, '--fingerprint', fingerprint, '--as', 'bench', ...at];
      },
      // The approved run goes on in this process's worker: it ends before the next command starts.
      after: async () => {
        const result = await s.client.result(approved);
        if (result.text !== 'done') throw new Error(`agentctl approve: run ${approved} ended ${result.finishReason}`);
      },
    },
  ];
  const times: Record<string, number[]> = Object.fromEntries(commands.map((c) => [c.key, []]));
  // The first round is a warm-up, as a second call from a shell is: the OS file cache, Node's compile cache.
  for (let r = -1; r < P.agentctlRuns; r++) {
    for (const c of commands) {
      const args = await c.args();
      const t = performance.now();
      await run(process.execPath, args);
      if (r >= 0) times[c.key]!.push(performance.now() - t);
      await c.after?.();
    }
  }
  const out = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, summarize(v)]));
  results.agentctlStartToExitMs = out;
  say(`## agentctl start to exit (ms, ${P.agentctlRuns} runs of each, interleaved)`);
  say('');
  say('| command | median | p95 | min | max |');
  say('|---|---|---|---|---|');
  for (const c of commands) {
    const sum = out[c.key]!;
    say(`| ${c.label} | ${fmt(sum.median, 0)} | ${fmt(sum.p95, 0)} | ${fmt(sum.min, 0)} | ${fmt(sum.max, 0)} |`);
  }
  say('');
}

// agentctl is measured as shipped (dist/), compiled from the source as it is.
await run(process.execPath, ['build.js']);
/**
 * What readers cost the run they read: the same streamed run (100 deltas over a second) read by 0, 1
 * and 50 concurrent readers, and the events and bytes of its history each time.
 */
async function streamReaderHistory(s: Systems): Promise<void> {
  const sizes: Record<number, { events: number; bytes: number }> = {};
  for (const readers of P.readers) {
    const { runId } = await s.client.stream('bench-agent', 'go', { model: 'bench-stream/100', streamGraceMs: 0 });
    const reads = Array.from({ length: readers }, async () => {
      for await (const chunk of s.client.subscribe(runId)) void chunk;
    });
    await s.client.result(runId);
    await Promise.all(reads);
    const history = await historyOf(s, runId);
    sizes[readers] = {
      events: history.events?.length ?? 0,
      bytes: temporal.api.history.v1.History.encode(history).finish().length,
    };
  }
  const none = sizes[0]!;
  const perReader = Object.fromEntries(
    P.readers
      .filter((n) => n > 0)
      .map((n) => [n, { events: (sizes[n]!.events - none.events) / n, bytes: (sizes[n]!.bytes - none.bytes) / n }]),
  );
  results.streamReaderHistory = { runs: sizes, addedPerReader: perReader };
  say('## Stream readers: history of a streamed run (100 deltas over 1 s) read by N concurrent readers');
  say('');
  say('| readers | events | KiB | events added per reader | bytes added per reader |');
  say('|---|---|---|---|---|');
  for (const n of P.readers) {
    const added = perReader[n];
    const cells = [n, sizes[n]!.events, fmt(sizes[n]!.bytes / 1024, 1)];
    cells.push(added ? fmt(added.events, 2) : '-', added ? fmt(added.bytes, 0) : '-');
    say(`| ${cells.join(' | ')} |`);
  }
  say('');
  say('(The number of delta batches, one signal each, varies by a batch or two from run to run.)');
  say('');
}

const server = await startDevServer();
const address = server.address;
const started = performance.now();
const s = await startSystems(address, { ...streamModels, ...failureModels });
/** The workflow bundles of worker processes, built once, when a section first needs them. */
let built: Promise<Awaited<ReturnType<typeof buildBundles>>> | undefined;
const bundles = () => (built ??= buildBundles());
try {
  say(`# Benchmarks (${mode}), ${new Date().toISOString()}`);
  say('');
  say(
    `Machine: ${cpus()[0]?.model.trim()}, ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30, 0)} GiB, ` +
      `Node ${process.version}; ` +
      'one dev server (SQLite), scripted model with no latency; every system runs N steps of one model call ' +
      'and one no-op tool call, then a final model call.',
  );
  say('');
  if (section('wall')) await wallTimePerStep(s);
  if (section('history')) await historyGrowth(s);
  if (section('approvals')) await approvalLatency(s);
  if (section('approval-history')) await approvalHistory(s);
  if (section('model-failures')) await modelFailureHistory(s);
  if (section('throughput')) await throughput(address, s);
  if (section('processes')) {
    results.processThroughput = await processThroughput(address, s.temporal, server, await bundles(), say, {
      processes: P.processes,
      concurrent: P.processConcurrent,
      steps: 3,
      rounds: P.processRounds,
    });
  }
  if (section('profile')) {
    results.workerProfile = await workerProfile(address, s.temporal, await bundles(), say, {
      runs: P.profileRuns,
      steps: 3,
    });
  }
  if (section('waiting')) {
    results.waitingRuns = await waitingRuns(address, s.temporal, say, {
      runs: P.waiting,
      samples: P.waitingSamples,
      chart: 'bench/results/waiting-memory.png',
    });
  }
  if (section('stream')) await streamLatency(s);
  if (section('stream-http')) {
    results.streamLatencyHttpMs = await streamLatencyHttp(address, s.temporal, (await bundles()).agent, say, {
      deltas: P.httpDeltas,
      rounds: P.httpRounds,
      subscribers: [1, 50],
    });
  }
  if (section('agentctl')) await agentctlStartToExit(address, s);
  if (section('readers')) await streamReaderHistory(s);
  if (section('entries')) {
    results.entries = await entriesSection(say, { reps: full ? 10 : 5, compare: process.env.BENCH_COMPARE });
  }
  say(`Total time: ${fmt((performance.now() - started) / 1000, 0)} s`);
} finally {
  await (await built)?.remove();
  await s.close();
  await server.stop();
}
await mkdir('bench/results', { recursive: true });
const file = only ? `${mode}-only` : mode;
await writeFile(`bench/results/${file}.json`, JSON.stringify(results, null, 2) + '\n');
await writeFile(`bench/results/${file}.md`, lines.join('\n') + '\n');
// A whole run is the latest word: the README's summary shows it.
if (!only) await writeReadmeSummary(results as unknown as SummaryInput);
