/**
 * Tool calls that run as child workflows: a sub-agent's run (`agent-<key>`) or a Temporal workflow
 * (`workflow-<key>`). Deterministic workflow code.
 */
import { CancellationScope, ChildWorkflowFailure, executeChild } from '@temporalio/workflow';
import type { ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import { inheritedApproval } from '../../approvals/policy.js';
import { errorMessage } from '../../errors.js';
import { SubAgentInputSchema, type AgentSpec, type ToolSpecOf } from '../../schemas/agent-spec.js';
import { readJsonSchema, safeParse, type JsonSchema, type JsonValue } from '../../schemas/json.js';
import { INLINE_PAYLOAD_LIMITS, jsonBytes, kib } from '../../schemas/limits.js';
import { checkingCostProblem, checkWorkProblem } from '../../schemas/schema-cost.js';
import { suspensionOf, type WorkflowToolResumed } from '../../protocol/workflow-tool.js';
import { displayed, refOf, waitingDisplay, type CallRef } from './payload-views.js';
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

/**
 * Runs a Temporal workflow as a child, with the call's input, and checks its result against the output
 * schema. A workflow that returns a suspension (`suspendWorkflowTool`) makes the call wait as a tool's
 * `suspend()` does; resumed (the data checked against its resume schema here), the workflow runs again as
 * a new child, `<run>::<call>::<n>`, with `{ resumeData, suspendPayload }` beside its input.
 */
export async function runWorkflowTool(
  tool: ToolSpecOf<'workflow'>,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  const wf = tool.workflow;
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  let resumed: WorkflowToolResumed | undefined;
  for (let attempt = 0; ; attempt++) {
    let output: JsonValue;
    try {
      output = await executeChild<(input: JsonValue, resumed?: WorkflowToolResumed) => Promise<JsonValue>>(wf.type, {
        workflowId: `${state.runId}::${call.toolCallId}${attempt > 0 ? `::${attempt}` : ''}`,
        args: resumed ? [call.args, resumed] : [call.args],
        ...(wf.taskQueue ? { taskQueue: wf.taskQueue } : {}),
        parentClosePolicy: 'REQUEST_CANCEL',
      });
    } catch (err) {
      if (runCancelled()) throw err;
      return { type: 'error', error: `Workflow "${wf.type}" failed: ${childFailureMessage(err)}` };
    }
    const unreadable = undecodableReason(output);
    if (unreadable !== undefined) {
      return { type: 'error', error: `Workflow "${wf.type}" failed: its result could not be decoded: ${unreadable}` };
    }
    const suspension = suspensionOf(output);
    if (!suspension) {
      const problem = workflowOutputProblem(tool, output);
      if (problem) return { type: 'error', error: problem };
      return { type: 'result', output: output ?? null, modelOutput: { type: 'json', value: output ?? null } };
    }
    const problem = suspensionProblem(suspension, spec);
    if (problem) return { type: 'error', error: `Workflow "${wf.type}" suspended with ${problem}` };
    resumed = await resumedWith(tool, ref, state, call, suspension);
  }
}

/** Waits until the call is resumed with data that fits the workflow's resume schema; a misfit is refused. */
async function resumedWith(
  tool: ToolSpecOf<'workflow'>,
  ref: CallRef,
  state: RunState,
  call: ModelToolCall,
  { payload, resumeSchema }: { payload: JsonValue; resumeSchema?: JsonSchema },
): Promise<WorkflowToolResumed> {
  for (;;) {
    const display = await waitingDisplay(tool, ref, { kind: 'suspend', args: call.args, suspendPayload: payload });
    const resolution = await state.waits.forDecision(call, {
      kind: 'suspend',
      suspendPayload: payload,
      ...(resumeSchema ? { resumeSchema } : {}),
      askedAt: new Date().toISOString(),
      ...display,
    });
    const resumeData = resolution.decision.resumeData ?? null;
    const rejection = resumeSchema ? resumeDataProblem(resumeSchema, resumeData) : undefined;
    state.recordResume(resolution, rejection);
    if (rejection !== undefined) continue;
    const shown = await displayed(tool, ref, 'resume', resumeData);
    state.stream.publish({
      type: 'tool-call-resumed',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      resumeData: shown,
    });
    return { resumeData, suspendPayload: payload };
  }
}

/** Why a workflow's suspension is not taken: a payload over a tool's bound, or a resume schema too costly to check. */
function suspensionProblem(
  suspension: { payload: JsonValue; resumeSchema?: JsonSchema },
  spec: AgentSpec,
): string | undefined {
  const max = (spec.payloadLimits ?? INLINE_PAYLOAD_LIMITS).maxToolOutputBytes;
  const bytes = jsonBytes(suspension.payload);
  if (bytes > max) return `a payload of ${kib(bytes)}, over the ${kib(max)} a tool's suspend payload may have`;
  if (suspension.resumeSchema) {
    const costly = checkingCostProblem(suspension.resumeSchema);
    if (costly) return `a resume schema that is not checked: ${costly}`;
  }
  return undefined;
}

/** Why resume data does not fit the workflow's resume schema, or undefined when it does. */
function resumeDataProblem(schema: JsonSchema, data: JsonValue): string | undefined {
  const costly = checkWorkProblem(schema, data);
  if (costly) return `the resume data is not checked: ${costly}`;
  const read = readJsonSchema(schema);
  if ('unreadable' in read) return `the workflow's resume schema cannot be checked in the run (${read.unreadable})`;
  const parsed = safeParse(read.schema, data);
  return parsed.success ? undefined : `the resume data does not fit the workflow's resume schema: ${parsed.error}`;
}

/**
 * Why a workflow tool's result is not passed on: it does not fit the tool's output schema, or the
 * schema cannot be checked in the run (zod cannot rebuild it), which is refused rather than skipped.
 */
export function workflowOutputProblem(tool: ToolSpecOf<'workflow'>, output: JsonValue): string | undefined {
  if (!tool.outputSchema) return undefined;
  const read = readJsonSchema(tool.outputSchema);
  if ('unreadable' in read) {
    return `Workflow "${tool.workflow.type}"'s output schema cannot be checked in the run (${read.unreadable})`;
  }
  const checked = safeParse(read.schema, output);
  if (checked.success) return undefined;
  return `Workflow "${tool.workflow.type}" returned output that does not fit its output schema: ${checked.error}`;
}

/** What failed in a child workflow, rather than the wrapper's "Child Workflow execution failed". */
function childFailureMessage(err: unknown): string {
  return err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : errorMessage(err);
}

/** Whether this run was asked to stop (as opposed to a child or an activity that was cancelled on its own). */
export function runCancelled(): boolean {
  return CancellationScope.current().consideredCancelled;
}
