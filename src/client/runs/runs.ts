/**
 * Finding runs and reading their state from Temporal itself (describe, visibility, memo, search
 * attributes), so that any process finds any run with no worker and no second store.
 */
import { withStoredPayloads } from './stored-payloads.js';
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import { errorMessage, RunFailedError, RunNotFoundError } from '../../errors.js';
import { MAX_PAGE_SIZE } from '../../schemas/limits.js';
import type { AccessRule, Principal } from '../../schemas/access.js';
import type { AutoResumeSettings } from '../../schemas/auto-resume.js';
import {
  RefusalSummarySchema,
  type DecisionRecord,
  type PendingToolCall,
  type RefusalSummary,
} from '../../schemas/decisions.js';
import {
  RUN_MEMO_KEY,
  RUN_REFUSALS_MEMO_KEY,
  RunMemoSchema,
  type RunMemo,
  type RunStatus,
} from '../../schemas/run-result.js';
import { AgentIdKey, AgentResourceIdKey, AgentStatusKey, AgentThreadIdKey } from '../../protocol/search-attributes.js';
import { runRef } from '../checks.js';
import type { ClientContext } from '../context.js';
import { queryValue } from './visibility-query.js';
import { modelStepRetry, retryingRuns, type ModelStepRetry } from './model-step.js';
import { runBuild, type RunBuild } from './run-build.js';
import { pageSizeOf, pageTokenBytes, pageTokenRefusal, pageTokenText } from './page-token.js';

/** A run that waits on tool calls, as {@link AgentClient.listSuspendedRuns} finds it. */
export interface SuspendedRun {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  startTime: Date;
  pendingToolCalls: PendingToolCall[];
  /** Set when this process cannot read the run's memo (e.g. a codec key it lacks): why. */
  unreadable?: string;
}

/** What {@link AgentClient.getRun} tells of a run, with no worker needed. */
export interface RunInfo extends SuspendedRun {
  /** The run's own status; `running` before the workflow first reported one. */
  status: RunStatus;
  /** Temporal's status of the workflow (RUNNING, COMPLETED, FAILED, TERMINATED, ...). */
  workflowStatus: string;
  closeTime: Date | undefined;
  /** The most recent accepted decisions (and escalations, expiries), with who, when and why. */
  decisions: DecisionRecord[];
  /** How many decisions the run refused, and the last few (runs from before kept them in `decisions`). */
  refusals: RefusalSummary;
  /** Who started the run, when known. */
  startedBy: Principal | undefined;
  /** Who may read the run (the agent's rule), when the run has said. */
  read: AccessRule | undefined;
  /** For a run on a thread: what a new message there may decide (auto-resume). */
  autoResume?: AutoResumeSettings;
  /** The build the run is on, when a versioned worker runs it (see docs/upgrading.md). */
  build?: RunBuild;
  /**
   * Set while the run's model step is retried because its provider fails (rate limits, 5xx, network):
   * the attempt, the last failure and when the next attempt starts. `getRun` reads it; lists do not.
   */
  modelRetry?: ModelStepRetry;
  /** The steps one of the agent's fallback models answered (its own model's provider failed), the last 20. */
  modelFallbacks?: Array<{ stepNumber: number; model: string }>;
}

/** Which runs {@link listRuns} returns. */
export interface RunFilter {
  status?: RunStatus;
  agentId?: string;
  threadId?: string;
  resourceId?: string;
  /**
   * Only runs whose model step is being retried because its provider fails, each with `modelRetry`:
   * Temporal keeps an activity's retries to itself, so every running run the other filters match is
   * described (a few at a time) to read its model activity. An operator's search, not a hot path.
   */
  modelRetrying?: true;
  /** At most this many (default 100). */
  limit?: number;
}

function memoOf(memo: Record<string, unknown> | undefined): RunMemo | undefined {
  const parsed = RunMemoSchema.safeParse(memo?.[RUN_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

function refusalsOf(memo: Record<string, unknown> | undefined): RefusalSummary {
  const parsed = RefusalSummarySchema.safeParse(memo?.[RUN_REFUSALS_MEMO_KEY]);
  return parsed.success ? parsed.data : { count: 0, recent: [] };
}

/** What describe and visibility both tell of a workflow, as a run. */
function runInfo(
  info: Pick<
    WorkflowExecutionInfo,
    'workflowId' | 'typedSearchAttributes' | 'memo' | 'status' | 'startTime' | 'closeTime'
  >,
  build: RunBuild | undefined,
): RunInfo {
  const memo = memoOf(info.memo);
  const attribute = info.typedSearchAttributes;
  return {
    runId: info.workflowId,
    agentId: attribute.get(AgentIdKey),
    threadId: attribute.get(AgentThreadIdKey),
    resourceId: attribute.get(AgentResourceIdKey),
    status: memo?.status ?? (attribute.get(AgentStatusKey) as RunStatus | undefined) ?? 'running',
    workflowStatus: info.status.name,
    startTime: info.startTime,
    closeTime: info.closeTime,
    pendingToolCalls: memo?.pendingToolCalls ?? [],
    decisions: memo?.decisions ?? [],
    refusals: refusalsOf(info.memo),
    startedBy: memo?.startedBy,
    read: memo?.read,
    ...(memo?.autoResume ? { autoResume: memo.autoResume } : {}),
    ...(memo?.modelFallbacks ? { modelFallbacks: memo.modelFallbacks } : {}),
    ...(build ? { build } : {}),
  };
}

/** A run's status, pending calls and decision trail, from Temporal (no worker needed). */
export async function getRun(ctx: ClientContext, runId: string): Promise<RunInfo> {
  runRef(runId);
  let description: WorkflowExecutionDescription;
  try {
    description = await ctx.temporal.workflow.getHandle(runId).describe();
  } catch (err) {
    throw runError(ctx, runId, err);
  }
  // A thread's workflow, or any other in the namespace, is not a run: it is not found as one.
  if (description.type !== 'agentRun') throw new RunNotFoundError(runId, ctx.namespace);
  const modelRetry = await modelStepRetry(ctx.temporal, description.raw);
  return {
    ...runInfo(description, runBuild(description.raw.workflowExecutionInfo)),
    runId,
    ...(modelRetry ? { modelRetry } : {}),
  };
}

/** The run's verdict on a decision: in its trail, or among the refusals it still shows. */
export function verdictIn(
  info: Pick<RunInfo, 'decisions' | 'refusals'>,
  decisionId: string,
): DecisionRecord | undefined {
  return (
    info.decisions.find((d) => d.decisionId === decisionId) ??
    info.refusals.recent.find((d) => d.decisionId === decisionId)
  );
}

/** Lists runs by status (any when omitted), in the order visibility returns them (newest first on the dev server). */
export async function listRuns(ctx: ClientContext, filter: RunFilter = {}): Promise<RunInfo[]> {
  const limit = filter.limit ?? 100;
  const runs: RunInfo[] = [];
  // A page is what the server reads and sends whole, memos included; its default is 1,000 runs.
  const pageSize = Math.min(limit, MAX_PAGE_SIZE);
  const listed = listExecutions(ctx, runsQuery(filter), pageSize);
  for await (const info of filter.modelRetrying ? retryingRuns(ctx.temporal, listed) : listed) {
    runs.push(info);
    if (runs.length >= limit) break;
  }
  return runs;
}

/** Which page of runs {@link listRunsPage} reads: the filter of {@link listRuns}, a size and where to go on. */
export interface RunPageRequest extends Pick<RunFilter, 'status' | 'agentId' | 'threadId' | 'resourceId'> {
  /** At most this many runs on the page: 1 to 1,000 (default 100). */
  pageSize?: number;
  /** The `nextPageToken` of the page before, asked for with the same filter; none for the first page. */
  pageToken?: string;
}

/** A page of runs and, when there are more, the token that reads the next one. */
export interface RunPage {
  runs: RunInfo[];
  nextPageToken?: string;
}

/**
 * One page of the runs {@link listRuns} would list, and the token of the next page: a list of 10,000
 * waiting runs is walked a page at a time, each one request to visibility, rather than read whole.
 */
export async function listRunsPage(ctx: ClientContext, request: RunPageRequest = {}): Promise<RunPage> {
  const pageSize = pageSizeOf(request.pageSize);
  const query = runsQuery(request);
  const token = pageTokenBytes(request.pageToken, query);
  let read;
  try {
    read = await readPage(ctx, query, pageSize, token);
  } catch (err) {
    throw pageTokenRefusal(err, token) ?? err;
  }
  const { runs, next } = read;
  const nextPageToken = pageTokenText(next, query);
  return { runs, ...(nextPageToken ? { nextPageToken } : {}) };
}

function runsQuery(
  filter: Pick<RunFilter, 'status' | 'agentId' | 'threadId' | 'resourceId' | 'modelRetrying'>,
): string {
  const clauses = [`WorkflowType = 'agentRun'`];
  if (filter.status) clauses.push(`AgentStatus = ${queryValue('status', filter.status)}`);
  // A terminated or timed-out workflow keeps the status it last reported; it runs no more.
  const open = filter.status === 'running' || filter.status === 'suspended' || filter.modelRetrying;
  if (open) clauses.push(`ExecutionStatus = 'Running'`);
  if (filter.agentId) clauses.push(`AgentId = ${queryValue('agentId', filter.agentId)}`);
  if (filter.threadId) clauses.push(`AgentThreadId = ${queryValue('threadId', filter.threadId)}`);
  if (filter.resourceId) clauses.push(`AgentResourceId = ${queryValue('resourceId', filter.resourceId)}`);
  return clauses.join(' AND ');
}

/** Visibility's list, one run at a time, a page of `pageSize` at a time. */
async function* listExecutions(ctx: ClientContext, query: string, pageSize: number): AsyncGenerator<RunInfo> {
  let token: Uint8Array = Buffer.alloc(0);
  do {
    const { runs, next } = await readPage(ctx, query, pageSize, token);
    yield* runs;
    token = next;
  } while (token.length > 0);
}

/**
 * One page of visibility's list. A run whose memo this process cannot read (encrypted with a codec key
 * it lacks) is listed from its search attributes, saying why, rather than failing the list.
 */
async function readPage(
  ctx: ClientContext,
  query: string,
  pageSize: number,
  nextPageToken: Uint8Array,
): Promise<{ runs: RunInfo[]; next: Uint8Array }> {
  const { namespace, temporal } = ctx;
  const converter = temporal.options.loadedDataConverter;
  const response = await temporal.workflowService.listWorkflowExecutions({ namespace, query, nextPageToken, pageSize });
  await withStoredPayloads(temporal, response);
  const runs: RunInfo[] = [];
  for (const raw of response.executions) {
    try {
      runs.push(runInfo(await executionInfoFromRaw(raw, converter, raw, namespace), runBuild(raw)));
    } catch (err) {
      // The same execution without its memo (a protobuf message keeps its defaults on the prototype).
      const withoutMemo = Object.assign(Object.create(raw) as typeof raw, { memo: null });
      const bare = await executionInfoFromRaw(withoutMemo, converter, raw, namespace);
      runs.push({ ...runInfo(bare, runBuild(raw)), unreadable: errorMessage(err) });
    }
  }
  return { runs, next: response.nextPageToken ?? Buffer.alloc(0) };
}

/**
 * Every run that waits on tool calls, with the calls, found through Temporal visibility (search
 * attributes and memo), so it works from any process and after any restart.
 */
export async function listSuspendedRuns(
  ctx: ClientContext,
  filter: Pick<RunFilter, 'agentId' | 'threadId' | 'resourceId'> = {},
): Promise<SuspendedRun[]> {
  const runs = await listRuns(ctx, { ...filter, status: 'suspended', limit: Number.POSITIVE_INFINITY });
  return runs.map(suspendedRun);
}

/** A run as the list of waiting runs shows it. */
export function suspendedRun(info: RunInfo): SuspendedRun {
  const { runId, agentId, threadId, resourceId, startTime, pendingToolCalls, unreadable } = info;
  return { runId, agentId, threadId, resourceId, startTime, pendingToolCalls, ...(unreadable ? { unreadable } : {}) };
}

/** The typed error for what Temporal said about a run: not found, or failed with a reason. */
export function runError(ctx: Pick<ClientContext, 'namespace'>, runId: string, err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError) return new RunNotFoundError(runId, ctx.namespace);
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
    return new RunFailedError(runId, cause?.message ?? err.message, type);
  }
  return err;
}
