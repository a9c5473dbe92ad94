/**
 * Tool calls that run as child workflows: a sub-agent's run (`agent-<key>`) or a Temporal workflow
 * (`workflow-<key>`). Deterministic workflow code.
 */
import { CancellationScope, ChildWorkflowFailure, executeChild } from '@temporalio/workflow';
import { z } from 'zod';
import type { ModelToolCall, ToolCallOutcome } from '../activities/contracts.js';
import type { JsonValue, RunInput, RunOptions, RunResult, ToolSpec } from '../schemas.js';
import type { agentRun } from './agent-run.js';
import type { RunState } from './run-state.js';
import { safeParse } from './safe-parse.js';
import { startSearchAttributes } from './search-attributes.js';

/**
 * Delegates to a sub-agent: its run is a child workflow with an id of its own (`<run>::<call>`),
 * visible in the Temporal UI under its parent. What it waits on is reported up to this run.
 */
export async function runSubAgent(
  tool: ToolSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  const sub = tool.subAgent!;
  const args = call.args as { prompt: string; context?: string };
  const childOptions: RunOptions = {
    ...options.subAgentOptions?.[sub.key],
    ...(options.threadId ? { threadId: options.threadId } : {}),
    ...(options.resourceId ? { resourceId: options.resourceId } : {}),
    // Approval of every call holds for the whole chain (it is also the fail-safe for a function given as the policy).
    ...(options.requireToolApproval ? { requireToolApproval: true } : {}),
  };
  const input: RunInput = {
    agentId: sub.id,
    messages: [{ role: 'user', content: args.context ? `${args.prompt}\n\nContext: ${args.context}` : args.prompt }],
    options: childOptions,
    parent: { runId: state.runId, toolCallId: call.toolCallId },
  };
  state.childStarted(call.toolCallId);
  let trail: RunResult['decisions'] = [];
  try {
    const result = await executeChild<typeof agentRun>('agentRun', {
      workflowId: `${state.runId}::${call.toolCallId}`,
      args: [input],
      typedSearchAttributes: startSearchAttributes(sub.id, childOptions),
      parentClosePolicy: 'REQUEST_CANCEL',
    });
    trail = result.decisions;
    return {
      type: 'result',
      output: { text: result.text, runId: result.runId },
      modelOutput: { type: 'text', value: result.text },
    };
  } catch (err) {
    if (runCancelled()) throw err;
    return {
      type: 'error',
      error: `Sub-agent "${sub.key}" failed: ${err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : String(err)}`,
    };
  } finally {
    state.childFinished(call.toolCallId, trail);
  }
}

/** Runs a Temporal workflow as a child, with the call's input, and checks its result against the output schema. */
export async function runWorkflowTool(tool: ToolSpec, state: RunState, call: ModelToolCall): Promise<ToolCallOutcome> {
  const wf = tool.workflow!;
  let output: JsonValue;
  try {
    output = await executeChild<(input: JsonValue) => Promise<JsonValue>>(wf.type, {
      workflowId: `${state.runId}::${call.toolCallId}`,
      args: [call.args],
      ...(wf.taskQueue ? { taskQueue: wf.taskQueue } : {}),
      parentClosePolicy: 'REQUEST_CANCEL',
    });
  } catch (err) {
    if (runCancelled()) throw err;
    return {
      type: 'error',
      error: `Workflow "${wf.type}" failed: ${err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : String(err)}`,
    };
  }
  if (tool.outputSchema) {
    const checked = safeParse(z.fromJSONSchema(tool.outputSchema as Parameters<typeof z.fromJSONSchema>[0]), output);
    if (!checked.success)
      return {
        type: 'error',
        error: `Workflow "${wf.type}" returned output that does not fit its output schema: ${checked.error}`,
      };
  }
  return { type: 'result', output: output ?? null, modelOutput: { type: 'json', value: output ?? null } };
}

/** Whether this run was asked to stop (as opposed to a child or an activity that was cancelled on its own). */
export function runCancelled(): boolean {
  return CancellationScope.current().consideredCancelled;
}
