/**
 * What a run decides before it announces anything: its agent's spec (described once, recorded in the
 * history), whether the caller may start it, its checked options, and a tool run's one call.
 */
import { ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities, CallModelOutput } from '../../protocol/activities.js';
import { canStart } from '../../approvals/access.js';
import { effectiveRunOptions } from '../../approvals/policy.js';
import { withClientTools, withToolKinds, type AgentSpec } from '../../schemas/agent-spec.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { beginsThreadTurn } from './join-thread.js';
import { refOf, transcribedInput } from './payload-views.js';
import type { RunState } from './run-state.js';
import { toolRunStep } from './tool-run.js';
import { takes } from '../patches.js';

/** Error types that no retry can fix; the activities throw them as non-retryable failures. */
export const NON_RETRYABLE_ERROR_TYPES = ['UnknownAgentError', 'UnknownModelError', 'ScriptExhaustedError'];

const describeRetry = { maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES };
const { describeAgent } = proxyActivities<AgentActivities>({ startToCloseTimeout: '30 seconds', retry: describeRetry });
/**
 * The agent's description is read from the worker's own registry: as a local activity it costs no
 * round trip through the server, and the first model call is scheduled in the run's first workflow task.
 */
const { describeAgent: describeAgentHere } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: describeRetry,
});

/** What every part of a run works within: its state, its agent's spec and its checked options. */
export interface RunScope {
  readonly state: RunState;
  readonly spec: AgentSpec;
  readonly options: RunOptions;
}

/** A run ready to start its steps. */
export interface StartedRun extends RunScope {
  /** The agent's spec as described, without the run's client tools (a continuation adds them again). */
  readonly agentSpec: AgentSpec;
  /** A tool run's one step, made as a model would have made it. */
  readonly toolRun: CallModelOutput | undefined;
  /** Whether the run's thread keeps its conversation, when the run asked before the description. */
  readonly threadMemory: boolean | undefined;
}

/** Describes the agent and checks the run against it; a run that may not start fails with the reason. */
export async function startRun(input: RunInput, state: RunState): Promise<StartedRun> {
  // Asked before the description, in the run's first activation. The description is a local activity
  // in a lean run: when it ran, the code after it may have run in the next workflow task; on replay its
  // result comes back in the task that recorded it, where a patch recorded in the next one reads as
  // absent (and the run would fail with a non-determinism error).
  const threadMemory = state.lean && beginsThreadTurn(input) ? takes('threadMemory') : undefined;
  // Asked here for the same reason, where the run sets what they check.
  const namedContextKeys = input.options.requestContext !== undefined ? takes('namedContextKeys') : true;
  const modelSettingsBounds = input.options.modelSettings !== undefined ? takes('modelSettingsBounds') : true;
  const agentSpec = withToolKinds(input.carry?.spec ?? (await describeOnce(state, input.agentId)));
  // A sub-agent's run is started by its parent's agent, not by a caller.
  const start = input.parent ? { allowed: true as const } : canStart(agentSpec.access, agentSpec.id, input.startedBy);
  if (!start.allowed) throw ApplicationFailure.nonRetryable(start.message, 'NotAllowed');
  const checked = effectiveRunOptions(agentSpec, input.options, {
    fromParent: input.parent !== undefined,
    namedContextKeys: () => namedContextKeys,
    modelSettingsBounds: () => modelSettingsBounds,
    continued: input.carry !== undefined,
  });
  if (!checked.allowed) {
    const problems = checked.problems.join('; ');
    throw ApplicationFailure.nonRetryable(`Run options not allowed: ${problems}`, 'RunOptionsNotAllowed');
  }
  const { options } = checked;
  // The run's own client tools join the agent's; a continued run gets the agent's spec and adds them again.
  const spec = withClientTools(agentSpec, options.clientTools);
  // A tool run's call is checked as a model's would be, before anything is announced.
  const toolRun = input.toolCall ? await toolRunOf(state.runId, spec, options, input.toolCall) : undefined;
  return { state, spec, options, agentSpec, toolRun, threadMemory };
}

/** Runs started before the description became a local activity replay with the activity they scheduled. */
function describeOnce(state: RunState, agentId: string): Promise<AgentSpec> {
  return state.lean ? describeAgentHere({ agentId }) : describeAgent({ agentId });
}

/**
 * The one step of a tool run, its call's input in the assistant message as the transcript keeps it;
 * a call the agent does not allow, or input that does not fit, fails the run with the reason.
 */
async function toolRunOf(
  runId: string,
  spec: AgentSpec,
  options: RunOptions,
  toolCall: NonNullable<RunInput['toolCall']>,
): Promise<CallModelOutput> {
  const made = toolRunStep(runId, spec, options, toolCall, () => takes('boundedSchemaChecks'));
  if (!made.ok) throw ApplicationFailure.nonRetryable(`Tool run not possible: ${made.message}`, made.type);
  const call = made.step.toolCalls[0]!;
  const tool = spec.tools.find((t) => t.name === call.toolName);
  const input = await transcribedInput(tool, refOf(runId, spec.id, call, options.requestContext), call.args);
  if (input === call.args) return made.step;
  const content = [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input }];
  return { ...made.step, assistantMessages: [{ role: 'assistant', content }] };
}
