/**
 * Auto-resume from the client's side: before a message starts a new run on a thread, the thread's
 * waiting runs of the same agent are found through visibility (no worker needed); when one waits on a
 * call the message may decide, the message goes to that run instead (an update), which extracts the
 * call's data from it and decides. The caller then follows that run, as after any decision.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { canDecide } from '../../approvals/access.js';
import { autoResumeTarget } from '../../approvals/auto-resume.js';
import { AutoResumeFailedError, decisionRefused, RunNotFoundError, ThreadNotFoundError } from '../../errors.js';
import type { Principal } from '../../schemas/access.js';
import { lastUserText, MAX_AUTO_RESUME_MESSAGE, type AutoResumeRequest } from '../../schemas/auto-resume.js';
import type { RunInput } from '../../schemas/run-input.js';
import { autoResumeUpdate } from '../../protocol/run-messages.js';
import type { ClientContext } from '../context.js';
import { streamOffset } from '../stream/read-stream.js';
import { getRun, listRuns, type RunInfo } from '../runs/runs.js';
import { getThreadMessages } from '../threads.js';

/** The thread's most recent run, as describe shows it now; none for a thread no run began. */
async function lastRunOf(
  ctx: ClientContext,
  threadId: string,
  resourceId: string | undefined,
): Promise<RunInfo | undefined> {
  let lastRunId: string | undefined;
  try {
    lastRunId = (await getThreadMessages(ctx, { threadId, resourceId })).lastRunId;
  } catch (err) {
    if (err instanceof ThreadNotFoundError) return undefined;
    throw err;
  }
  if (!lastRunId) return undefined;
  const run = await getRun(ctx, lastRunId).catch((err: unknown) => {
    if (err instanceof RunNotFoundError) return undefined;
    throw err;
  });
  return run?.status === 'suspended' ? run : undefined;
}

/** The waiting run a message resumed, and the decision it made there. */
export interface AutoResumed {
  runId: string;
  decisionId: string;
  /** Where the run's stream stood before the message (asked for a caller that streams). */
  fromOffset?: number;
}

/**
 * Sends the message to the thread's waiting run when it may decide one of its calls; `undefined` when
 * none waits on such a call (start a new run). A message that does not yield valid data is refused
 * (`InvalidResumeDataError`, saying what is missing) and the call still waits.
 */
export async function autoResumeOnThread(
  ctx: ClientContext,
  input: Pick<RunInput, 'agentId' | 'messages' | 'options'>,
  principal: Principal | undefined,
  /** Set for a caller that streams the run from here: it stays readable this long after it ends. */
  streamGraceMs?: number,
): Promise<AutoResumed | undefined> {
  const { threadId, resourceId, autoResumeSuspendedTools: enabled, script } = input.options;
  if (!threadId || enabled === false) return undefined;
  const message = lastUserText(input.messages);
  if (message === undefined) return undefined;
  // Visibility lags a moment behind a run that just paused; describe does not: the thread's last run
  // (most often the one that waits) is read that way too.
  const [listed, last] = await Promise.all([
    listRuns(ctx, { status: 'suspended', agentId: input.agentId, threadId, resourceId, limit: 100 }),
    lastRunOf(ctx, threadId, resourceId),
  ]);
  const runs = last && !listed.some((r) => r.runId === last.runId) ? [...listed, last] : listed;
  // A thread is named within its resource: a run of the same thread id in another resource is not on it.
  const onThread = runs.filter(
    (r) => r.resourceId === resourceId && r.threadId === threadId && r.agentId === input.agentId && !r.closeTime,
  );
  const target = autoResumeTarget(onThread, enabled);
  if (!target) return undefined;
  const { runId, call } = target;
  // A message decides only what its sender could decide by hand: refused here, before the run hears of
  // it (the run checks again, for whoever sends the update directly).
  const access = canDecide(
    call,
    onThread.find((r) => r.runId === runId)!,
    principal,
  );
  if (!access.allowed)
    throw decisionRefused(runId, access.type, `a message may not answer this call: ${access.message}`);
  if (message.length > MAX_AUTO_RESUME_MESSAGE) {
    throw decisionRefused(
      runId,
      'InvalidResumeData',
      `the message has ${message.length} characters; auto-resume reads at most ${MAX_AUTO_RESUME_MESSAGE} ` +
        `for ${call.toolName} (${call.toolCallId}): send a shorter answer`,
    );
  }
  const request: AutoResumeRequest = {
    decisionId: randomUUID(),
    toolCallId: call.toolCallId,
    message,
    ...(enabled !== undefined ? { enabled } : {}),
    ...(principal ? { principal } : {}),
    ...(script ? { script } : {}),
    ...(streamGraceMs !== undefined ? { streamGraceMs } : {}),
    sentAt: new Date().toISOString(),
  };
  const fromOffset = streamGraceMs !== undefined ? await streamOffset(ctx, runId) : undefined;
  let outcome;
  try {
    outcome = await ctx.temporal.workflow.getHandle(runId).executeUpdate(autoResumeUpdate, { args: [request] });
  } catch (err) {
    // The run ended meanwhile: the message starts a new run, as on a thread with nothing waiting.
    if (err instanceof WorkflowNotFoundError) return undefined;
    if (err instanceof WorkflowUpdateFailedError) {
      // The run refused the sender, as a decision by hand would be refused (the calls here were decidable).
      const type = err.cause instanceof ApplicationFailure ? err.cause.type : undefined;
      if (type === 'NotAllowed' || type === 'SelfApproval') throw decisionRefused(runId, type, err.cause!.message);
      const cause = err.cause instanceof ApplicationFailure ? err.cause.message : String(err.cause ?? err.message);
      throw new AutoResumeFailedError(runId, cause);
    }
    throw err;
  }
  if (outcome.resumed)
    return { runId, decisionId: outcome.decisionId, ...(fromOffset !== undefined ? { fromOffset } : {}) };
  // Decided meanwhile by someone else: nothing waits for this message any more.
  if (outcome.refusal.type === 'NothingPending') return undefined;
  throw decisionRefused(runId, outcome.refusal.type, outcome.refusal.message);
}
