/**
 * Waiting on a run: for its result, or for its next pause (the `nextPause` update: no polling),
 * with every way a wait can end turned into a typed error.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decisionRefused } from '../../errors.js';
import { RefusalTypeSchema } from '../../schemas/decisions.js';
import { RunResultSchema, type RunResult } from '../../schemas/run-result.js';
import type { agentRun } from '../../workflows/run/agent-run.js';
import { nextPauseUpdate, runStateQuery, type PauseSnapshot, type RunSnapshot } from '../../protocol/run-messages.js';
import { runRef } from '../checks.js';
import type { ClientContext } from '../context.js';
import { getRun, runError, verdictIn } from '../runs/runs.js';

/** Waits until the run finishes and returns its result; throws `RunFailedError` if it failed. */
export async function runResult(ctx: ClientContext, runId: string): Promise<RunResult> {
  runRef(runId);
  const handle: WorkflowHandle<typeof agentRun> = ctx.temporal.workflow.getHandle(runId);
  try {
    return RunResultSchema.parse(await handle.result());
  } catch (err) {
    throw runError(ctx, runId, err);
  }
}

/** What to wait for: a state newer than `afterVersion`, and first the verdict on `decisionId`. */
export interface NextPauseAfter {
  afterVersion?: number;
  decisionId?: string;
}

/**
 * Waits until the run pauses (now or later) or finishes, and returns the result then. A refused
 * decision (`decisionId`) throws its typed refusal.
 */
export async function nextResult(
  ctx: ClientContext,
  runId: string,
  after: NextPauseAfter = {},
  /** The answer of a `nextPause` already sent (with the run's start), for the first wait. */
  sent?: Promise<PauseSnapshot | RunSnapshot>,
): Promise<RunResult> {
  runRef(runId);
  const handle = ctx.temporal.workflow.getHandle(runId);
  try {
    let wanted = after;
    let first = sent;
    for (;;) {
      const snapshot = await (first ?? handle.executeUpdate(nextPauseUpdate, { args: [wanted] }));
      first = undefined;
      // `running` means the run handed over to a fresh history (continue-as-new): ask the new one.
      if (snapshot.status === 'running') continue;
      // Workers from before the slim answer send the result with it.
      if ('result' in snapshot) {
        if (snapshot.status === 'suspended' || snapshot.status === 'completed')
          return RunResultSchema.parse(snapshot.result);
        break;
      }
      // A completed run's result without waiting out a stream's grace period: the run answers while open.
      if (snapshot.status === 'completed' && !snapshot.lingers) break;
      if (snapshot.status !== 'suspended' && snapshot.status !== 'completed') break;
      const now = await handle.query(runStateQuery);
      if (now.status === 'suspended' || now.status === 'completed') return RunResultSchema.parse(now.result);
      // A decision moved the run on between the answer and the query: wait for its next pause.
      wanted = { afterVersion: Math.max(now.version, snapshot.version) };
    }
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure) {
      const type = RefusalTypeSchema.safeParse(cause.type);
      if (type.success) throw decisionRefused(runId, type.data, cause.message);
    }
    // A run that finished before the update completed: its result says how it ended. The server may
    // also answer "not found" for a run that closed as the update arrived; the result tells which.
    const finished =
      isFinishedError(err) ||
      (cause instanceof ApplicationFailure && cause.type === 'AcceptedUpdateCompletedWorkflow') ||
      (err instanceof WorkflowNotFoundError && (await exists(ctx, runId)));
    if (!finished) throw runError(ctx, runId, err);
    if (after.decisionId) {
      const verdict = verdictIn(await getRun(ctx, runId), after.decisionId);
      if (verdict?.refusal) throw decisionRefused(runId, verdict.refusal.type, verdict.refusal.message);
    }
  }
  return runResult(ctx, runId);
}

/**
 * Whether the run exists. An update that reaches a run as it closes can fail with "not found" (the
 * update, not the run): a decision that lost a race must hear that the run finished, not that it is gone.
 */
async function exists(ctx: ClientContext, runId: string): Promise<boolean> {
  return getRun(ctx, runId).then(
    () => true,
    () => false,
  );
}

/** The server's answer to an update for a workflow that has already closed. */
function isFinishedError(err: unknown): boolean {
  return err instanceof Error && /workflow execution already completed|already completed/i.test(err.message);
}

/** How long a caller that streams a run waits for the run to take its decision before it streams anyway. */
export const VERDICT_WAIT_MS = 10_000;

/**
 * Waits (at most `timeoutMs`) until the run has taken the decision, and throws its typed refusal if the
 * run refused it: a caller that lost a race to another decider hears so instead of streaming the
 * winner's run. With no worker up nothing answers; the wait then ends quietly and the decision stays
 * queued in the run's history, where a worker takes it when one starts.
 */
export async function decisionTaken(
  ctx: ClientContext,
  runId: string,
  decisionId: string,
  timeoutMs = VERDICT_WAIT_MS,
): Promise<void> {
  const update = ctx.temporal.workflow
    .getHandle(runId)
    .executeUpdate(nextPauseUpdate, { args: [{ decisionId, verdictOnly: true }] })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  const stop = new AbortController();
  const timeout = delay(timeoutMs, undefined, { signal: stop.signal }).catch(() => undefined);
  const err = await Promise.race([update, timeout]).finally(() => stop.abort());
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure) {
    const type = RefusalTypeSchema.safeParse(cause.type);
    if (type.success) throw decisionRefused(runId, type.data, cause.message);
  }
  // Anything else (a worker from before that does not know `verdictOnly`, a run that closed) leaves
  // the stream to tell what happened.
}
