/**
 * `npm run bench:threads` (quick) and `npm run bench:threads -- --full`: the cost of one turn on a thread
 * of 10, 100 and 1,000 earlier messages, for agents that show their model the last 10 and the last 1,000
 * of them. Against a dev server of its own, with the scripted model. Prints a markdown table and writes
 * bench/results/threads-<quick|full>.{json,md}. bench/README.md explains each figure.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { defineAgent, type Message } from '../src/index.js';
import { createWorker } from '../src/worker/index.js';
import { AgentClient } from '../src/client/index.js';
import { threadWorkflowId } from '../src/schemas/thread.js';
import { threadTurnsQuery } from '../src/protocol/thread-messages.js';
import { startDevServer } from './dev-server.js';
import { fmt, summarize, type Summary } from './stats.js';

const full = process.argv.includes('--full');
const mode = full ? 'full' : 'quick';
const P = {
  /** Earlier messages on a thread when its first measured turn begins. */
  sizes: [10, 100, 1000],
  /** The `memory.lastMessages` of the two agents measured. */
  lastMessages: [10, 1000],
  /** Measured turns for each (size, lastMessages). */
  turns: full ? 20 : 3,
  /**
   * Messages of each turn that fills a thread: a question and its answer (a chat), or in the quick mode
   * a run that brings four earlier questions and answers with its question (five times fewer runs).
   */
  fillTurnMessages: full ? 2 : 10,
  /** Runs that fill the threads at once (Temporal takes at most 10 updates in flight on a workflow). */
  fillConcurrency: 8,
  /** Characters of each prompt and each answer: a thread of 1,000 messages fits the 256 KiB a run is shown. */
  promptChars: 100,
  answerChars: 150,
};

Runtime.install({ logger: new DefaultLogger('WARN') });
// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const lines: string[] = [];
const say = (line = ''): void => {
  lines.push(line);
  console.log(line);
};

const FILLER = 'The quick brown fox jumps over the lazy dog, and the durable agent keeps the thread in Temporal. ';
const sentence = (label: string, chars: number): string =>
  `${label} ${FILLER.repeat(Math.ceil(chars / FILLER.length))}`.slice(0, chars);
const prompt = (i: number): string => sentence(`Question ${i}:`, P.promptChars);
const answer = (i: number): string => sentence(`Answer ${i}:`, P.answerChars);

const agentId = (lastMessages: number): string => `bench-thread-lm${lastMessages}`;
const agents = P.lastMessages.map((lastMessages) =>
  defineAgent({
    id: agentId(lastMessages),
    name: `Thread bench (lastMessages ${lastMessages})`,
    instructions: 'Answer the question.',
    model: 'scripted',
    memory: { lastMessages },
  }),
);

/** Bytes of history events as the server sends them (each framed as in a `History`). */
const eventBytes = (events: HistoryEvent[]): number =>
  events.reduce((n, e) => n + temporal.api.history.v1.History.encode({ events: [e] }).finish().length, 0);

/** What each kind of event of the thread workflow adds. */
function kindOf(type: proto.temporal.api.enums.v1.EventType | null | undefined): string {
  switch (type) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ADMITTED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
      return 'beginTurn update';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
      return 'recordTurn signal';
    case EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
      return 'memo';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
      return 'continue-as-new';
    default:
      return 'workflow tasks';
  }
}
const KINDS = ['beginTurn update', 'memo', 'recordTurn signal', 'workflow tasks', 'continue-as-new'];

/** What each kind of event of the run's workflow adds. */
function runKindOf(e: HistoryEvent, completedActivity: string | null | undefined): string {
  if (completedActivity === 'beginThreadTurn') return 'beginThreadTurn answer';
  if (completedActivity === 'callModel') return 'model call result';
  if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') return 'model call input';
  if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) return 'run input';
  if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) return 'run result';
  // generate() waits on the run's nextPause update: its answer is the run's result too.
  if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) return 'nextPause answer';
  return 'other';
}
const RUN_KINDS = ['beginThreadTurn answer', 'model call input', 'model call result', 'run input', 'run result'];
RUN_KINDS.push('nextPause answer', 'other');

/** Runs the jobs, `concurrency` at a time. */
async function pool(jobs: Array<() => Promise<unknown>>, concurrency: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

interface Thread {
  size: number;
  threadId: string;
  resourceId: string;
  /** Messages the thread keeps now. */
  messages: number;
  /** Prompts asked on it so far (each turn asks the next). */
  asked: number;
}

interface TurnFigures {
  size: number;
  lastMessages: number;
  earlierMessages: number;
  shownMessages: number;
  wallMs: number;
  runHistoryBytes: number;
  runHistoryEvents: number;
  runHistoryByKind: Record<string, number>;
  beginTurnAnswerBytes: number;
  threadAddedBytes: number;
  threadAddedByKind: Record<string, number>;
  threadContinuedAsNew: number;
}

const server = await startDevServer();
const taskQueue = `bench-threads-${randomUUID().slice(0, 8)}`;
const worker = await createWorker({
  agents,
  address: server.address,
  namespace: 'default',
  taskQueue,
  enableScriptedModel: true,
});
const running = worker.run();
const client = await AgentClient.connect({ address: server.address, namespace: 'default', taskQueue });
// A page of a thread workflow's history can pass grpc-js's default 4 MiB: the SDK's own higher limit is
// set under a key grpc-js does not read (`max_receive_message_length`, not `grpc.max_...`).
const connection = await Connection.connect({
  address: server.address,
  channelArgs: { 'grpc.max_receive_message_length': 128 * 2 ** 20 },
});
const { workflow } = new Client({ connection });

/**
 * One turn: a run on the thread that asks the next question and gets its answer. With `pasted` pairs,
 * the run starts with that many earlier questions and answers before its own question, as a caller
 * that brings a conversation of its own: its turn then holds 2 * pasted + 2 messages.
 */
async function turn(thread: Thread, lastMessages: number, pasted = 0): Promise<{ runId: string; wallMs: number }> {
  const messages: Message[] = [];
  for (let k = 0; k < pasted; k++) {
    const i = thread.asked++;
    messages.push({ role: 'user', content: prompt(i) });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: answer(i) }] });
  }
  const i = thread.asked++;
  messages.push({ role: 'user', content: prompt(i) });
  const t = performance.now();
  const { runId, finishReason } = await client.generate(agentId(lastMessages), messages, {
    threadId: thread.threadId,
    resourceId: thread.resourceId,
    // The scripted model plays step N for a prompt with N assistant messages past the thread's: the
    // brought answers take the first steps.
    script: [...messages.filter((m) => m.role === 'assistant').map(() => ({ text: '' })), { text: answer(i) }],
  });
  const wallMs = performance.now() - t;
  if (finishReason !== 'stop') throw new Error(`Run ${runId} ended with ${finishReason}, not stop`);
  thread.messages += messages.length + 1;
  return { runId, wallMs };
}

/** The thread workflow's current run once it has handled every event it took: no workflow task pending. */
async function settled(workflowId: string): Promise<{ runId: string; events: number }> {
  for (;;) {
    const described = await workflow.getHandle(workflowId).describe();
    if (!described.raw.pendingWorkflowTask) {
      const history = await workflow.getHandle(workflowId, described.runId).fetchHistory();
      return { runId: described.runId, events: history.events?.length ?? 0 };
    }
    await sleep(10);
  }
}

/** The events the thread workflow took since `before`, across the runs it continued as new into. */
async function threadEventsSince(workflowId: string, before: { runId: string; events: number }) {
  await settled(workflowId);
  const events: HistoryEvent[] = [];
  let runId = before.runId;
  let from = before.events;
  let continued = 0;
  for (;;) {
    const history = await workflow.getHandle(workflowId, runId).fetchHistory();
    const all = history.events ?? [];
    events.push(...all.slice(from));
    const last = all[all.length - 1];
    const next = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (last?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW || !next) break;
    continued++;
    runId = next;
    from = 0;
  }
  return { events, continued };
}

/** The run's history, and the answer its beginThreadTurn activity recorded (bytes, messages shown). */
async function runFigures(runId: string) {
  const history = await workflow.getHandle(runId).fetchHistory();
  const events = history.events ?? [];
  if (events[events.length - 1]?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
    throw new Error(`Run ${runId} did not complete in one workflow run: its history would be partial`);
  }
  const scheduled = events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'beginThreadTurn',
  );
  const completed = events.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
      Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId),
  );
  const payload = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
  if (!payload?.data) throw new Error(`Run ${runId} has no beginThreadTurn answer in its history`);
  const began = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { history: unknown[] };
  const activities = new Map(
    events.map((e) => [Number(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name]),
  );
  const byKind = Object.fromEntries(RUN_KINDS.map((k) => [k, 0]));
  for (const e of events) {
    const scheduledId = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    const kind = runKindOf(e, scheduledId === undefined ? undefined : activities.get(Number(scheduledId)));
    byKind[kind]! += eventBytes([e]);
  }
  return {
    bytes: eventBytes(events),
    events: events.length,
    byKind,
    answerBytes: payload.data.length,
    shown: began.history.length,
  };
}

async function measuredTurn(thread: Thread, lastMessages: number): Promise<TurnFigures> {
  const workflowId = threadWorkflowId(thread.resourceId, thread.threadId);
  const before = await settled(workflowId);
  const earlierMessages = thread.messages;
  const { runId, wallMs } = await turn(thread, lastMessages);
  const run = await runFigures(runId);
  const added = await threadEventsSince(workflowId, before);
  const threadAddedByKind = Object.fromEntries(KINDS.map((k) => [k, 0]));
  for (const e of added.events) threadAddedByKind[kindOf(e.eventType)]! += eventBytes([e]);
  return {
    size: thread.size,
    lastMessages,
    earlierMessages,
    shownMessages: run.shown,
    wallMs,
    runHistoryBytes: run.bytes,
    runHistoryEvents: run.events,
    runHistoryByKind: run.byKind,
    beginTurnAnswerBytes: run.answerBytes,
    threadAddedBytes: eventBytes(added.events),
    threadAddedByKind,
    threadContinuedAsNew: added.continued,
  };
}

/**
 * Measured turns add their own messages. A thread takes at most size / 40 pairs of measured turns (one
 * of each agent; one pair at least), so it grows by at most a tenth of its size, then another thread of
 * the same size takes the next pairs.
 */
const pairsPerThread = (size: number): number => Math.max(1, Math.floor(size / 40));

const resourceId = `bench-threads-${randomUUID().slice(0, 8)}`;
const threads: Thread[] = P.sizes.flatMap((size) =>
  Array.from({ length: Math.ceil(P.turns / pairsPerThread(size)) }, (_, k) => ({
    size,
    threadId: `size-${size}-${k}`,
    resourceId,
    messages: 0,
    asked: 0,
  })),
);

const started = performance.now();
const turns: TurnFigures[] = [];
const fill: Record<string, unknown> = {};
const carried: Record<number, { messages: number; turnsJsonBytes: number; messageJsonBytes: number }> = {};
try {
  say(`# Thread turns (${mode}), ${new Date().toISOString()}`);
  say('');
  // Filling: every earlier message comes from a real run on the thread, through the same path as a
  // measured turn (beginThreadTurn's update, the model activity, the recordTurn signal).
  const perRun = Math.min(P.fillTurnMessages, ...P.sizes);
  const fillRuns = threads.reduce((n, t) => n + t.size / perRun, 0);
  const fillStart = performance.now();
  const pasted = perRun / 2 - 1;
  await pool(
    threads.flatMap((thread) => Array.from({ length: thread.size / perRun }, () => () => turn(thread, 10, pasted))),
    P.fillConcurrency,
  );
  const fillSeconds = (performance.now() - fillStart) / 1000;
  for (const thread of threads) {
    // The last turn's signal is in; the memo changes once the thread has handled it.
    await settled(threadWorkflowId(thread.resourceId, thread.threadId));
    const read = await client.getThreadMessages(thread);
    const kept = read.messages.length + read.omittedMessages;
    if (kept !== thread.size) throw new Error(`Thread ${thread.threadId} keeps ${kept} messages, not ${thread.size}`);
  }
  Object.assign(fill, { threads: threads.length, runs: fillRuns, seconds: fillSeconds });
  say(
    `Machine: ${cpus().length} cores, Node ${process.version}; one dev server (SQLite), the scripted model with ` +
      `no latency. Filled ${threads.length} threads (${P.sizes.join(', ')} messages) with ${fillRuns} runs, ` +
      `${P.fillConcurrency} at a time, in ${fmt(fillSeconds, 0)} s (${fmt(fillRuns / fillSeconds, 1)} runs/s). ` +
      `Each filling run added ${perRun} messages to its thread` +
      (pasted ? ` (${pasted} earlier questions and answers it brought, its question and its answer). ` : '. ') +
      `A measured turn is one run: a ${P.promptChars}-character question and a ${P.answerChars}-character answer.`,
  );
  say('');

  // Interleaved: sizes round-robin, the two agents alternating first, so noise falls on all alike.
  const queues = new Map(P.sizes.map((size) => [size, threads.filter((t) => t.size === size)]));
  for (let pair = 0; pair < P.turns; pair++) {
    for (const size of P.sizes) {
      const list = queues.get(size)!;
      const thread = list[Math.floor(pair / pairsPerThread(size))]!;
      const order = pair % 2 === 0 ? P.lastMessages : [...P.lastMessages].reverse();
      for (const lastMessages of order) turns.push(await measuredTurn(thread, lastMessages));
    }
  }
  // What a thread carries when it continues as new (every 200 changes, two a turn): all that it keeps.
  for (const size of P.sizes) {
    const thread = threads.find((t) => t.size === size)!;
    const kept = await workflow.getHandle(threadWorkflowId(resourceId, thread.threadId)).query(threadTurnsQuery);
    const messages = kept.flatMap((t) => t.messages);
    carried[size] = {
      messages: messages.length,
      turnsJsonBytes: Buffer.byteLength(JSON.stringify(kept)),
      messageJsonBytes: Buffer.byteLength(JSON.stringify(messages)) / messages.length,
    };
  }
} finally {
  worker.worker.shutdown();
  await running;
  await client.close();
  await connection.close();
  await server.stop();
}

const kib = (bytes: number, digits = 1): string => fmt(bytes / 1024, digits);
const cell = (s: Summary, f: (x: number) => string): string => `${f(s.median)} / ${f(s.p95)}`;
const summary: Record<string, Record<string, Record<string, Summary>>> = {};
say(`## Cost of one turn (median / p95 over ${P.turns} turns each)`);
say('');
const columns = ['earlier messages', 'lastMessages', 'shown to the model', 'wall ms', 'run history KiB'];
columns.push('thread history added KiB', 'beginThreadTurn answer KiB');
say(`| ${columns.join(' | ')} |`);
say('|---|---|---|---|---|---|---|');
for (const size of P.sizes) {
  summary[size] = {};
  for (const lastMessages of P.lastMessages) {
    const mine = turns.filter((t) => t.size === size && t.lastMessages === lastMessages);
    const of = (f: (t: TurnFigures) => number): Summary => summarize(mine.map(f));
    const s: Record<string, Summary> = {
      earlierMessages: of((t) => t.earlierMessages),
      shownMessages: of((t) => t.shownMessages),
      wallMs: of((t) => t.wallMs),
      runHistoryBytes: of((t) => t.runHistoryBytes),
      threadAddedBytes: of((t) => t.threadAddedBytes),
      beginTurnAnswerBytes: of((t) => t.beginTurnAnswerBytes),
      ...Object.fromEntries(KINDS.map((k) => [`threadAdded:${k}`, of((t) => t.threadAddedByKind[k]!)])),
      ...Object.fromEntries(RUN_KINDS.map((k) => [`run:${k}`, of((t) => t.runHistoryByKind[k]!)])),
    };
    summary[size][lastMessages] = s;
    const earlier = `${s.earlierMessages!.min}-${s.earlierMessages!.max}`;
    const shown = `${s.shownMessages!.min}-${s.shownMessages!.max}`;
    const cells = [earlier, lastMessages, shown, cell(s.wallMs!, (x) => fmt(x, 0))];
    cells.push(cell(s.runHistoryBytes!, kib), cell(s.threadAddedBytes!, kib), cell(s.beginTurnAnswerBytes!, kib));
    say(`| ${cells.join(' | ')} |`);
  }
}
say('');
say("## The run's history, by kind of event (KiB, median)");
say('');
say(`| earlier messages | lastMessages | ${RUN_KINDS.join(' | ')} |`);
say(`|---|---|${RUN_KINDS.map(() => '---').join('|')}|`);
for (const size of P.sizes) {
  for (const lastMessages of P.lastMessages) {
    const s = summary[size]![lastMessages]!;
    say(`| ${[size, lastMessages, ...RUN_KINDS.map((k) => kib(s[`run:${k}`]!.median))].join(' | ')} |`);
  }
}
say('');
say('## What a turn adds to the thread workflow, by kind of event (KiB)');
say('');
say('Medians, but for continuing as new, which one turn in many pays: its mean is what it costs a turn.');
say('');
const steady = KINDS.filter((k) => k !== 'continue-as-new');
const threadColumns = ['earlier messages', 'lastMessages', ...steady, 'continue-as-new, mean', 'all, mean'];
say(`| ${threadColumns.join(' | ')} | turns that continued |`);
say(`|---|---|${steady.map(() => '---').join('|')}|---|---|---|`);
const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
for (const size of P.sizes) {
  for (const lastMessages of P.lastMessages) {
    const s = summary[size]![lastMessages]!;
    const mine = turns.filter((t) => t.size === size && t.lastMessages === lastMessages);
    const cells = [size, lastMessages, ...steady.map((k) => kib(s[`threadAdded:${k}`]!.median))];
    cells.push(kib(mean(mine.map((t) => t.threadAddedByKind['continue-as-new']!))));
    cells.push(kib(mean(mine.map((t) => t.threadAddedBytes))), mine.filter((t) => t.threadContinuedAsNew).length);
    say(`| ${cells.join(' | ')} |`);
  }
}
say('');
say('## What a thread carries into its next run when it continues as new (after 100 turns, or when Temporal suggests)');
say('');
say('| thread (first measured turn) | messages kept | JSON of its turns, KiB | JSON bytes per message |');
say('|---|---|---|---|');
for (const size of P.sizes) {
  const c = carried[size]!;
  say(`| ${size} | ${c.messages} | ${kib(c.turnsJsonBytes)} | ${fmt(c.messageJsonBytes, 0)} |`);
}
say('');
say(`Total time: ${fmt((performance.now() - started) / 1000, 0)} s`);

const results = {
  mode,
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, node: process.version },
  params: P,
  fill,
  carried,
  summary,
  turns,
};
await mkdir('bench/results', { recursive: true });
await writeFile(`bench/results/threads-${mode}.json`, JSON.stringify(results, null, 2) + '\n');
await writeFile(`bench/results/threads-${mode}.md`, lines.join('\n') + '\n');
