/**
 * Finding runs and reading their state from Temporal itself (describe, visibility, memo, search
 * attributes), so that any process finds any run with no worker and no second store.
 */
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RunFailedError, RunNotFoundError } from '../errors.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';
import { RUN_MEMO_KEY, RunMemoSchema, type RunMemo, type RunStatus } from '../schemas/run-result.js';
import { AgentIdKey, AgentResourceIdKey, AgentStatusKey, AgentThreadIdKey } from '../workflows/search-attributes.js';
import type { ClientContext } from './context.js';

/** A run that waits on tool calls, as {@link AgentClient.listSuspendedRuns} finds it. */
export interface SuspendedRun {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  startTime: Date;
  pendingToolCalls: PendingToolCall[];
}

/** What {@link AgentClient.getRun} tells of a run, with no worker needed. */
export interface RunInfo extends SuspendedRun {
  /** The run's own status; `running` before the workflow first reported one. */
  status: RunStatus;
  /** Temporal's status of the workflow (RUNNING, COMPLETED, FAILED, TERMINATED, ...). */
  workflowStatus: string;
  closeTime: Date | undefined;
  /** The most recent decisions, accepted or refused, with who, when and why. */
  decisions: DecisionRecord[];
}

/** Which runs {@link listRuns} returns. */
export interface RunFilter {
  status?: RunStatus;
  agentId?: string;
  threadId?: string;
  resourceId?: string;
  /** At most this many (default 100). */
  limit?: number;
}

function memoOf(memo: Record<string, unknown> | undefined): RunMemo | undefined {
  const parsed = RunMemoSchema.safeParse(memo?.[RUN_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** What describe and visibility both tell of a workflow, as a run. */
function runInfo(
  info: Pick<
    WorkflowExecutionInfo,
    'workflowId' | 'typedSearchAttributes' | 'memo' | 'status' | 'startTime' | 'closeTime'
  >,
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
  };
}

/** A run's status, pending calls and decision trail, from Temporal (no worker needed). */
export async function getRun(ctx: ClientContext, runId: string): Promise<RunInfo> {
  let description: WorkflowExecutionDescription;
  try {
    description = await ctx.temporal.workflow.getHandle(runId).describe();
  } catch (err) {
    throw runError(ctx, runId, err);
  }
  return { ...runInfo(description), runId };
}

/** Lists runs by status (any when omitted), in the order visibility returns them (newest first on the dev server). */
export async function listRuns(ctx: ClientContext, filter: RunFilter = {}): Promise<RunInfo[]> {
  const clauses = [`WorkflowType = 'agentRun'`];
  if (filter.status) clauses.push(`AgentStatus = ${quote(filter.status)}`);
  // A terminated or timed-out workflow keeps the status it last reported; it runs no more.
  if (filter.status === 'running' || filter.status === 'suspended') clauses.push(`ExecutionStatus = 'Running'`);
  if (filter.agentId) clauses.push(`AgentId = ${quote(filter.agentId)}`);
  if (filter.threadId) clauses.push(`AgentThreadId = ${quote(filter.threadId)}`);
  if (filter.resourceId) clauses.push(`AgentResourceId = ${quote(filter.resourceId)}`);
  const limit = filter.limit ?? 100;
  const runs: RunInfo[] = [];
  // A page is what the server reads and sends whole, memos included; its default is 1,000 runs.
  const pageSize = Math.min(limit, 1000);
  for await (const info of ctx.temporal.workflow.list({ query: clauses.join(' AND '), pageSize })) {
    runs.push(runInfo(info));
    if (runs.length >= limit) break;
  }
  return runs;
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
  return runs.map(({ runId, agentId, threadId, resourceId, startTime, pendingToolCalls }) => ({
    runId,
    agentId,
    threadId,
    resourceId,
    startTime,
    pendingToolCalls,
  }));
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

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
