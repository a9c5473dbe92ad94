/**
 * Threads, read from Temporal itself: visibility lists the thread workflows of a resource, and each
 * thread's memo holds its most recent messages, so any process reads them with no worker up.
 */
import { withStoredPayloads } from './runs/stored-payloads.js';
import { WorkflowNotFoundError, type WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import { errorMessage, ThreadNotFoundError } from '../errors.js';
import { IdSchema } from '../schemas/limits.js';
import type { Message } from '../schemas/message.js';
import type { Task, TaskSummary } from '../schemas/tasks.js';
import {
  THREAD_MEMO_KEY,
  ThreadMemoSchema,
  threadWorkflowId,
  type ShownCalls,
  type ThreadMemo,
} from '../schemas/thread.js';
import { AgentResourceIdKey, AgentThreadIdKey } from '../protocol/search-attributes.js';
import { taskSummary } from '../workflows/thread/thread-tasks.js';
import { checkInput } from './checks.js';
import type { ClientContext } from './context.js';
import { queryValue } from './runs/visibility-query.js';

/** A thread, as {@link listThreads} finds it. */
export interface ThreadInfo {
  threadId: string;
  resourceId: string | undefined;
  /** When the first run on it began, and when a run last recorded its turn. */
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
  /** Messages and turns (runs) the thread keeps; turns dropped to keep it within its bounds. */
  messageCount: number;
  turnCount: number;
  droppedTurns: number;
  /** The agents whose runs took part, and the most recent run. */
  agentIds: string[];
  /**
   * The id of who started the run that began the thread, when known (threads from before owners have
   * none): a server with `threadPrivacy: 'user'` keeps the thread to them.
   */
  owner?: string;
  /** Each agent with who started its runs on the thread, when known (reading is checked against them). */
  participants: Array<{ agentId: string; startedBy?: string }>;
  lastRunId: string | undefined;
  /** Set when this process cannot read the thread's memo (a codec key it lacks): why. */
  unreadable?: string;
}

/** A thread's working memory (see the agent option `memory.workingMemory`). */
export interface WorkingMemory {
  threadId: string;
  resourceId: string | undefined;
  /** The memory's text, as the agent's `updateWorkingMemory` tool last stored it. */
  content: string;
  /** When it was stored, by which run of which agent. */
  updatedAt: Date;
  runId: string;
  agentId: string;
}

/** A thread's most recent messages, as {@link getThreadMessages} reads them. */
export interface ThreadMessages extends ThreadInfo {
  /** Oldest first: at most the last 100 messages (256 KiB of JSON) the thread keeps. */
  messages: Message[];
  /** Older messages the thread keeps that `messages` leaves out. */
  omittedMessages: number;
  /**
   * What the runs' streams showed of calls in `messages` whose tools have a display transform (by tool
   * call id; `null`: not known). `messages` keep the transcript's values; show a person these instead.
   */
  shown?: ShownCalls;
  /** The thread's working memory, when a run stored one. */
  workingMemory?: WorkingMemory;
}

/** A thread's task list, as {@link getThreadTasks} reads it. */
export interface ThreadTasks extends ThreadInfo {
  /** The whole list, in order; empty until a task tool wrote one. */
  tasks: Task[];
  /** How far the list is. */
  summary: TaskSummary;
  /** When a task tool last changed the list; undefined if none ever did. */
  tasksUpdatedAt: Date | undefined;
}

/** Which threads {@link listThreads} returns. */
export interface ThreadFilter {
  /** The resource (user, tenant) whose threads to list; all threads when omitted. */
  resourceId?: string;
  /** At most this many (default 100). */
  limit?: number;
}

function memoOf(memo: Record<string, unknown> | undefined): ThreadMemo | undefined {
  const parsed = ThreadMemoSchema.safeParse(memo?.[THREAD_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

function threadInfo(info: Pick<WorkflowExecutionInfo, 'memo' | 'typedSearchAttributes' | 'startTime'>): ThreadInfo {
  const memo = memoOf(info.memo);
  return {
    threadId: memo?.threadId ?? info.typedSearchAttributes.get(AgentThreadIdKey) ?? '',
    resourceId: memo?.resourceId ?? info.typedSearchAttributes.get(AgentResourceIdKey),
    createdAt: memo ? new Date(memo.createdAt) : info.startTime,
    updatedAt: memo ? new Date(memo.updatedAt) : undefined,
    messageCount: memo?.messageCount ?? 0,
    turnCount: memo?.turnCount ?? 0,
    droppedTurns: memo?.droppedTurns ?? 0,
    agentIds: memo?.agentIds ?? [],
    ...(memo?.owner ? { owner: memo.owner } : {}),
    participants: memo?.participants ?? [],
    lastRunId: memo?.lastRunId,
  };
}

/** The threads of a resource (of every resource when none is given), most recently updated first. */
export async function listThreads(ctx: ClientContext, filter: ThreadFilter = {}): Promise<ThreadInfo[]> {
  const resourceId = checkInput('resourceId', IdSchema.optional(), filter.resourceId);
  const clauses = [`WorkflowType = 'agentThread'`, `ExecutionStatus = 'Running'`];
  if (resourceId !== undefined) clauses.push(`AgentResourceId = ${queryValue('resourceId', resourceId)}`);
  const limit = filter.limit ?? 100;
  const { namespace, temporal } = ctx;
  const converter = temporal.options.loadedDataConverter;
  const threads: ThreadInfo[] = [];
  let nextPageToken: Uint8Array = Buffer.alloc(0);
  do {
    const response = await temporal.workflowService.listWorkflowExecutions({
      namespace,
      query: clauses.join(' AND '),
      nextPageToken,
      pageSize: Math.min(limit, 1000),
    });
    await withStoredPayloads(temporal, response);
    for (const raw of response.executions) {
      if (threads.length >= limit) break;
      try {
        threads.push(threadInfo(await executionInfoFromRaw(raw, converter, raw, namespace)));
      } catch (err) {
        const withoutMemo = Object.assign(Object.create(raw) as typeof raw, { memo: null });
        const bare = await executionInfoFromRaw(withoutMemo, converter, raw, namespace);
        threads.push({ ...threadInfo(bare), unreadable: errorMessage(err) });
      }
    }
    nextPageToken = response.nextPageToken;
  } while (threads.length < limit && nextPageToken && nextPageToken.length > 0);
  return threads.sort((a, b) => (b.updatedAt?.getTime() ?? 0) - (a.updatedAt?.getTime() ?? 0));
}

/** A thread as its memo shows it (no worker needed). `ThreadNotFoundError` when no run began it. */
async function describeThread(
  ctx: ClientContext,
  target: { threadId: string; resourceId?: string },
): Promise<{ info: ThreadInfo; memo: ThreadMemo | undefined }> {
  const threadId = checkInput('threadId', IdSchema, target.threadId);
  const resourceId = checkInput('resourceId', IdSchema.optional(), target.resourceId);
  let description;
  try {
    description = await ctx.temporal.workflow.getHandle(threadWorkflowId(resourceId, threadId)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new ThreadNotFoundError(threadId, resourceId);
    throw err;
  }
  return { info: { ...threadInfo(description), threadId, resourceId }, memo: memoOf(description.memo) };
}

/** A thread's most recent messages, from its memo (no worker needed). `ThreadNotFoundError` when no run began it. */
export async function getThreadMessages(
  ctx: ClientContext,
  target: { threadId: string; resourceId?: string },
): Promise<ThreadMessages> {
  const { info, memo } = await describeThread(ctx, target);
  const stored = memo?.workingMemory;
  const { threadId, resourceId } = info;
  return {
    ...info,
    messages: memo?.messages ?? [],
    omittedMessages: memo?.omittedMessages ?? 0,
    ...(memo?.shown ? { shown: memo.shown } : {}),
    ...(stored ? { workingMemory: { threadId, resourceId, ...stored, updatedAt: new Date(stored.updatedAt) } } : {}),
  };
}

/**
 * A thread's task list, from its memo, which holds it whole (no worker needed). `ThreadNotFoundError`
 * when no run began it.
 */
export async function getThreadTasks(
  ctx: ClientContext,
  target: { threadId: string; resourceId?: string },
): Promise<ThreadTasks> {
  const { info, memo } = await describeThread(ctx, target);
  const tasks = memo?.taskList?.tasks ?? [];
  const updatedAt = memo?.taskList?.updatedAt;
  return { ...info, tasks, summary: taskSummary(tasks), tasksUpdatedAt: updatedAt ? new Date(updatedAt) : undefined };
}

/**
 * A thread's working memory, from its memo (no worker needed): null while no run stored one.
 * `ThreadNotFoundError` when no run began the thread.
 */
export async function getWorkingMemory(
  ctx: ClientContext,
  target: { threadId: string; resourceId?: string },
): Promise<WorkingMemory | null> {
  return (await getThreadMessages(ctx, target)).workingMemory ?? null;
}
