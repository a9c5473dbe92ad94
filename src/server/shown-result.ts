/**
 * A run's result as the HTTP server answers it: what the run's stream showed, never the raw values a
 * display transform hides there. The library's `generate` keeps the raw values (they are the
 * application's); a caller over HTTP, like a reader of the stream, sees the display form.
 */
import type { JsonValue } from '../schemas/json.js';
import type { Message } from '../schemas/message.js';
import { publicToolError } from './public-errors.js';
import type { RunResult, ToolCallRecord, ToolResultRecord } from '../schemas/run-result.js';
import { shownPending, type RunStreamChunk } from '../schemas/stream-chunks.js';

/** What the answer holds in place of a value the stream did not show. */
export const NOT_SHOWN = '[not shown]';

/** The value the stream showed (a tool's output may be null), else {@link NOT_SHOWN}. */
function shownOr(values: Map<string, JsonValue>, toolCallId: string): JsonValue {
  return values.has(toolCallId) ? values.get(toolCallId)! : NOT_SHOWN;
}

/** The arguments and outcomes the stream showed, by tool call id. */
export interface Shown {
  args: Map<string, JsonValue>;
  outputs: Map<string, JsonValue>;
  errors: Map<string, string>;
}

export function shownValues(chunks: Iterable<RunStreamChunk>): Shown {
  const shown: Shown = { args: new Map(), outputs: new Map(), errors: new Map() };
  for (const chunk of chunks) {
    if (chunk.type === 'tool-call') shown.args.set(chunk.toolCallId, chunk.args);
    else if (chunk.type === 'tool-result') shown.outputs.set(chunk.toolCallId, chunk.output);
    else if (chunk.type === 'tool-error') shown.errors.set(chunk.toolCallId, publicToolError(chunk.error));
  }
  return shown;
}

/**
 * A conversation message with its tool calls' inputs and tool results' outputs as the stream showed
 * them (a display transform's form), and {@link NOT_SHOWN} for a call the stream did not show.
 */
export function shownMessage(message: Message, shown: Shown): Message {
  if (!Array.isArray(message.content)) return message;
  const content = message.content.map((part) => {
    const id = typeof part.toolCallId === 'string' ? part.toolCallId : undefined;
    if (id === undefined) return part;
    if (part.type === 'tool-call') return { ...part, input: shownOr(shown.args, id) };
    if (part.type !== 'tool-result') return part;
    if (shown.errors.has(id)) return { ...part, output: { type: 'error-text', value: shown.errors.get(id)! } };
    return { ...part, output: { type: 'json', value: shownOr(shown.outputs, id) } };
  });
  return { ...message, content };
}

/**
 * The result with every tool call's arguments, output and error as the run's stream (`chunks`, the run's
 * from its start) showed them, in its steps and in its conversation alike, and the waiting calls as the
 * stream's finish chunk lists them.
 */
export function shownResult(result: RunResult, chunks: Iterable<RunStreamChunk>): RunResult {
  const shown = shownValues(chunks);
  // A call the chunks did not show (decided by someone else between the stream's end and the read of
  // the result) is answered without its values: the raw ones may be what a display transform hides.
  const call = (c: ToolCallRecord): ToolCallRecord => ({ ...c, args: shownOr(shown.args, c.toolCallId) });
  const outcome = (r: ToolResultRecord): ToolResultRecord =>
    r.isError
      ? { ...r, error: shown.errors.has(r.toolCallId) ? shown.errors.get(r.toolCallId)! : NOT_SHOWN }
      : { ...r, output: shownOr(shown.outputs, r.toolCallId) };
  const { suspendPayload } = result;
  const waiting = suspendPayload
    ? result.pendingToolCalls.find((p) => p.toolCallId === suspendPayload.toolCallId)
    : undefined;
  // The waiting call as the stream shows it: its display form under a transform, its own values with
  // none, and no values when the result lists no such call (it cannot say what the stream showed).
  const shownSuspend = (payload: NonNullable<RunResult['suspendPayload']>) => {
    if (!waiting) {
      return { ...payload, args: NOT_SHOWN, ...(payload.payload !== undefined ? { payload: NOT_SHOWN } : {}) };
    }
    if (!waiting.display) return payload;
    const { payload: _raw, ...withoutPayload } = payload;
    return {
      ...withoutPayload,
      args: waiting.display.args,
      ...(waiting.display.suspendPayload !== undefined ? { payload: waiting.display.suspendPayload } : {}),
    };
  };
  return {
    ...result,
    steps: result.steps.map((step) => ({
      ...step,
      toolCalls: step.toolCalls.map(call),
      toolResults: step.toolResults.map(outcome),
    })),
    toolCalls: result.toolCalls.map(call),
    toolResults: result.toolResults.map(outcome),
    messages: result.messages.map((m) => shownMessage(m, shown)),
    pendingToolCalls: result.pendingToolCalls.map(shownPending),
    ...(suspendPayload ? { suspendPayload: shownSuspend(suspendPayload) } : {}),
  };
}
