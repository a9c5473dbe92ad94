/** Starting a run: its input as stored, its id checked, and who started it in the memo from the start. */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { RunAlreadyExistsError } from '../errors.js';
import type { Principal } from '../schemas/access.js';
import type { RunInput } from '../schemas/run-input.js';
import { RUN_MEMO_KEY, type RunMemo } from '../schemas/run-result.js';
import type { agentRun } from '../workflows/agent-run.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { newRunId } from './checks.js';
import type { ClientContext } from './context.js';
import { principalOf, type PrincipalInput } from './identity.js';
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
  try {
    await ctx.temporal.workflow.start<typeof agentRun>('agentRun', {
      workflowId: runId,
      taskQueue: ctx.taskQueue,
      args: [input],
      typedSearchAttributes: startSearchAttributes(agentId, input.options),
      // A run id names one run for good: a finished run's id is not given to another.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Until the run writes its own memo, other processes see who started it (who may read it).
      ...(startedBy ? { memo: { [RUN_MEMO_KEY]: startMemo(startedBy) } } : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new RunAlreadyExistsError(runId);
    throw err;
  }
  return { runId };
}

/** The memo a run starts with, before its workflow writes its own. */
function startMemo(startedBy: Principal): RunMemo {
  return { status: 'running', version: 0, pendingToolCalls: [], decisions: [], startedBy };
}
