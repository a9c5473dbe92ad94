/**
 * One thread, as one long-lived Temporal workflow (id: `threadWorkflowId(resourceId, threadId)`): the
 * turns of the runs started on it, in the order they began, each run's messages kept together. Runs
 * begin their turn through an update (and get the earlier messages), and record their messages with a
 * signal when they pause and when they end. The memo shows the most recent messages to any process,
 * with no worker up. Bounded; it continues as new before its history grows long.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  makeContinueAsNewFunc,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { safeParse } from '../../schemas/json.js';
import { clip } from '../../schemas/limits.js';
import {
  BeginTurnSchema,
  MAX_HISTORY_BYTES,
  MAX_THREAD_BYTES,
  MAX_THREAD_MESSAGES,
  MEMO_MESSAGE_BYTES,
  MEMO_MESSAGES,
  MEMO_PARTICIPANTS,
  RecordTurnSchema,
  THREAD_MEMO_KEY,
  ThreadInputSchema,
  type BeginTurn,
  type RecordTurn,
  type ThreadInput,
  type TurnWriter,
  type ThreadMemo,
  type ThreadTurn,
} from '../../schemas/thread.js';
import type { Task, TaskChange, TaskList } from '../../schemas/tasks.js';
import { boundTurns, historyForModel, recentPage } from './thread-history.js';
import {
  beginTurnUpdate,
  changeTasksUpdate,
  recordTurnSignal,
  threadTasksQuery,
  threadTurnsQuery,
  type BeganTurn,
} from '../../protocol/thread-messages.js';
import { refusedUpdate } from '../../protocol/run-messages.js';
import { shownIn } from './thread-history.js';
import { changeTasks } from './thread-tasks.js';
import { admissionFailure, replayedKeyless, ThreadWriters, whenAdmitted, writeRefused } from './thread-writers.js';
import { ThreadWorkingMemory } from './working-memory.js';

/** Changes a thread takes before it continues as new, whatever Temporal suggests (each records the memo). */
const CONTINUE_AS_NEW_EVERY = 200;

/** The distinct (agent, starter) pairs of the turns; past the bound, a pair without a starter stands for the rest. */
function participants(turns: ThreadTurn[]): ThreadMemo['participants'] {
  const pairs = new Map<string, ThreadMemo['participants'][number]>();
  for (const { agentId, startedBy } of turns) {
    const key = JSON.stringify([agentId, startedBy ?? null]);
    if (!pairs.has(key)) pairs.set(key, { agentId, ...(startedBy ? { startedBy } : {}) });
  }
  const all = [...pairs.values()];
  if (all.length <= MEMO_PARTICIPANTS) return all;
  // Too many to list: only the agents' own read rules decide, as for a run whose starter is unknown.
  return [...new Set(all.map((p) => p.agentId))].slice(0, MEMO_PARTICIPANTS).map((agentId) => ({ agentId }));
}

export async function agentThread(rawInput: ThreadInput): Promise<void> {
  const parsed = safeParse(ThreadInputSchema, rawInput);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`Invalid thread input: ${parsed.error}`, 'InvalidInput');
  const input = parsed.data;
  const createdAt = input.createdAt ?? new Date().toISOString();
  let turns: ThreadTurn[] = input.turns ?? [];
  let droppedTurns = input.droppedTurns ?? 0;
  let taskList: TaskList | undefined = input.taskList;
  let changes = 0;
  const workingMemory = new ThreadWorkingMemory(input.workingMemory);
  const writers = new ThreadWriters(workflowInfo().workflowId, input.threadId, input.writers);

  const changed = (): void => {
    const bounded = boundTurns(turns, MAX_THREAD_MESSAGES, MAX_THREAD_BYTES);
    turns = bounded.turns;
    droppedTurns += bounded.dropped;
    changes++;
    upsertMemo({ [THREAD_MEMO_KEY]: memo() });
  };

  const memo = (): ThreadMemo => {
    const all = turns.flatMap((t) => t.messages);
    const page = recentPage(all, MEMO_MESSAGES, MEMO_MESSAGE_BYTES);
    const last = turns[turns.length - 1];
    return {
      threadId: input.threadId,
      ...(input.resourceId ? { resourceId: input.resourceId } : {}),
      ...(input.owner ? { owner: input.owner } : {}),
      createdAt,
      updatedAt: new Date().toISOString(),
      messageCount: all.length,
      turnCount: turns.length,
      droppedTurns,
      agentIds: [...new Set(turns.map((t) => t.agentId))],
      participants: participants(turns),
      ...(last ? { lastRunId: last.runId } : {}),
      messages: page.messages,
      omittedMessages: page.omitted,
      ...shownIn(turns, page.messages),
      ...workingMemory.carried(),
      ...(taskList ? { taskList } : {}),
    };
  };

  const beganTurn = (request: BeginTurn): BeganTurn => {
    const { runId, agentId, startedBy, messages, lastMessages, ...asked } = request;
    // A retried activity asks again: the turn is there already, and the answer is the same.
    const at = turns.findIndex((t) => t.runId === runId);
    const before = at >= 0 ? turns.slice(0, at) : turns;
    const history = historyForModel(before, lastMessages, MAX_HISTORY_BYTES);
    if (at < 0) {
      const at = new Date().toISOString();
      turns.push({ runId, agentId, ...(startedBy ? { startedBy } : {}), status: 'running', messages, at });
      changed();
    }
    return {
      history,
      ...workingMemory.forTurn(asked.workingMemory),
      ...(taskList?.tasks.length ? { tasks: taskList.tasks } : {}),
    };
  };

  setHandler(
    beginTurnUpdate,
    (raw: BeginTurn, writer?: TurnWriter): BeganTurn | Promise<BeganTurn> => {
      const request = BeginTurnSchema.parse(raw);
      // Histories from before the keys began turns at once, with no question to the run.
      if (replayedKeyless(writer)) return beganTurn(request);
      return whenAdmitted(
        writers.admit(writer, request.runId),
        () => beganTurn(request),
        (refusal) => {
          throw admissionFailure('beginTurn', refusal);
        },
      );
    },
    {
      validator: (request: BeginTurn, writer?: TurnWriter) => {
        const checked = safeParse(BeginTurnSchema, request);
        if (!checked.success) throw refusedUpdate(`beginTurn refused: ${clip(String(checked.error), 300)}`);
        const refusal = writers.refusal(writer, checked.data.runId);
        if (refusal !== undefined) throw writeRefused(`beginTurn refused: ${refusal}`);
      },
    },
  );

  const recordTurn = ({ runId, agentId, status, messages, shown }: RecordTurn): void => {
    const turn = turns.find((t) => t.runId === runId);
    if (turn) {
      turn.status = status;
      turn.messages = messages;
      if (shown) turn.shown = shown;
      else delete turn.shown;
    } else {
      turns.push({ runId, agentId, status, messages, ...(shown ? { shown } : {}), at: new Date().toISOString() });
    }
    changed();
  };
  setHandler(recordTurnSignal, (raw: RecordTurn, writer?: TurnWriter) => {
    // A signal that does not fit is recorded in the history and changes nothing.
    const checked = safeParse(RecordTurnSchema, raw);
    if (!checked.success) return;
    const record = checked.data;
    if (replayedKeyless(writer)) return recordTurn(record);
    return whenAdmitted(
      writers.admit(writer, record.runId),
      () => {
        recordTurn(record);
        // The run's last record: its key is forgotten.
        if (record.status !== 'running' && record.status !== 'suspended') writers.end(record.runId);
      },
      (refusal) => log.warn(`thread: dropped a recordTurn: ${refusal.reason}`),
    );
  });

  setHandler(threadTurnsQuery, () => turns);
  workingMemory.serve(changed, writers);

  const applyTasks = (change: TaskChange): { tasks: Task[] } => {
    const outcome = changeTasks(taskList?.tasks ?? [], change);
    // The validator refused what did not apply then; the list may have changed while the run was asked.
    if (!outcome.ok) throw ApplicationFailure.nonRetryable(outcome.reason, 'TaskChangeRefused');
    taskList = { tasks: outcome.tasks, updatedAt: new Date().toISOString() };
    changed();
    return { tasks: taskList.tasks };
  };
  setHandler(
    changeTasksUpdate,
    (change: TaskChange, writer?: TurnWriter) => {
      if (replayedKeyless(writer)) return applyTasks(change);
      return whenAdmitted(
        writers.admit(writer),
        () => applyTasks(change),
        (refusal) => {
          throw admissionFailure('changeTasks', refusal);
        },
      );
    },
    {
      validator: (change: TaskChange, writer?: TurnWriter) => {
        const refusal = writers.refusal(writer);
        if (refusal !== undefined) throw writeRefused(`changeTasks refused: ${refusal}`);
        const outcome = changeTasks(taskList?.tasks ?? [], change);
        if (!outcome.ok) throw refusedUpdate(outcome.reason);
      },
    },
  );
  setHandler(threadTasksQuery, () => taskList);

  if (!input.turns) upsertMemo({ [THREAD_MEMO_KEY]: memo() });
  await condition(() => changes >= CONTINUE_AS_NEW_EVERY || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  const info = workflowInfo();
  const continueAsNew = makeContinueAsNewFunc<typeof agentThread>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  });
  return continueAsNew({
    ...input,
    createdAt,
    turns,
    droppedTurns,
    ...workingMemory.carried(),
    ...(taskList ? { taskList } : {}),
    // Replaces the keys it started with: those of turns that ended since are gone.
    writers: writers.carried(),
  });
}
