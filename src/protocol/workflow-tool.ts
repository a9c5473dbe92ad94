/**
 * How a workflow of the user's own, called by an agent as a tool (`defineWorkflowTool`), waits for a
 * person: it returns a suspension instead of its result, and ends. The agent's run lists the call as
 * suspended, like a tool's `suspend()`, takes the resume decision through its own checks, and starts the
 * workflow again with the resume data and the payload it suspended with. Shared by the run and
 * `durable-agents/workflow`; sandbox-safe.
 */
import type { JsonSchema, JsonValue } from '../schemas/json.js';

/** The key a suspension is recognised by in a workflow tool's result. */
export const WORKFLOW_TOOL_SUSPEND = '$durableAgentsSuspend';

/** What a workflow tool returns to wait for a person: see `suspendWorkflowTool`. */
export interface WorkflowToolSuspension {
  readonly [WORKFLOW_TOOL_SUSPEND]: 1;
  readonly payload: JsonValue;
  readonly resumeSchema?: JsonSchema;
  /** How long the call may wait for a person (ms) before it expires; see `suspendWorkflowTool`. */
  readonly deadlineMs?: number;
}

/** The second argument a workflow tool is started with again once a person resumed it. */
export interface WorkflowToolResumed<R extends JsonValue = JsonValue> {
  /** What the person answered, checked against the `resumeSchema` the workflow suspended with. */
  resumeData: R;
  /** The payload it suspended with: where it stood, for it to go on from there. */
  suspendPayload: JsonValue;
}

/** A suspension as the run reads it from a workflow's result: `deadlineMs` is as sent, checked by the run. */
export interface ReadSuspension {
  payload: JsonValue;
  resumeSchema?: JsonSchema;
  deadlineMs?: unknown;
}

/** The suspension in a workflow tool's result, or undefined when the result is a result. */
export function suspensionOf(output: unknown): ReadSuspension | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  const record = output as Record<string, unknown>;
  if (record[WORKFLOW_TOOL_SUSPEND] !== 1) return undefined;
  const schema = record.resumeSchema;
  const resumeSchema =
    typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as JsonSchema) : undefined;
  return {
    payload: (record.payload ?? null) as JsonValue,
    ...(resumeSchema ? { resumeSchema } : {}),
    ...('deadlineMs' in record ? { deadlineMs: record.deadlineMs } : {}),
  };
}
