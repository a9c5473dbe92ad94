/** Starting a run: its input as stored, its id checked, and who started it in the memo from the start. */
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { RunAlreadyExistsError } from '../../errors.js';
import type { Principal } from '../../schemas/access.js';
import type { RunInput } from '../../schemas/run-input.js';
import { RUN_MEMO_KEY, type RunMemo } from '../../schemas/run-result.js';
import type { agentRun } from '../../workflows/run/agent-run.js';
import { nextPauseUpdate, type PauseSnapshot, type RunSnapshot } from '../../protocol/run-messages.js';
import { startSearchAttributes } from '../../protocol/search-attributes.js';
import { newRunId } from '../checks.js';
import type { ClientContext } from '../context.js';
import { principalOf, type PrincipalInput } from '../identity.js';
import { buildRunInput, type RunPrompt, type StartOptions } from './run-input.js';

/** What a run is started with. */
export interface RunStart {
  agentId: string;
  prompt: RunPrompt;
  options: StartOptions;
  /** Set for a streamed run. */
  stream?: RunInput['stream'];
  /** Set for a tool run: its one call. */
  toolCall?: RunInput['toolCall'];
  /** The client's principal, when the options name none. */
  principal: PrincipalInput | undefined;
  warn: (message: string) => void;
}

/** Starts the run's workflow; its id is the run id. A run id in use, or used before, is refused. */
export async function startRun(ctx: ClientContext, start: RunStart): Promise<{ runId: string }> {
  const { runId, workflow } = startOptionsOf(ctx, start);
  try {
    await ctx.temporal.workflow.start<typeof agentRun>('agentRun', workflow);
  } catch (err) {
    throw startError(runId, err);
  }
  return { runId };
}

/**
 * Starts the run with its first `nextPause` update in the same request (update-with-start): the
 * run's first workflow task takes the update, where an update sent after the start would arrive
 * once that task has completed and cost a workflow task of its own. `pause` is the update's answer.
 */
export async function startRunWaiting(
  ctx: ClientContext,
  start: RunStart,
): Promise<{ runId: string; pause: Promise<PauseSnapshot | RunSnapshot> }> {
  const { runId, workflow } = startOptionsOf(ctx, start);
  // Update-with-start needs a conflict policy; the reuse policy still refuses an id used before.
  const operation = new WithStartWorkflowOperation<typeof agentRun>('agentRun', {
    ...workflow,
    workflowIdConflictPolicy: 'FAIL',
  });
  const pause = ctx.temporal.workflow.executeUpdateWithStart(nextPauseUpdate, {
    args: [{}],
    startWorkflowOperation: operation,
  });
  // Whoever waits on the answer takes its failure; until then it is not an unhandled rejection.
  pause.catch(() => undefined);
  try {
    await operation.workflowHandle();
  } catch (err) {
    throw startError(runId, err);
  }
  return { runId, pause };
}

function startOptionsOf(ctx: ClientContext, start: RunStart) {
  const { agentId, prompt, options, stream, toolCall } = start;
  const { runId = `run-${randomUUID()}`, principal: who, ...runOptions } = options;
  newRunId(runId);
  const startedBy = principalOf(who ?? start.principal, ctx.temporal.options.identity);
  const input: RunInput = {
    ...buildRunInput(agentId, prompt, runOptions, start.warn),
    ...(stream ? { stream } : {}),
    ...(startedBy ? { startedBy } : {}),
    ...(toolCall ? { toolCall } : {}),
  };
  const workflow = {
    workflowId: runId,
    taskQueue: ctx.taskQueue,
    args: [input] as [RunInput],
    typedSearchAttributes: startSearchAttributes(agentId, input.options),
    // A run id names one run for good: a finished run's id is not given to another.
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    // Until the run writes its own memo, other processes see who started it (who may read it).
    ...(startedBy ? { memo: { [RUN_MEMO_KEY]: startMemo(startedBy) } } : {}),
  };
  return { runId, workflow };
}

function startError(runId: string, err: unknown): unknown {
  return err instanceof WorkflowExecutionAlreadyStartedError ? new RunAlreadyExistsError(runId) : err;
}

/** The memo a run starts with, before its workflow writes its own. */
function startMemo(startedBy: Principal): RunMemo {
  return { status: 'running', version: 0, pendingToolCalls: [], decisions: [], startedBy };
}
