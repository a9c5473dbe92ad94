/**
 * A run's result as the HTTP server answers it: what the run's stream showed, never the raw values a
 * display transform hides there. The library's `generate` keeps the raw values (they are the
 * application's); a caller over HTTP, like a reader of the stream, sees the display form.
 */
import type { JsonValue } from '../schemas/json.js';
import type { Message } from '../schemas/message.js';
import type { ShownCalls } from '../schemas/thread.js';
import { publicToolError } from './public-errors.js';
import type { RunResult, ToolCallRecord, ToolResultRecord } from '../schemas/run-result.js';
import { shownPending } from '../schemas/shown-pending.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';

/** What the answer holds in place of a value the stream did not show. */
export const NOT_SHOWN = '[not shown]';

/** The value the stream showed (a tool's output may be null), else {@link NOT_SHOWN}. */
function shownOr(values: Map<string, JsonValue>, toolCallId: string): JsonValue {
  return values.has(toolCallId) ? values.get(toolCallId)! : NOT_SHOWN;
}

/** The arguments and outcomes the stream showed, by tool call id. */
interface Shown {
  args: Map<string, JsonValue>;
  outputs: Map<string, JsonValue>;
  errors: Map<string, string>;
}

function shownValues(chunks: Iterable<RunStreamChunk>): Shown {
  const shown: Shown = { args: new Map(), outputs: new Map(), errors: new Map() };
  for (const chunk of chunks) {
    if (chunk.type === 'tool-call') shown.args.set(chunk.toolCallId, chunk.args);
    else if (chunk.type === 'tool-result') shown.outputs.set(chunk.toolCallId, chunk.output);
    else if (chunk.type === 'tool-error') shown.errors.set(chunk.toolCallId, publicToolError(chunk.error));
  }
  return shown;
}

/**
 * How a person is shown one call of a conversation: its display forms, `null` for a call whose values
 * are not to be shown, `undefined` for one shown as it is (its tool has no display transform).
 */
export type CallView = (
  toolCallId: string,
) => { input?: JsonValue; output?: JsonValue; error?: string } | null | undefined;

/** A conversation message with its tool calls' inputs and results' outputs as `view` says to show them. */
export function shownMessage(message: Message, view: CallView): Message {
  if (!Array.isArray(message.content)) return message;
  const content = message.content.map((part) => {
    const id = typeof part.toolCallId === 'string' ? part.toolCallId : undefined;
    if (id === undefined || (part.type !== 'tool-call' && part.type !== 'tool-result')) return part;
    const shown = view(id);
    if (shown === undefined) return part;
    if (part.type === 'tool-call') return { ...part, input: shown?.input ?? NOT_SHOWN };
    if (shown?.error !== undefined) return { ...part, output: { type: 'error-text', value: shown.error } };
    return { ...part, output: { type: 'json', value: shown?.output ?? NOT_SHOWN } };
  });
  return { ...message, content };
}

/** The thread's messages as a person is shown them: its calls in their display forms where it has them. */
export function shownThreadMessages<T extends { messages: Message[]; shown?: ShownCalls }>(thread: T): T {
  const { shown, ...rest } = thread;
  if (!shown) return thread;
  const view: CallView = (id) => (id in shown ? shown[id] : undefined);
  return { ...rest, messages: thread.messages.map((m) => shownMessage(m, view)) } as T;
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
  const { finishReason: _finishReason, suspendPayload: _suspendPayload, ...rest } = result;
  return {
    ...rest,
    steps: result.steps.map((step) => ({
      ...step,
      toolCalls: step.toolCalls.map(call),
      toolResults: step.toolResults.map(outcome),
    })),
    toolCalls: result.toolCalls.map(call),
    toolResults: result.toolResults.map(outcome),
    // A call the stream did not show is not shown: the conversation may hold earlier runs' calls.
    messages: result.messages.map((m) =>
      shownMessage(m, (id) =>
        shown.args.has(id) || shown.outputs.has(id) || shown.errors.has(id)
          ? {
              ...(shown.args.has(id) ? { input: shown.args.get(id)! } : {}),
              ...(shown.outputs.has(id) ? { output: shown.outputs.get(id)! } : {}),
              ...(shown.errors.has(id) ? { error: shown.errors.get(id)! } : {}),
            }
          : null,
      ),
    ),
    pendingToolCalls: result.pendingToolCalls.map(shownPending),
    ...(result.finishReason === 'suspended'
      ? { finishReason: result.finishReason, suspendPayload: shownSuspend(result.suspendPayload) }
      : {
          finishReason: result.finishReason,
          ...(result.suspendPayload ? { suspendPayload: shownSuspend(result.suspendPayload) } : {}),
        }),
  };
}
