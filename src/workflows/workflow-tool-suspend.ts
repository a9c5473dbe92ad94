/**
 * `suspendWorkflowTool`, for a workflow of the user's own that an agent calls as a tool: what it returns
 * to wait for a person (see protocol/workflow-tool.ts). Sandbox-safe.
 */
import { z } from 'zod';
import { WORKFLOW_TOOL_SUSPEND, type WorkflowToolSuspension } from '../protocol/workflow-tool.js';
import { durationMs, type DeadlineDuration } from '../schemas/deadline.js';
import type { JsonSchema, JsonValue } from '../schemas/json.js';

/**
 * Returned by a workflow tool instead of its result, it ends the workflow and makes the agent's call
 * wait for a person, as a tool's `suspend()` does: the stream's `tool-call-suspended`, the inbox,
 * `listSuspendedRuns`, `agentctl resume`, deadlines and notifications see it. Once resumed, the run
 * starts the workflow again with the call's input and `{ resumeData, suspendPayload }` as its second
 * argument, so it goes on from where the payload says it stood.
 *
 * With `deadline` (ms, or `'2h'`, `'3 days'`: from 1 second to 365 days), a call nobody resumed in that
 * time expires, as an approval past its deadline does: the workflow is not started again, a late resume
 * is refused, and the model hears that nobody answered. A deadline has no escalation here: who may
 * decide a call is the agent's policy, which a workflow may not widen.
 *
 * ```ts
 * export async function refundApproval(input: { orderId: string }, resumed?: WorkflowToolResumed) {
 *   if (!resumed) return suspendWorkflowTool({ orderId: input.orderId, ask: 'Refund?' }, { resumeSchema });
 *   return { refunded: (resumed.resumeData as { ok: boolean }).ok };
 * }
 * ```
 */
export function suspendWorkflowTool(
  payload: JsonValue,
  options: { resumeSchema?: JsonSchema | z.ZodType; deadline?: DeadlineDuration } = {},
): WorkflowToolSuspension {
  const unknown = Object.keys(options).filter((key) => key !== 'resumeSchema' && key !== 'deadline');
  if (unknown.length > 0) throw new TypeError(`suspendWorkflowTool: unknown option "${unknown[0]}"`);
  const { resumeSchema, deadline } = options;
  const schema = resumeSchema instanceof z.ZodType ? (z.toJSONSchema(resumeSchema) as JsonSchema) : resumeSchema;
  const after = deadline === undefined ? undefined : durationMs(deadline);
  if (after && 'problem' in after) throw new TypeError(`suspendWorkflowTool: deadline: ${after.problem}`);
  return {
    [WORKFLOW_TOOL_SUSPEND]: 1,
    payload,
    ...(schema ? { resumeSchema: schema } : {}),
    ...(after ? { deadlineMs: after.ms } : {}),
  };
}
