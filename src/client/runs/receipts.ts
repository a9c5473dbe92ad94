/**
 * Reading a run's receipts (see approvals/receipts.ts): each execution of the run answers a query with
 * its own, from the head the execution before carried over, so the client asks them newest first and
 * follows each back to the execution it continued. A worker of the run's agent answers the queries (a
 * finished execution is replayed to answer), as it answers reads of the stream.
 */
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import { errorMessage, InvalidInputError, ReceiptsUnavailableError, RunNotFoundError } from '../../errors.js';
import { receiptsQuery } from '../../protocol/run-messages.js';
import type { Receipt, ReceiptHead } from '../../schemas/receipts.js';
import { runRef } from '../checks.js';
import type { ClientContext } from '../context.js';
import { queryValue } from './visibility-query.js';

/** How long one execution's query may take: replaying a long history to answer takes a while. */
const QUERY_DEADLINE_MS = 30_000;

/** The most executions a run's receipts are followed back through (each is a few thousand events). */
const MAX_EXECUTIONS = 1000;

/** The most runs one read over a time range takes. */
export const MAX_RECEIPT_RUNS = 1000;

/** Which receipts to read: one run's, or those taken between two times in the runs of a tenant (or all). */
export type ReceiptsTarget =
  | { runId: string }
  | {
      /** ISO 8601: receipts taken at or after it. */
      since: string;
      /** ISO 8601: receipts taken before it (default: now). */
      until?: string;
      /** Only the runs of this resource (a tenant). */
      resourceId?: string;
      /** At most this many runs (default and ceiling {@link MAX_RECEIPT_RUNS}); more is refused. */
      limit?: number;
    };

/** Every receipt of a run, oldest first, across the executions it continued as new through. */
export async function runReceipts(ctx: ClientContext, runId: string): Promise<Receipt[]> {
  runRef(runId);
  const description = await ctx.temporal.workflow
    .getHandle(runId)
    .describe()
    .catch((err: unknown) => {
      throw err instanceof WorkflowNotFoundError ? new RunNotFoundError(runId, ctx.namespace) : err;
    });
  if (description.type !== 'agentRun') throw new RunNotFoundError(runId, ctx.namespace);
  const executions: Receipt[][] = [];
  let execution: string | undefined = description.runId;
  let after: ReceiptHead | undefined;
  for (let i = 0; i < MAX_EXECUTIONS; i++) {
    const view = await executionReceipts(ctx, runId, execution);
    // Each execution's chain must end where the next one's began: a gap would go unseen in an export.
    const head = view.receipts.at(-1);
    const ends: ReceiptHead = head ? { next: head.seq + 1, hash: head.hash } : view.from;
    if (after && (ends.next !== after.next || ends.hash !== after.hash)) {
      throw new ReceiptsUnavailableError(runId, `its execution ${execution} does not end where the next began`);
    }
    executions.unshift(view.receipts);
    if (view.from.next === 0) return executions.flat();
    after = view.from;
    const previous = await continuedFrom(ctx, runId, execution);
    if (!previous) {
      throw new ReceiptsUnavailableError(
        runId,
        `no execution before ${execution} holds its receipts before seq ${view.from.next}`,
      );
    }
    execution = previous;
  }
  throw new ReceiptsUnavailableError(runId, `its receipts go back through more than ${MAX_EXECUTIONS} executions`);
}

/** The receipts taken between two times, run after run (each run's in order). */
export async function receiptsBetween(
  ctx: ClientContext,
  target: Extract<ReceiptsTarget, { since: string }>,
): Promise<Receipt[]> {
  const since = isoTime('since', target.since);
  const until = target.until === undefined ? new Date().toISOString() : isoTime('until', target.until);
  const limit = target.limit ?? MAX_RECEIPT_RUNS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECEIPT_RUNS) {
    throw new InvalidInputError('limit', `${limit} is not a whole number from 1 to ${MAX_RECEIPT_RUNS}`);
  }
  const clauses = [
    `WorkflowType = 'agentRun'`,
    `StartTime < '${until}'`,
    `(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`,
  ];
  if (target.resourceId) clauses.push(`AgentResourceId = ${queryValue('resourceId', target.resourceId)}`);
  const runIds: string[] = [];
  for await (const execution of ctx.temporal.workflow.list({ query: clauses.join(' AND ') })) {
    // A run that continued as new is listed once per execution: its receipts are read once.
    if (!runIds.includes(execution.workflowId)) runIds.push(execution.workflowId);
    if (runIds.length > limit) {
      throw new InvalidInputError(
        'limit',
        `more than ${limit} runs have receipts between ${since} and ${until}: ` +
          `export a shorter range, or raise limit (at most ${MAX_RECEIPT_RUNS})`,
      );
    }
  }
  const receipts: Receipt[] = [];
  for (const runId of runIds) {
    const all = await runReceipts(ctx, runId);
    // A run's receipts are in order of seq, not always of time (a resume's is made once the tool checked
    // its data): from its first in the range to its last, with none between left out.
    const inRange = (r: Receipt) => r.at >= since && r.at < until;
    const first = all.findIndex(inRange);
    if (first >= 0) receipts.push(...all.slice(first, all.findLastIndex(inRange) + 1));
  }
  return receipts;
}

/** An ISO 8601 time, as visibility queries and receipts write it (UTC, milliseconds). */
function isoTime(field: string, value: string): string {
  const ms = Date.parse(value);
  if (typeof value !== 'string' || Number.isNaN(ms)) {
    throw new TypeError(
      `${field}: ${JSON.stringify(value)} is not a time: give ISO 8601, such as 2026-12-01T00:00:00Z`,
    );
  }
  return new Date(ms).toISOString();
}

async function executionReceipts(ctx: ClientContext, runId: string, execution: string) {
  const handle = ctx.temporal.workflow.getHandle(runId, execution);
  try {
    return await ctx.temporal.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(receiptsQuery));
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) {
      throw new ReceiptsUnavailableError(runId, `its execution ${execution} ran on a release from before receipts`);
    }
    throw new ReceiptsUnavailableError(
      runId,
      `no worker answered for its execution ${execution}: ${errorMessage(err)}`,
    );
  }
}

/** The execution this one continued as new from (the first event of its history says). */
async function continuedFrom(ctx: ClientContext, runId: string, execution: string): Promise<string | undefined> {
  const { history } = await ctx.temporal.workflowService.getWorkflowExecutionHistory({
    namespace: ctx.namespace,
    execution: { workflowId: runId, runId: execution },
    maximumPageSize: 1,
  });
  const started = history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.continuedExecutionRunId || undefined;
}
