/**
 * Tool calls that run as child workflows: a sub-agent's run (`agent-<key>`) or a Temporal workflow
 * (`workflow-<key>`). Deterministic workflow code.
 */
import { CancellationScope, ChildWorkflowFailure, executeChild } from '@temporalio/workflow';
import type { ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import { inheritedApproval } from '../../approvals/policy.js';
import { errorMessage } from '../../errors.js';
import { SubAgentInputSchema, type AgentSpec, type ToolSpecOf } from '../../schemas/agent-spec.js';
import { safeParse } from '../../schemas/json.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { RunOptions } from '../../schemas/run-options.js';
import type { StoredRunResult } from '../../schemas/run-result.js';
import { subAgentContextOf } from '../../schemas/thread.js';
import { undecodableReason } from '../../schemas/undecodable.js';
import type { AgentRunWorkflow } from '../../protocol/run-messages.js';
import type { RunState } from './run-state.js';
import { startSearchAttributes } from '../../protocol/search-attributes.js';

/**
 * Delegates to a sub-agent: its run is a child workflow with an id of its own (`<run>::<call>`),
 * visible in the Temporal UI under its parent. What it waits on is reported up to this run; below a
 * streamed run, its progress goes to that run (see progress.ts). Its model sees the task passed, and,
 * where the supervisor's `memory.subAgentContext` says `thread`, the thread's recent messages before it.
 */
export async function runSubAgent(
  tool: ToolSpecOf<'agent'>,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  const sub = tool.subAgent;
  const parsed = safeParse(SubAgentInputSchema, call.args);
  if (!parsed.success) return { type: 'error', error: `Invalid arguments for sub-agent "${sub.key}": ${parsed.error}` };
  const args = parsed.data;
  const { threadId, resourceId } = options;
  const readsThread = threadId !== undefined && subAgentContextOf(spec.memory, sub.key) === 'thread';
  const childOptions: RunOptions = {
    ...options.subAgentOptions?.[sub.key],
    ...(threadId ? { threadId } : {}),
    ...(resourceId ? { resourceId } : {}),
    ...(options.requestContext ? { requestContext: options.requestContext } : {}),
    ...inheritedApproval(options),
  };
  // The thread a sub-agent reads is this run's own: not one of another resource named in `subAgentOptions`.
  if (readsThread && !resourceId) delete childOptions.resourceId;
  const progress = state.stream.progress?.forChild(call.toolCallId);
  const input: RunInput = {
    agentId: sub.id,
    messages: [{ role: 'user', content: args.context ? `${args.prompt}\n\nContext: ${args.context}` : args.prompt }],
    options: childOptions,
    ...(state.setup.access.startedBy ? { startedBy: state.setup.access.startedBy } : {}),
    parent: { runId: state.runId, toolCallId: call.toolCallId, ...(readsThread ? { threadContext: true } : {}) },
    ...(progress ? { progress } : {}),
  };
  state.ledger.childStarted(call.toolCallId);
  let trail: StoredRunResult['decisions'] = [];
  try {
    const result = await executeChild<AgentRunWorkflow>('agentRun', {
      workflowId: `${state.runId}::${call.toolCallId}`,
      args: [input],
      typedSearchAttributes: startSearchAttributes(sub.id, childOptions),
      parentClosePolicy: 'REQUEST_CANCEL',
    });
    // A result its worker could not decode (a payload store that lost it, a codec key it lacks).
    const unreadable = undecodableReason(result);
    if (unreadable !== undefined) {
      return { type: 'error', error: `Sub-agent "${sub.key}" failed: its result could not be decoded: ${unreadable}` };
    }
    trail = result.decisions;
    return {
      type: 'result',
      output: { text: result.text, runId: result.runId },
      modelOutput: { type: 'text', value: result.text },
    };
  } catch (err) {
    if (runCancelled()) throw err;
    return { type: 'error', error: `Sub-agent "${sub.key}" failed: ${childFailureMessage(err)}` };
  } finally {
    state.stream.progress?.childEnded(progress);
    state.childFinished(call.toolCallId, trail);
  }
}

/** What failed in a child workflow, rather than the wrapper's "Child Workflow execution failed". */
export function childFailureMessage(err: unknown): string {
  return err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : errorMessage(err);
}

/** Whether this run was asked to stop (as opposed to a child or an activity that was cancelled on its own). */
export function runCancelled(): boolean {
  return CancellationScope.current().consideredCancelled;
}
