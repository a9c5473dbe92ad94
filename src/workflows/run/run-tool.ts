/**
 * One tool call of a run, whatever kind of tool it is: after approval when the policy asks for it,
 * then as an activity on the worker (with suspension and resume), a client's result, a sub-agent's
 * run or a workflow. Every way it can go wrong becomes a tool error the model sees.
 */
import {
  ActivityFailure,
  CancelledFailure,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import type { Resolution } from '../../approvals/ledger-effects.js';
import { needsApproval } from '../../approvals/policy.js';
import { deadlineFields, deadlineOf } from '../../approvals/deadline.js';
import { decidedBy, declineMessage, expiredMessage } from '../../approvals/rules.js';
import type { AgentSpec, ToolSpec, ToolSpecOf } from '../../schemas/agent-spec.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { runCancelled, runSubAgent, runWorkflowTool } from './delegation.js';
import { displayed, refOf, transcribed, waitingDisplay } from './payload-views.js';
import type { RunState } from './run-state.js';
import { recordApprovalRequired } from './spans.js';
import { withChangedArguments } from './transcript.js';

/**
 * Tools that may run more than once (not approved, or idempotent) are retried after a worker dies,
 * with an idempotency key; the default retry gives up after 3 attempts so that a broken tool becomes
 * an error the model sees rather than a run that retries forever. The worker heartbeats while a tool
 * runs, so a dead worker is noticed within the heartbeat timeout rather than the start-to-close one.
 */
const DEFAULT_TOOL_ACTIVITY = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
} satisfies ActivityOptions;

/** Errors of the runner's own making that no retry of the tool can fix: a chunk the writer refused. */
const NON_RETRYABLE_TOOL_ERRORS = ['StreamWriteError'];

function toolActivityOptions(tool: ToolSpecOf<'tool'>, atMostOnce: boolean): ActivityOptions {
  const custom = tool.activity ?? {};
  const nonRetryableErrorTypes = [...(custom.retry?.nonRetryableErrorTypes ?? []), ...NON_RETRYABLE_TOOL_ERRORS];
  const retry = { ...DEFAULT_TOOL_ACTIVITY.retry, ...custom.retry, nonRetryableErrorTypes };
  return {
    startToCloseTimeout: custom.startToCloseTimeout ?? DEFAULT_TOOL_ACTIVITY.startToCloseTimeout,
    heartbeatTimeout: custom.heartbeatTimeout ?? DEFAULT_TOOL_ACTIVITY.heartbeatTimeout,
    retry: atMostOnce ? { ...retry, maximumAttempts: 1 } : retry,
  };
}

/** Agent hooks are the agent's own code around a call: quick, on the worker, recorded as markers. */
const { toolCallHook } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** Runs one tool call, after approval if it needs one. */
export async function runTool(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  if (call.invalid) return { type: 'error', error: call.invalid };
  const tool = spec.tools.find((t) => t.name === call.toolName);
  if (!tool) {
    const known = spec.tools.map((t) => t.name).join(', ') || '(none)';
    return { type: 'error', error: `Unknown tool "${call.toolName}". Available tools: ${known}.` };
  }
  // The provider runs its own tools inside the model call; one that reaches the run as a call to carry out is not one.
  if (tool.kind === 'provider') {
    return { type: 'error', error: `Tool "${call.toolName}" is run by the model's provider; this call did not run.` };
  }

  const approval = needsApproval(options, tool);
  recordApprovalRequired(approval);
  if (!approval) return runCall(tool, spec, options, state, call, false);
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  // Asked before the display is made (as runs recorded before deadlines did): the deadline counts from here.
  const askedAt = now();
  const waiting = {
    kind: 'approval' as const,
    askedAt,
    inputSchema: tool.inputSchema,
    ...(await waitingDisplay(tool, ref, { kind: 'approval', args: call.args })),
    ...deadlineFields(askedAt, deadlineOf(tool, spec)),
  };
  const { kind, record, decision } = await state.waits.forDecision(call, waiting);
  if (kind === 'decline') {
    return { type: 'declined', message: declineMessage(call.toolName, decidedBy(record), record.reason) };
  }
  // Nobody decided in time: the call did not run, and the model hears that it expired (not that it was declined).
  if (kind === 'expire') return { type: 'error', error: expiredMessage(call.toolName, askedAt, record.at) };
  // One approval, one side effect: unless the tool says it is idempotent, it runs at most once.
  const atMostOnce = tool.kind === 'tool' && !tool.idempotent;
  if (!record.approved || decision.args === undefined) return runCall(tool, spec, options, state, call, atMostOnce);
  // Approved with changed arguments (the trail may only mention large ones): they run, and the model is told.
  const edited = { ...call, args: decision.args };
  const outcome = await runCall(tool, spec, options, state, edited, atMostOnce);
  return withChangedArguments(outcome, decision.args, decidedBy(record));
}

/** A tool the run carries out itself (every kind but those the provider runs). */
type RunnableTool = Exclude<ToolSpec, { kind: 'provider' }>;

/** A call that runs: inside the agent's hooks, its outcome as the transcript keeps it. */
async function runCall(
  tool: RunnableTool,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  atMostOnce: boolean,
): Promise<ToolCallOutcome> {
  const outcome = await withHooks(spec, options, state, call, () =>
    runApproved(tool, spec, options, state, call, atMostOnce),
  );
  return transcribed(tool, refOf(state.runId, spec.id, call, options.requestContext), outcome);
}

/** The agent's hooks around a call that runs: `beforeToolCall` may skip it, `afterToolCall` sees how it ended. */
async function withHooks(
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

function hookInput(spec: AgentSpec, options: RunOptions, state: RunState, call: ModelToolCall) {
  const { toolCallId, toolName, args } = call;
  return {
    runId: state.runId,
    agentId: spec.id,
    toolCallId,
    toolName,
    args,
    threadId: options.threadId,
    resourceId: options.resourceId,
    ...(options.requestContext ? { requestContext: options.requestContext } : {}),
  };
}

function outcomeError(outcome: Exclude<ToolCallOutcome, { type: 'result' }>): string {
  return outcome.type === 'declined' ? outcome.message : outcome.error;
}

function runApproved(
  tool: RunnableTool,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  atMostOnce: boolean,
): Promise<ToolCallOutcome> {
  switch (tool.kind) {
    case 'client':
      return clientResult(tool, spec, options, state, call);
    case 'agent':
      return runSubAgent(tool, spec, options, state, call);
    case 'workflow':
      return runWorkflowTool(tool, state, call);
    case 'tool':
      return executeOnWorker(tool, spec, options, state, call, atMostOnce);
  }
}

/** A client tool: the caller supplies the result. */
async function clientResult(
  tool: ToolSpec,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  const display = await waitingDisplay(tool, refOf(state.runId, spec.id, call, options.requestContext), {
    kind: 'client',
    args: call.args,
  });
  const { decision } = await state.waits.forDecision(call, { kind: 'client', askedAt: now(), ...display });
  return operatorOutput(decision.result ?? null);
}

/**
 * Runs the tool as an activity; a tool that suspends waits for resume data, and runs again with it.
 * An approved tool that is not idempotent runs at most once: if its execution is cut off (its worker
 * died, it timed out), whether the side effect happened is not known, and the call waits for someone
 * to resolve it (retry, skip with an output, or fail) rather than being retried blindly.
 */
async function executeOnWorker(
  tool: ToolSpecOf<'tool'>,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  atMostOnce: boolean,
): Promise<ToolCallOutcome> {
  const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(tool, atMostOnce));
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  let resumed: Resolution | undefined;
  let resumeRecorded = false;
  let suspendPayload: JsonValue | undefined;
  let resumeSchema = tool.resumeSchema;
  for (;;) {
    let output;
    const progress = state.stream.progress?.slice();
    try {
      output = await executeTool({
        runId: state.runId,
        agentId: spec.id,
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        threadId: options.threadId,
        resourceId: options.resourceId,
        ...(options.requestContext ? { requestContext: options.requestContext } : {}),
        ...(resumed ? { resume: { data: resumed.decision.resumeData ?? null } } : {}),
        ...(state.stream.publishToken ? { publishToken: state.stream.publishToken } : {}),
        ...(progress ? { progress } : {}),
        // The built-in thread tools (working memory, tasks) write the run's thread with its key.
        ...(state.threadKey ? { turnKey: state.threadKey } : {}),
      });
    } catch (err) {
      state.stream.progress?.settle(progress, undefined);
      if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
      // The data was accepted (a refusal is a result, not a failure); the tool failed after.
      if (resumed && !resumeRecorded) state.recordResume(resumed, undefined);
      resumeRecorded = resumed !== undefined;
      if (!atMostOnce || !cutOff(err)) {
        return { type: 'error', error: `Tool "${call.toolName}" failed: ${activityFailureMessage(err)}` };
      }
      const uncertainty = `${activityFailureMessage(err)}: its worker died or it hung after it started`;
      const display = await waitingDisplay(tool, ref, { kind: 'uncertain', args: call.args });
      const waiting = { kind: 'uncertain' as const, uncertainty, askedAt: now(), ...display };
      const { decision, record } = await state.waits.forDecision(call, waiting);
      if (decision.resolution === 'retry') continue;
      if (decision.resolution === 'skip') return operatorOutput(decision.result ?? null);
      const why = record.reason ? `: ${record.reason}` : '';
      return {
        type: 'error',
        error: `The call of tool "${call.toolName}" was marked failed by ${decidedBy(record)}${why}`,
      };
    }
    state.stream.progress?.settle(progress, output.progressBytes);
    if (resumed && !resumeRecorded) {
      state.recordResume(resumed, output.type === 'resume-rejected' ? output.error : undefined);
    }
    resumeRecorded = false;
    if (output.type === 'result' || output.type === 'error') return output;

    // Suspended, or resume data the tool refused (then it did not run and is still suspended).
    if (output.type === 'suspended') {
      suspendPayload = output.payload;
      // This call's own schema, where the tool narrows its resumeSchema by the call's input.
      resumeSchema = output.resumeSchema ?? tool.resumeSchema;
    }
    const display = await waitingDisplay(tool, ref, { kind: 'suspend', args: call.args, suspendPayload });
    resumed = await state.waits.forDecision(call, {
      kind: 'suspend',
      suspendPayload,
      resumeSchema,
      askedAt: now(),
      ...display,
    });
    const resumeData = await displayed(tool, ref, 'resume', resumed.decision.resumeData ?? null);
    state.stream.publish({
      type: 'tool-call-resumed',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      resumeData,
    });
  }
}

/** An execution cut off from outside (a timeout: its worker died or hung; a cancellation), not a tool's own error. */
function cutOff(err: ActivityFailure): boolean {
  return err.cause instanceof TimeoutFailure || err.cause instanceof CancelledFailure;
}

/** An output someone else supplied (a client tool's result, a skipped call's): text as text, anything else as JSON. */
function operatorOutput(output: JsonValue): ToolCallOutcome {
  const modelOutput =
    typeof output === 'string' ? { type: 'text' as const, value: output } : { type: 'json' as const, value: output };
  return { type: 'result', output, modelOutput };
}

function now(): string {
  return new Date().toISOString();
}

/** What failed inside an activity, rather than the wrapper's "Activity task failed". */
export function activityFailureMessage(err: ActivityFailure): string {
  return err.cause?.message ?? err.message;
}
