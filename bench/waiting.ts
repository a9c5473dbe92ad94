/**
 * Item 3 of issue #15: runs waiting for approval on one worker process. For each cache setting: the
 * worker's memory idle and at a quarter, half and all of the runs waiting; approval latency of runs
 * still in the worker's cache and of runs it evicted (their next task replays the history); then
 * every run approved at once, the time until the last completes, and that none was lost.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/worker/index.js';
import { AgentClient } from '../src/client/index.js';
import { lineChart } from './chart.js';
import { fmt, row, summarize, type Summary } from './stats.js';
import { startWorkerProcess, type WorkerProcess } from './worker-pool.js';
import type { WorkerStats } from './worker-process.js';
import { listTimings, type ListTimings } from './waiting-lists.js';

const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const MiB = 2 ** 20;
const script = [{ toolCalls: [{ toolName: 'guarded', args: { i: 1 } }] }, { text: 'done' }];

export interface Say {
  (line?: string): void;
}

function eventMs(e: HistoryEvent): number {
  const t = e.eventTime!;
  return Number(t.seconds) * 1000 + (t.nanos ?? 0) / 1e6;
}

/**
 * From a completed run's history: approve signal accepted -> tool activity started (server times),
 * and how long the worker took over the workflow task the signal caused (started -> completed): for
 * a run out of the cache, that task replays the history.
 */
export function approvalTimes(events: HistoryEvent[]): { latencyMs: number; taskMs: number } {
  const at = events.findIndex(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
      e.workflowExecutionSignaledEventAttributes?.signalName === 'approveToolCall',
  );
  const scheduled = events.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool',
  );
  const started = events.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
      Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId),
  );
  const after = events.slice(at);
  const taskStarted = after.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const taskCompleted = after.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  return {
    latencyMs: eventMs(started!) - eventMs(events[at]!),
    taskMs: eventMs(taskCompleted!) - eventMs(taskStarted!),
  };
}

interface Checkpoint {
  waiting: number;
  rssMiB: number;
  /** After a full garbage collection: the RSS, the heap V8 holds, what lives in it, and outside it. */
  rssAfterGcMiB: number;
  heapTotalAfterGcMiB: number;
  heapUsedAfterGcMiB: number;
  externalAfterGcMiB: number;
  cachedWorkflows: number;
}

interface VariantResult {
  label: string;
  maxCachedWorkflows: number | 'sdk';
  checkpoints: Checkpoint[];
  approvals: Record<'cached' | 'evicted', { latencyMs: Summary; workflowTaskMs: Summary }>;
  approveAll: { runs: number; seconds: number; completed: number; lost: number };
  rssPerWaitingRunMiB: number;
  lists?: ListTimings;
}

/**
 * Above this many runs only createWorker's default cache is measured: the SDK's keeps every run (about
 * 4 GB at 10,000, at the rate measured at 1,000).
 */
const SDK_CACHE_UP_TO = 1000;

async function checkpoint(worker: WorkerProcess, waiting: number): Promise<Checkpoint> {
  const raw: WorkerStats = await worker.stats();
  const collected = await worker.stats(true);
  return {
    waiting,
    rssMiB: raw.rss / MiB,
    rssAfterGcMiB: collected.rss / MiB,
    heapTotalAfterGcMiB: collected.heapTotal / MiB,
    heapUsedAfterGcMiB: collected.heapUsed / MiB,
    externalAfterGcMiB: collected.external / MiB,
    cachedWorkflows: raw.cachedWorkflows,
  };
}

async function variant(
  address: string,
  temporalClient: Client,
  runs: number,
  samples: number,
  maxCached: number | 'sdk' | undefined,
  withLists: boolean,
): Promise<VariantResult> {
  const taskQueue = `bench-waiting-${randomUUID().slice(0, 8)}`;
  // The bundle as createWorker gets it unless given one: from its cache (built in a child process once).
  const worker = await startWorkerProcess({ address, taskQueue, kind: 'agent', maxCached });
  const client = await AgentClient.connect({ address, namespace: 'default', taskQueue });
  try {
    const checkpoints = [await checkpoint(worker, 0)];
    const marks = new Set([runs / 4, runs / 2, runs].map(Math.round));
    const ids: string[] = [];
    while (ids.length < runs) {
      const n = Math.min(50, runs - ids.length, [...marks].find((m) => m > ids.length)! - ids.length);
      const batch = await Promise.all(
        Array.from({ length: n }, () => client.generate('bench-agent', 'go', { model: 'scripted', script })),
      );
      ids.push(...batch.map((r) => r.runId));
      if (marks.has(ids.length)) {
        checkpoints.push(await checkpoint(worker, ids.length));
        // Progress on stderr: a long run shows its figures as they come.
        console.error(`waiting (${maxCached ?? 'default'}): ${JSON.stringify(checkpoints.at(-1))}`);
      }
    }
    // What an operator and the inbox read over every run waiting, before any is approved.
    const lists = withLists ? await listTimings(address, client, ids, 5) : undefined;
    const cachedNow = checkpoints.at(-1)!.cachedWorkflows;
    // The cache keeps the runs used last: the newest are in it, the oldest were evicted (if any were).
    // Sampled one after the other, alternately from each end, so that neither waits on the other.
    const newest = ids.slice(-Math.min(samples, Math.floor(cachedNow / 2)));
    const oldest = cachedNow < runs - samples ? ids.slice(0, samples) : [];
    const times: Record<'cached' | 'evicted', Array<{ latencyMs: number; taskMs: number }>> = {
      cached: [],
      evicted: [],
    };
    for (let i = 0; i < Math.max(newest.length, oldest.length); i++) {
      for (const [kind, runId] of [
        ['cached', newest[i]],
        ['evicted', oldest[i]],
      ] as const) {
        if (!runId) continue;
        await client.approveToolCallGenerate({ runId });
        const history = await temporalClient.workflow.getHandle(runId).fetchHistory();
        times[kind].push(approvalTimes(history.events ?? []));
      }
    }
    const sampled = new Set([...newest, ...oldest]);
    const rest = ids.filter((id) => !sampled.has(id));
    // Every decision sent (50 in flight; memo read and signal, as sendDecision does), then the time
    // until the last run completes.
    const t = performance.now();
    for (const chunk of chunks(rest, 50)) {
      await Promise.all(chunk.map((runId) => client.sendDecision('approve', { runId })));
    }
    const results = [];
    for (const chunk of chunks(rest, 50)) results.push(...(await Promise.all(chunk.map((id) => client.result(id)))));
    const seconds = (performance.now() - t) / 1000;
    const completed = results.filter((r) => r.finishReason === 'stop' && r.text === 'done').length;
    const full = checkpoints.at(-1)!;
    const summaries = (values: Array<{ latencyMs: number; taskMs: number }>) => ({
      latencyMs: summarize(values.map((v) => v.latencyMs)),
      workflowTaskMs: summarize(values.map((v) => v.taskMs)),
    });
    return {
      label: maxCached === 'sdk' ? 'SDK default' : maxCached === undefined ? 'createWorker default' : `${maxCached}`,
      maxCachedWorkflows: maxCached ?? DEFAULT_MAX_CACHED_WORKFLOWS,
      checkpoints,
      approvals: { cached: summaries(times.cached), evicted: summaries(times.evicted) },
      approveAll: { runs: rest.length, seconds, completed, lost: rest.length - completed },
      rssPerWaitingRunMiB: (full.rssMiB - checkpoints[0]!.rssMiB) / runs,
      ...(lists ? { lists } : {}),
    };
  } finally {
    await client.close();
    await worker.stop();
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs the section; returns its figures for the JSON. */
export async function waitingRuns(
  address: string,
  temporalClient: Client,
  say: Say,
  options: { runs: number; samples: number; chart: string },
): Promise<unknown> {
  const { runs, samples } = options;
  const variants: VariantResult[] = [];
  for (const maxCached of runs > SDK_CACHE_UP_TO ? [undefined] : ([undefined, 'sdk'] as const)) {
    variants.push(await variant(address, temporalClient, runs, samples, maxCached, maxCached === undefined));
  }
  const ours = variants[0]!;
  say(`## ${runs} runs waiting for approval on one worker process`);
  say('');
  for (const v of variants) {
    const cache = v.maxCachedWorkflows === 'sdk' ? "the SDK's, sized by the heap" : v.maxCachedWorkflows;
    say(`${v.label} (maxCachedWorkflows: ${cache}), MiB:`);
    say('');
    say('| runs waiting | RSS | after a full GC: RSS | V8 heap held | heap used | external | runs in the cache |');
    say('|---|---|---|---|---|---|---|');
    for (const p of v.checkpoints) {
      const cells = [p.rssMiB, p.rssAfterGcMiB, p.heapTotalAfterGcMiB, p.heapUsedAfterGcMiB, p.externalAfterGcMiB];
      say(row([p.waiting === 0 ? '0 (idle)' : p.waiting, ...cells.map((c) => fmt(c, 0)), p.cachedWorkflows]));
    }
    say('');
  }
  for (const v of variants) {
    const idle = v.checkpoints[0]!.rssMiB;
    const top = v.checkpoints.at(-1)!.rssMiB;
    say(
      `- ${v.label}: ${fmt(top - idle, 0)} MiB over idle at ${runs} waiting ` +
        `(${fmt(v.rssPerWaitingRunMiB, 2)} MiB a run; goal: idle + 300 MiB)`,
    );
  }
  say('');
  say('Approval latency, approve signal accepted -> tool activity started, and the worker task the signal caused');
  say('(server times; ms, p50 / p99 (max)), approvals one after the other:');
  say('');
  say('| worker | runs in the cache: latency | its task | runs evicted: latency | its task (replay) |');
  say('|---|---|---|---|---|');
  for (const v of variants) {
    const cell = (s: Summary) =>
      s.n > 0 ? `${fmt(s.median, 1)} / ${fmt(s.p99, 1)} (${fmt(s.max, 0)}), n=${s.n}` : '-';
    const { cached, evicted } = v.approvals;
    say(
      row([
        v.label,
        cell(cached.latencyMs),
        cell(cached.workflowTaskMs),
        cell(evicted.latencyMs),
        cell(evicted.workflowTaskMs),
      ]),
    );
  }
  say('');
  for (const v of variants) {
    const a = v.approveAll;
    say(
      `- ${v.label}: the other ${a.runs} approved at once (50 signals in flight): the last completed after ` +
        `${fmt(a.seconds, 1)} s (${fmt(a.runs / a.seconds, 1)} runs/s); ${a.completed} completed, ${a.lost} lost`,
    );
  }
  say('');
  if (runs > SDK_CACHE_UP_TO) say(`(The SDK's default cache keeps every run: measured up to ${SDK_CACHE_UP_TO} runs.)`);
  const lists = ours.lists;
  if (lists) {
    const cell = (x: Summary) => `${fmt(x.median, 0)} / ${fmt(x.p95, 0)} (${fmt(x.min, 0)}-${fmt(x.max, 0)})`;
    say('');
    say(`Lists over ${runs} waiting runs, visibility only (ms, median / p95 (min-max), ${lists.agentctlList.n} each):`);
    say('');
    say('| list | time |');
    say('|---|---|');
    say(row(['`agentctl runs list --status suspended` (50 runs), start to exit', cell(lists.agentctlList)]));
    say(row(['`agentctl runs list --status suspended --page-size 1000 --json`', cell(lists.agentctlPage1000)]));
    say(row([`the inbox's first page, \`GET /inbox/calls\` (${lists.inboxCalls} calls)`, cell(lists.inboxFirstPage)]));
    const w = lists.walk;
    say(
      row([
        `every waiting run, \`listRunsPage\` a page of 1,000 at a time (${w.pages} pages)`,
        `${fmt(w.ms, 0)} in all; found ${w.unique} of ${runs}`,
      ]),
    );
    say('');
  }
  const rows = variants.flatMap((v) =>
    v.checkpoints.map((c) => ({ x: c.waiting, y: c.rssMiB, series: `worker RSS, ${v.label}` })),
  );
  rows.push(...ours.checkpoints.map((c) => ({ x: c.waiting, y: ours.checkpoints[0]!.rssMiB + 300, series: 'goal' })));
  await lineChart(options.chart, 'Worker memory with runs waiting for approval', rows, {
    x: 'runs waiting',
    y: 'MiB',
  });
  say(`![waiting-run memory](${options.chart.replace('bench/', '')})`);
  say('');
  return { runs, variants };
}
