/**
 * One tool call of a run, whatever kind of tool it is: after approval when the policy asks for it,
 * then as an activity on the worker (with suspension and resume), a client's result, a sub-agent's
 * run or a workflow. Every way it can go wrong becomes a tool error the model sees.
 */
import type { ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import { agentRequires, needsApproval } from '../../approvals/policy.js';
import { deadlineFields, deadlineOf } from '../../approvals/deadline.js';
import { decidedBy, declinedOutcome, expiredMessage } from '../../approvals/decision-messages.js';
import type { AgentSpec, ToolSpec } from '../../schemas/agent-spec.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { takes } from '../patches.js';
import { runSubAgent } from './delegation.js';
import { runWorkflowTool } from './workflow-tool-run.js';
import { approvalOf, beforeAPerson, schemaForDecisions } from './approval-wait.js';
import { refOf, transcribed, waitingDisplay } from './payload-views.js';
import type { RunState } from './run-state.js';
import { recordApprovalRequired } from './spans.js';
import { executeOnWorker } from './tool-activity.js';
import { withHooks } from './tool-hooks.js';
import { operatorOutput, withChangedArguments } from './transcript.js';

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
  // One approval, one side effect: unless the tool says it is idempotent, it runs at most once.
  const atMostOnce = tool.kind === 'tool' && !tool.idempotent;
  // The agent's approval rules first, where it has them: their verdict spares a person the decision.
  let askedByRule = false;
  if (spec.access?.rules && takes('approvalRules')) {
    const ruled = state.ledger.ruled(call, new Date().toISOString(), agentRequires(tool));
    state.apply(ruled.effects);
    askedByRule = ruled.asked ?? false;
    if (ruled.verdict === 'allow') return runCall(tool, spec, options, state, call, atMostOnce);
    if (ruled.verdict === 'deny') {
      return declinedOutcome(spec.declineMessage, call.toolName, decidedBy(ruled.record), ruled.record.reason);
    }
  }
  // A preview, or the agent's judge, before a person decides. Runs from before took neither: this path's
  // awaits would move their concurrent calls' commands, so theirs below stays as it was.
  if (beforeAPerson(tool, spec)) {
    const decided = await approvalOf(tool, spec, options, state, call, askedByRule);
    if (!decided.approved) return decided.outcome;
    const outcome = await runCall(tool, spec, options, state, decided.call, atMostOnce, decided.previewHash);
    if (decided.changedBy === undefined) return outcome;
    return withChangedArguments(outcome, decided.call.args, decided.changedBy);
  }
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  // Asked before the display is made (as runs recorded before deadlines did): the deadline counts from here.
  const askedAt = new Date().toISOString();
  const waiting = {
    kind: 'approval' as const,
    askedAt,
    inputSchema: schemaForDecisions(tool),
    ...(await waitingDisplay(tool, ref, { kind: 'approval', args: call.args })),
    ...deadlineFields(askedAt, deadlineOf(tool, spec)),
  };
  const { kind, record, decision } = await state.waits.forDecision(call, waiting);
  if (kind === 'decline') {
    return declinedOutcome(spec.declineMessage, call.toolName, decidedBy(record), record.reason);
  }
  // Nobody decided in time: the call did not run, and the model hears that it expired (not that it was declined).
  if (kind === 'expire') return { type: 'error', error: expiredMessage(call.toolName, askedAt, record.at) };
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
  previewHash?: string,
): Promise<ToolCallOutcome> {
  const outcome = await withHooks(spec, options, state, call, () =>
    runApproved(tool, spec, options, state, call, atMostOnce, previewHash),
  );
  return transcribed(tool, refOf(state.runId, spec.id, call, options.requestContext), outcome);
}

function runApproved(
  tool: RunnableTool,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  atMostOnce: boolean,
  previewHash: string | undefined,
): Promise<ToolCallOutcome> {
  switch (tool.kind) {
    case 'client':
      return clientResult(tool, spec, options, state, call);
    case 'agent':
      return runSubAgent(tool, spec, options, state, call);
    case 'workflow':
      return runWorkflowTool(tool, spec, options, state, call);
    case 'tool':
      return executeOnWorker(tool, spec, options, state, call, atMostOnce, previewHash);
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
  const { decision } = await state.waits.forDecision(call, {
    kind: 'client',
    askedAt: new Date().toISOString(),
    ...display,
  });
  return operatorOutput(decision.result ?? null);
}
