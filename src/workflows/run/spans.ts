/**
 * The spans the run opens itself, in a traced run only (see trace-interceptors.ts): one per tool call,
 * and one per wait for a decision inside it. Their times are workflow time. Payloads reach them only
 * as the stream shows them, after the display transforms: never the raw arguments or output of a tool
 * whose display transform changes them.
 */
import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Resolution } from '../../approvals/ledger-effects.js';
import { decidedBy } from '../../approvals/decision-messages.js';
import type { JsonValue } from '../../schemas/json.js';
import { clip } from '../../schemas/limits.js';
import type { RunChunk } from '../../schemas/stream-chunks.js';

/** Span attributes hold a payload's JSON up to this many characters. */
export const MAX_PAYLOAD_ATTRIBUTE_CHARS = 4096;

/** The attribute names: GenAI semantic conventions where they have one, `durable_agents.*` for the rest. */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  stepNumber: 'durable_agents.step',
  outcome: 'durable_agents.tool.outcome',
  error: 'durable_agents.tool.error',
  approvalRequired: 'durable_agents.approval.required',
  decision: 'durable_agents.decision',
  decidedBy: 'durable_agents.decision.by',
  decisionId: 'durable_agents.decision.id',
  changedArguments: 'durable_agents.decision.changed_arguments',
  waitKind: 'durable_agents.wait.kind',
  waitMs: 'durable_agents.wait.ms',
} as const;

const tracer = () => trace.getTracer('durable-agents');

/** Whether the code runs in a traced run: the run's own span is active (see trace-interceptors.ts). */
function traced(): boolean {
  return trace.getActiveSpan() !== undefined;
}

/*
 * The functions below that take a callback return its own promise, untouched, in a run that is not
 * traced: a wrapper would add microtask turns, which can change the order in which parallel tool calls
 * issue their commands, and runs recorded before tracing existed must replay command for command.
 */

/**
 * Runs `fn` inside a span named `name`, a child of the active one. A throw marks the span failed with
 * the error's name only: what the run's code throws is no place for payloads.
 */
async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'thrown' });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A payload as a span attribute: its JSON, clipped. */
export function payloadAttribute(value: JsonValue): string {
  return clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'), MAX_PAYLOAD_ATTRIBUTE_CHARS);
}

/** The span of one tool call (`execute_tool <name>`), from the model's call to its outcome. */
export function toolCallSpan<T>(
  call: { toolCallId: string; toolName: string; kind: string | undefined; stepNumber: number },
  /** The arguments as the stream shows them. */
  shownArgs: JsonValue,
  fn: (span?: Span) => Promise<T>,
): Promise<T> {
  if (!traced()) return fn();
  const attributes: Attributes = {
    [ATTR.operation]: 'execute_tool',
    [ATTR.toolName]: call.toolName,
    [ATTR.toolCallId]: call.toolCallId,
    [ATTR.stepNumber]: call.stepNumber,
    [ATTR.toolArguments]: payloadAttribute(shownArgs),
    ...(call.kind ? { [ATTR.toolType]: call.kind } : {}),
  };
  return inSpan(`execute_tool ${call.toolName}`, attributes, fn);
}

/** Records on a tool call's span how it ended, from its chunk as the stream shows it. */
export function recordOutcome(span: Span | undefined, shown: RunChunk): void {
  if (!span) return;
  if (shown.type === 'tool-result') {
    span.setAttributes({ [ATTR.outcome]: 'result', [ATTR.toolResult]: payloadAttribute(shown.output) });
  } else if (shown.type === 'tool-error') {
    const error = payloadAttribute(shown.error);
    span.setAttributes({ [ATTR.outcome]: shown.declined ? 'declined' : 'error', [ATTR.error]: error });
    if (!shown.declined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  }
}

/** Marks the active tool call span: whether the call waits for an approval first. */
export function recordApprovalRequired(required: boolean): void {
  trace.getActiveSpan()?.setAttribute(ATTR.approvalRequired, required);
}

/**
 * Runs a wait for a decision (`await <kind> <tool>`: approval, suspension, a client's result, an
 * uncertain call's resolution) in a span of its own that ends when the decision arrives, and records
 * the decision on it and on the tool call's span. Arguments changed by the approver are noted, not
 * shown: they reach the stream only through the display transforms, when the tool runs.
 */
export function waitSpan(kind: string, toolName: string, wait: () => Promise<Resolution>): Promise<Resolution> {
  if (!traced()) return wait();
  const toolSpan = trace.getActiveSpan();
  const since = Date.now();
  return inSpan(`await ${kind} ${toolName}`, { [ATTR.waitKind]: kind }, async (span) => {
    const resolution = await wait();
    const { record } = resolution;
    const by = decidedBy(record);
    const decision: Attributes = {
      [ATTR.decision]: resolution.kind,
      [ATTR.decisionId]: record.decisionId,
      [ATTR.waitMs]: Date.now() - since,
      ...(by ? { [ATTR.decidedBy]: by } : {}),
      ...(record.approved ? { [ATTR.changedArguments]: true } : {}),
    };
    span.setAttributes(decision);
    toolSpan?.setAttributes({ ...decision, [ATTR.waitKind]: kind });
    return resolution;
  });
}
