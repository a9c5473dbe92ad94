/**
 * The README's benchmark summary: the latest whole run's headline figures against their goals, with
 * the date and the machine. `npm run bench` (without `--only`) rewrites it between the markers;
 * `npx tsx bench/readme-summary.ts bench/results/quick.json` rewrites it from a saved run.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { Summary } from './stats.js';
import { fmt, quantile } from './stats.js';
import type { ThroughputResults } from './throughput-processes.js';

const START = '<!-- bench-summary:start -->';
const END = '<!-- bench-summary:end -->';

interface Checkpoint {
  waiting: number;
  rssMiB: number;
  cachedWorkflows: number;
}

/** The parts of results/<mode>.json the summary reads; a section that did not run is left out. */
export interface SummaryInput {
  mode: string;
  date: string;
  machine: { cpus: number; node: string; cpuModel?: string; memoryGiB?: number };
  wallTimePerStepMs?: Record<string, Record<string, Summary>>;
  processThroughput?: ThroughputResults | unknown[];
  history?: Record<string, Record<string, { bytes: number }>>;
  approvalLatencyMs?: Summary;
  waitingRuns?: { runs: number; variants: Array<{ checkpoints: Checkpoint[] }> };
  agentctlStartToExitMs?: Record<string, Summary>;
  streamLatencyHttpMs?: Record<string, { total: Summary }>;
}

/**
 * `large`: the latest measurement of 10,000 waiting runs (`--full --only waiting`, kept as
 * results/waiting-10000.json), which a quick run does not make.
 */
export function summaryLines(r: SummaryInput, large?: Pick<SummaryInput, 'date' | 'waitingRuns'>): string[] {
  const rows: string[] = [];
  const add = (figure: string, value: string, goal: string) => rows.push(`| ${figure} | ${value} | ${goal} |`);
  const wall = r.wallTimePerStepMs?.['1'];
  if (wall) {
    add(
      'wall time of a 1-step run, to the engine floor',
      `${fmt(wall.durable!.median / wall.engineFloor!.median, 3)}x`,
      'at most 1.05x',
    );
  }
  // Results from before the rounds (an array of figures) have no rounds to summarize.
  const tp = r.processThroughput && !Array.isArray(r.processThroughput) ? r.processThroughput : undefined;
  if (tp) {
    const ratios: number[] = [];
    const rowMedians: number[] = [];
    const rows = new Set(tp.figures.map((f) => `${f.processes}/${f.concurrent}`));
    for (const key of rows) {
      const inRow: number[] = [];
      for (const ours of tp.figures.filter(
        (f) => f.system === 'this project' && `${f.processes}/${f.concurrent}` === key,
      )) {
        const floor = tp.figures.find(
          (f) =>
            f.system === 'engine floor' &&
            f.processes === ours.processes &&
            f.concurrent === ours.concurrent &&
            f.round === ours.round,
        )!;
        inRow.push(ours.runsPerSecond / floor.runsPerSecond);
      }
      ratios.push(...inRow);
      rowMedians.push(quantile(inRow, 0.5));
    }
    const processes = [...new Set(tp.figures.map((f) => f.processes))].join(' and ');
    add(
      `runs/s with ${processes} worker processes, to the engine floor`,
      `${fmt(Math.min(...rowMedians), 2)}-${fmt(Math.max(...rowMedians), 2)} by row ` +
        `(rounds: ${fmt(Math.min(...ratios), 2)}-${fmt(Math.max(...ratios), 2)})`,
      'at least 0.95',
    );
    const costs = tp.costs;
    add(
      `a ${tp.steps}-step run: events, CPU ms of the whole machine (engine floor)`,
      `${costs['this project'].history.events}, ${fmt(costs['this project'].cpuMsPerRun.machine, 0)} ` +
        `(${costs['engine floor'].history.events}, ${fmt(costs['engine floor'].cpuMsPerRun.machine, 0)})`,
      '',
    );
  }
  const h = r.history?.['200'];
  if (h) add('history of a 200-step run', `${fmt(h['this project']!.bytes / 1024, 0)} KiB`, 'linear in steps');
  if (r.approvalLatencyMs) {
    add(
      'approval: signal to tool started, p50 / p99',
      `${fmt(r.approvalLatencyMs.median, 0)} / ${fmt(r.approvalLatencyMs.p99, 0)} ms`,
      '',
    );
  }
  const waiting = r.waitingRuns?.variants[0]?.checkpoints;
  if (waiting) {
    const idle = waiting[0]!.rssMiB;
    const last = waiting.at(-1)!;
    add('worker RSS at idle', `${fmt(idle, 0)} MiB`, 'at most 300 MiB');
    const cached = last.cachedWorkflows < last.waiting ? ` (${last.cachedWorkflows} in the cache)` : '';
    add(
      `worker RSS with ${last.waiting} runs waiting${cached}, over idle`,
      `${fmt(last.rssMiB - idle, 0)} MiB`,
      'at most 300 MiB at 10,000',
    );
  }
  const many = large?.waitingRuns?.variants[0]?.checkpoints;
  if (many && many.length > 1) {
    const last = many.at(-1)!;
    add(
      `worker RSS with ${last.waiting.toLocaleString('en')} runs waiting, over idle ` +
        `(\`--full\`, ${large!.date.slice(0, 10)})`,
      `${fmt(last.rssMiB - many[0]!.rssMiB, 0)} MiB`,
      'at most 300 MiB',
    );
  }
  const ctl = r.agentctlStartToExitMs;
  if (ctl?.runsList && ctl.approve) {
    add(
      '`agentctl runs list` / `approve`, start to exit',
      `${fmt(ctl.runsList.median, 0)} / ${fmt(ctl.approve.median, 0)} ms`,
      'at most 300 ms',
    );
  }
  const sse = r.streamLatencyHttpMs?.['50']?.total;
  if (sse) add('a streamed delta to 50 SSE subscribers, p50', `${fmt(sse.median, 0)} ms`, '');
  const m = r.machine;
  const machine = [
    m.cpuModel,
    `${m.cpus} cores`,
    m.memoryGiB ? `${fmt(m.memoryGiB, 0)} GiB` : undefined,
    `Node ${m.node}`,
  ];
  return [
    `\`npm run bench\` (${r.mode}) on ${r.date.slice(0, 10)}, ${machine.filter(Boolean).join(', ')}:`,
    '',
    '| figure | measured | goal |',
    '|---|---|---|',
    ...rows,
  ];
}

/** Rewrites the README's summary from a whole run's results. */
export async function writeReadmeSummary(results: SummaryInput, readme = 'README.md'): Promise<void> {
  const text = await readFile(readme, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${readme} has no ${START} ... ${END} block to write the summary in`);
  const largeFile = 'bench/results/waiting-10000.json';
  const large = existsSync(largeFile) ? (JSON.parse(await readFile(largeFile, 'utf8')) as SummaryInput) : undefined;
  const block = [START, ...summaryLines(results, large), END].join('\n');
  const written = text.slice(0, start) + block + text.slice(end + END.length);
  // Formatted as the repository's check wants it (the table's columns padded).
  const options = (await resolveConfig(readme)) ?? {};
  await writeFile(readme, await format(written, { ...options, filepath: readme }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2] ?? 'bench/results/quick.json';
  await writeReadmeSummary(JSON.parse(await readFile(file, 'utf8')) as SummaryInput);
}
