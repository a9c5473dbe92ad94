/**
 * One tool call of a run, whatever kind of tool it is: after approval when the policy asks for it,
 * then as an activity on the worker (with suspension and resume), a client's result, a sub-agent's
 * run or a workflow. Every way it can go wrong becomes a tool error the model sees.
 */
import { ActivityFailure, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../activities/contracts.js';
import type { Resolution } from '../approvals/ledger-effects.js';
import { needsApproval } from '../approvals/policy.js';
import { decidedBy, declineMessage } from '../approvals/rules.js';
import type { AgentSpec, ToolSpec, ToolSpecOf } from '../schemas/agent-spec.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunOptions } from '../schemas/run-options.js';
import { runCancelled, runSubAgent, runWorkflowTool } from './delegation.js';
import type { RunState } from './run-state.js';
import { withChangedArguments } from './transcript.js';

/**
 * Tools run at least once (an activity may be retried after a worker dies), so tools get an
 * idempotency key; the default retry gives up after 3 attempts so that a broken tool becomes an
 * error the model sees rather than a run that retries forever.
 */
const DEFAULT_TOOL_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

function toolActivityOptions(tool: ToolSpecOf<'tool'>): ActivityOptions {
  const custom = tool.activity;
  if (!custom) return DEFAULT_TOOL_ACTIVITY;
  return {
    startToCloseTimeout: custom.startToCloseTimeout ?? DEFAULT_TOOL_ACTIVITY.startToCloseTimeout,
    heartbeatTimeout: custom.heartbeatTimeout,
    retry: { ...DEFAULT_TOOL_ACTIVITY.retry, ...custom.retry },
  };
}

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

  if (!needsApproval(options, tool)) return runApproved(tool, spec, options, state, call);
  const waiting = { kind: 'approval' as const, askedAt: new Date().toISOString(), inputSchema: tool.inputSchema };
  const { kind, record, decision } = await state.waitForDecision(call, waiting);
  if (kind === 'decline') {
    return { type: 'declined', message: declineMessage(call.toolName, decidedBy(record), record.reason) };
  }
  if (!record.approved || decision.args === undefined) return runApproved(tool, spec, options, state, call);
  // Approved with changed arguments (the trail may only mention large ones): they run, and the model is told.
  const outcome = await runApproved(tool, spec, options, state, { ...call, args: decision.args });
  return withChangedArguments(outcome, decision.args, decidedBy(record));
}

function runApproved(
  tool: ToolSpec,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  switch (tool.kind) {
    case 'client':
      return clientResult(state, call);
    case 'agent':
      return runSubAgent(tool, options, state, call);
    case 'workflow':
      return runWorkflowTool(tool, state, call);
    case 'tool':
      return executeOnWorker(tool, spec, options, state, call);
  }
}

/** A client tool: the caller supplies the result. */
async function clientResult(state: RunState, call: ModelToolCall): Promise<ToolCallOutcome> {
  const { decision } = await state.waitForDecision(call, { kind: 'client', askedAt: new Date().toISOString() });
  const output = decision.result ?? null;
  const modelOutput =
    typeof output === 'string' ? { type: 'text' as const, value: output } : { type: 'json' as const, value: output };
  return { type: 'result', output, modelOutput };
}

/** Runs the tool as an activity; a tool that suspends waits for resume data, and runs again with it. */
async function executeOnWorker(
  tool: ToolSpecOf<'tool'>,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(tool));
  let resumed: Resolution | undefined;
  let suspendPayload: JsonValue | undefined;
  for (;;) {
    let output;
    try {
      output = await executeTool({
        runId: state.runId,
        agentId: spec.id,
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        threadId: options.threadId,
        resourceId: options.resourceId,
        ...(resumed ? { resume: { data: resumed.decision.resumeData ?? null } } : {}),
      });
    } catch (err) {
      if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
      // The data was accepted (a refusal is a result, not a failure); the tool failed after.
      if (resumed) state.recordResume(resumed, undefined);
      return { type: 'error', error: `Tool "${call.toolName}" failed: ${activityFailureMessage(err)}` };
    }
    if (resumed) state.recordResume(resumed, output.type === 'resume-rejected' ? output.error : undefined);
    if (output.type === 'result' || output.type === 'error') return output;

    // Suspended, or resume data the tool refused (then it did not run and is still suspended).
    if (output.type === 'suspended') suspendPayload = output.payload;
    resumed = await state.waitForDecision(call, {
      kind: 'suspend',
      suspendPayload,
      resumeSchema: tool.resumeSchema,
      askedAt: new Date().toISOString(),
    });
  }
}

/** What failed inside an activity, rather than the wrapper's "Activity task failed". */
export function activityFailureMessage(err: ActivityFailure): string {
  return err.cause?.message ?? err.message;
}
