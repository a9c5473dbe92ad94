/**
 * Whether a run that was just started got going: a run whose agent the workers do not know fails at
 * once, and a caller that does not wait for the run should still hear of it. Read from the run's
 * history (no worker needed on this side).
 */
import type { ClientContext } from '../context.js';
import { runRef } from '../checks.js';
import { runResult } from '../decisions/waiting.js';

/**
 * Waits up to `timeoutMs` until a worker has described the run's agent (`started`) or the run has
 * ended; a run that failed throws `RunFailedError` with the reason. `queued`: no worker took the run
 * in that time, so nothing is known yet.
 */
export async function confirmStart(
  ctx: ClientContext,
  runId: string,
  timeoutMs: number,
): Promise<'started' | 'queued'> {
  runRef(runId);
  const handle = ctx.temporal.workflow.getHandle(runId);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    if (events.some((e) => e.workflowExecutionFailedEventAttributes)) await runResult(ctx, runId);
    // The first activity of a run describes its agent: once it completed, the agent is known.
    if (events.some((e) => e.activityTaskCompletedEventAttributes || closes(e))) return 'started';
    if (Date.now() >= deadline) return 'queued';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function closes(event: object): boolean {
  return CLOSING_EVENTS.some((attributes) => (event as Record<string, unknown>)[attributes]);
}

const CLOSING_EVENTS = [
  'workflowExecutionCompletedEventAttributes',
  'workflowExecutionCanceledEventAttributes',
  'workflowExecutionTerminatedEventAttributes',
  'workflowExecutionTimedOutEventAttributes',
  'workflowExecutionContinuedAsNewEventAttributes',
];
