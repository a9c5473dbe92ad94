/**
 * The agent's hooks around its tool calls (`beforeToolCall`, `afterToolCall`), run on the worker where
 * the agent's code is.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { RunOptions } from '../../schemas/run-options.js';
import type { RunState } from './run-state.js';
import { runContext } from './tool-activity.js';
import { operatorOutput } from './transcript.js';

/** Agent hooks are the agent's own code around a call: quick, on the worker, recorded as markers. */
const { toolCallHook } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** The agent's hooks around a call that runs: `beforeToolCall` may skip it, `afterToolCall` sees how it ended. */
export async function withHooks(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  run: () => Promise<ToolCallOutcome>,
): Promise<ToolCallOutcome> {
  if (!spec.hooks) return run();
  const where = hookInput(spec, options, state, call);
  let outcome: ToolCallOutcome | undefined;
  if (spec.hooks.beforeToolCall) {
    const before = await toolCallHook({ hook: 'beforeToolCall', ...where });
    if ('failed' in before) {
      return {
        type: 'error',
        error: `beforeToolCall of agent "${spec.id}" failed, so the call did not run: ${before.failed}`,
      };
    }
    if (!before.proceed) outcome = operatorOutput(before.output);
  }
  outcome ??= await run();
  await afterToolCall(spec, options, state, call, outcome);
  return outcome;
}

/** The agent's `afterToolCall` hook, when it has one: it sees how a call ended (a provider's call too). */
export async function afterToolCall(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  outcome: ToolCallOutcome,
): Promise<void> {
  if (!spec.hooks?.afterToolCall) return;
  const end = outcome.type === 'result' ? { output: outcome.output } : { error: outcomeError(outcome) };
  await toolCallHook({ hook: 'afterToolCall', ...hookInput(spec, options, state, call), end });
}

/** A call as the worker's code for it is told of it: its ids and arguments, and the run's context. */
export function hookInput(spec: AgentSpec, options: RunOptions, state: RunState, call: ModelToolCall) {
  const { toolCallId, toolName, args } = call;
  return {
    runId: state.runId,
    agentId: spec.id,
    toolCallId,
    toolName,
    args,
    ...runContext(options),
  };
}

function outcomeError(outcome: Exclude<ToolCallOutcome, { type: 'result' }>): string {
  return outcome.type === 'declined' ? outcome.message : outcome.error;
}
