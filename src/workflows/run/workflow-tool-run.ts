/**
 * A Temporal workflow of the user's own called as a tool (`workflow-<key>`): a child workflow whose
 * result is checked, and which may wait for a person (`suspendWorkflowTool`). Deterministic workflow code.
 */
import { executeChild } from '@temporalio/workflow';
import type { ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import { deadlineFields } from '../../approvals/deadline.js';
import { expiredSuspensionMessage } from '../../approvals/decision-messages.js';
import type { AgentSpec, ToolSpecOf } from '../../schemas/agent-spec.js';
import { MAX_DEADLINE_MS, MIN_DEADLINE_MS } from '../../schemas/deadline.js';
import { readJsonSchema, safeParse, type JsonSchema, type JsonValue } from '../../schemas/json.js';
import { INLINE_PAYLOAD_LIMITS, jsonBytes, kib } from '../../schemas/limits.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { checkingCostProblem, checkWorkProblem } from '../../schemas/schema-cost.js';
import { undecodableReason } from '../../schemas/undecodable.js';
import { suspensionOf, type ReadSuspension, type WorkflowToolResumed } from '../../protocol/workflow-tool.js';
import { childFailureMessage, runCancelled } from './delegation.js';
import { displayed, refOf, waitingDisplay, type CallRef } from './payload-views.js';
import type { RunState } from './run-state.js';

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
    const answer = await resumedWith(tool, ref, state, call, suspension as CheckedSuspension);
    if ('expired' in answer) return { type: 'error', error: answer.expired };
    resumed = answer;
  }
}

/** A suspension whose deadline, when it has one, is a number of ms in bounds (see {@link suspensionProblem}). */
type CheckedSuspension = Omit<ReadSuspension, 'deadlineMs'> & { deadlineMs?: number };

/**
 * Waits until the call is resumed with data that fits the workflow's resume schema (a misfit is refused),
 * or until its deadline, counted from the first ask, passes: then the model is told that nobody answered.
 */
async function resumedWith(
  tool: ToolSpecOf<'workflow'>,
  ref: CallRef,
  state: RunState,
  call: ModelToolCall,
  { payload, resumeSchema, deadlineMs }: CheckedSuspension,
): Promise<WorkflowToolResumed | { expired: string }> {
  const askedAt = new Date().toISOString();
  const deadline = deadlineMs === undefined ? undefined : deadlineFields(askedAt, { afterMs: deadlineMs });
  for (;;) {
    const display = await waitingDisplay(tool, ref, { kind: 'suspend', args: call.args, suspendPayload: payload });
    const resolution = await state.waits.forDecision(call, {
      kind: 'suspend',
      suspendPayload: payload,
      ...(resumeSchema ? { resumeSchema } : {}),
      askedAt: deadline ? askedAt : new Date().toISOString(),
      ...display,
      ...deadline,
    });
    if (resolution.kind === 'expire')
      return { expired: expiredSuspensionMessage(call.toolName, askedAt, resolution.record.at) };
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
function suspensionProblem(suspension: ReadSuspension, spec: AgentSpec): string | undefined {
  const { deadlineMs } = suspension;
  if (
    deadlineMs !== undefined &&
    !(Number.isInteger(deadlineMs) && Number(deadlineMs) >= MIN_DEADLINE_MS && Number(deadlineMs) <= MAX_DEADLINE_MS)
  ) {
    // Described without JSON.stringify, which throws on what a custom payload converter may make (a BigInt).
    const shown = typeof deadlineMs === 'number' ? String(deadlineMs) : `a ${typeof deadlineMs}`;
    return `a deadline of ${shown} ms, which is not between 1 second and 365 days`;
  }
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
