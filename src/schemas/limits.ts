/**
 * The bounds of everything a caller can size: ids, notes, data, and the JSON that carries them.
 * Temporal refuses a payload over 2 MiB (a run's input and result, a signal, the memo), and a
 * workflow whose command carries one fails its task for ever; so every field that crosses a boundary
 * is bounded here, once, and checked at the edge (client, HTTP, agentctl) and again in the workflow.
 * Sandbox-safe: pure functions and zod.
 */
import { z } from 'zod';
import type { JsonValue } from './json.js';

/** Tool-call ids, decision ids, agent ids, thread and resource ids, names. */
export const MAX_ID = 256;
/** A tool-call id qualified by the delegating calls of sub-agents (`call-0-0/call-1-0`): eight levels of ids. */
export const MAX_QUALIFIED_ID = 2048;
/** A run id a caller chooses. */
export const MAX_RUN_ID = 200;
/** A run id a caller refers to: sub-agent runs (`<run>::<call>::<call>`) are longer; Temporal takes up to 1,000. */
export const MAX_RUN_REF = 1000;
/** Notes (`by`) and reasons. */
export const MAX_TEXT = 2000;
/** The most runs a page of a list holds: what Temporal's visibility reads at once by default. */
export const MAX_PAGE_SIZE = 1000;
/** The longest `declineMessage` an agent may set. */
export const MAX_DECLINE_MESSAGE = 1000;
/** A tool's output, a client tool's result, resume data, changed arguments: bytes of their JSON (UTF-8). */
export const MAX_DATA_BYTES = 256 * 1024;
/** How deep JSON data may nest: deeper data cannot be checked or serialised safely. */
export const MAX_JSON_DEPTH = 64;
/** A tool's preview of a call, bytes of JSON: the approver reads it, the pending call and the memo carry it. */
export const MAX_PREVIEW_BYTES = 32 * 1024;
/** A run's input (the prompt or messages, and the options): bytes of its JSON. */
export const MAX_INPUT_BYTES = 512 * 1024;
/**
 * A run's conversation and steps together, bytes of JSON: its result, each model call's input and a
 * continuation's input carry them, and each must stay under Temporal's 2 MiB with room for the rest.
 */
export const MAX_CONVERSATION_BYTES = 1024 * 1024;
/**
 * What a run may carry where its worker has a payload store (external storage, see
 * docs/large-payloads.md): payloads over the store's threshold travel as references, so Temporal's
 * 2 MiB no longer bounds a tool's output or the conversation. The conversation stays under the S3
 * driver's 50 MiB for one payload (the run's result and each model call's input carry it whole), and
 * every worker holds it in memory while the run is cached.
 */
export const STORED_PAYLOAD_LIMITS = {
  maxToolOutputBytes: 16 * 1024 * 1024,
  maxConversationBytes: 40 * 1024 * 1024,
} as const satisfies PayloadLimits;

/** A tool's output and a run's conversation: bytes of JSON. */
export interface PayloadLimits {
  maxToolOutputBytes: number;
  maxConversationBytes: number;
}

/** The limits of a run whose worker has no payload store: everything within Temporal's 2 MiB. */
export const INLINE_PAYLOAD_LIMITS: PayloadLimits = {
  maxToolOutputBytes: MAX_DATA_BYTES,
  maxConversationBytes: MAX_CONVERSATION_BYTES,
};

/** A run's request context: bytes of its JSON. Every activity of the run carries it. */
export const MAX_REQUEST_CONTEXT_BYTES = 16 * 1024;
/** The most JSON of a run's or an agent's provider options (`modelSettings.providerOptions`). */
export const MAX_PROVIDER_OPTIONS_BYTES = 16 * 1024;
/** What the memo may take, of Temporal's 2 MiB. */
export const MAX_MEMO_BYTES = 1024 * 1024;

/**
 * What a tool writes to the run's stream (`context.writer.write`): the `data` of each chunk, bytes of
 * its JSON. Every chunk travels in a signal to the run (into its history) and stays in the stream's
 * log, which a continuation carries.
 */
export const MAX_WRITE_BYTES = 16 * 1024;
/** Chunks one execution of a tool may write. */
export const MAX_WRITES_PER_CALL = 200;
/** Bytes of `data` one execution of a tool may write in all (as much as its output may hold). */
export const MAX_WRITTEN_BYTES_PER_CALL = 256 * 1024;
/** The `<name>` of a written `data-<name>` chunk: characters. */
export const MAX_DATA_NAME = 64;
/**
 * What a sub-agent's progress (its text, tool events and tools' writes, with everything below it) may
 * add to the stream of the run that streams it, per delegation, bytes of JSON. The sub-agent's run
 * keeps within it as it sends; the streamed run drops what comes over it.
 */
export const MAX_PROGRESS_BYTES = 256 * 1024;
/** Of that budget, what one activity of a sub-agent (a model step, a tool execution) may send. */
export const MAX_PROGRESS_SLICE_BYTES = 32 * 1024;
/** Arguments and outputs in a sub-agent's progress are mentioned, not held, over this many bytes of JSON. */
export const MAX_PROGRESS_PAYLOAD_BYTES = 4 * 1024;

/** The characters of a run id: they travel in URLs, shells and Temporal's visibility queries. */
const RUN_ID_CHARS = /^[A-Za-z0-9._:-]+$/;
const RUN_ID_RULE = `letters, digits, ".", "_", ":" and "-" only`;

/** A run id a caller chooses for a new run; `::` is reserved for the runs of sub-agents. */
export const RunIdSchema = z
  .string()
  .min(1, 'a run id is not empty')
  .max(MAX_RUN_ID, `a run id has at most ${MAX_RUN_ID} characters`)
  .regex(RUN_ID_CHARS, `a run id has ${RUN_ID_RULE}`)
  .refine((id) => !id.includes('::'), '"::" in a run id is reserved for the runs of sub-agents');

/** A run id a caller refers to (a sub-agent's run included). */
export const RunRefSchema = z
  .string()
  .min(1, 'a run id is not empty')
  .max(MAX_RUN_REF, `a run id has at most ${MAX_RUN_REF} characters`)
  .regex(/^[^\s\p{Cc}]+$/u, 'a run id has no spaces or control characters');

/** An id (agent, thread, resource, tool call, decision). */
export const IdSchema = z.string().min(1).max(MAX_ID);

/** A caller's text as a message quotes it: on one line, at most `max` characters. */
export function clip(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Bytes of a string in UTF-8, counted without an encoder (there is none in the workflow sandbox). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** What {@link measureJson} finds: the size of the value's JSON, or why it is not JSON data that can be checked. */
export type JsonMeasure = { ok: true; bytes: number } | { ok: false; problem: string };

/**
 * Walks a value without recursion (so that a payload nested thousands of levels deep cannot overflow
 * the stack) and measures its JSON: refused when it nests deeper than `maxDepth` or is not JSON.
 */
export function measureJson(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonMeasure {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { ok: false, problem: `${String(v)} is not a JSON number` };
      continue;
    }
    if (typeof v !== 'object') return { ok: false, problem: `a ${typeof v} is not JSON data` };
    if (depth >= maxDepth) return { ok: false, problem: `it nests deeper than ${maxDepth} levels` };
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return { ok: true, bytes: utf8Bytes(JSON.stringify(value) ?? 'null') };
}

/** Bytes of a value's JSON (UTF-8); for values already known to be JSON data. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? 'null');
}

/** Human-sized bytes for messages: `312 KiB`. */
export function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * JSON data of at most `maxBytes`, nested at most {@link MAX_JSON_DEPTH} deep, checked without
 * recursion. A value over the size is an issue with `params.tooLarge` (HTTP 413, see {@link isTooLarge}).
 */
export function boundedJson(maxBytes: number = MAX_DATA_BYTES): z.ZodType<JsonValue> {
  return z.unknown().superRefine((value, ctx) => {
    const measured = measureJson(value);
    if (!measured.ok) {
      ctx.addIssue({ code: 'custom', message: `not JSON data that can be checked: ${measured.problem}` });
    } else if (measured.bytes > maxBytes) {
      const message = `${kib(measured.bytes)} of JSON; at most ${kib(maxBytes)}`;
      ctx.addIssue({ code: 'custom', message, params: { tooLarge: true } });
    }
  }) as unknown as z.ZodType<JsonValue>;
}

/** A large JSON value replaced by a note of its size, where a bounded record only mentions it. */
export function elided(value: JsonValue, maxBytes: number): JsonValue {
  const bytes = jsonBytes(value);
  return bytes <= maxBytes ? value : { elided: `${kib(bytes)} of JSON; the run's history has it in full` };
}

/** Whether a schema issue is data over its size limit (as opposed to a malformed or over-long field). */
export function isTooLarge(issue: { code: string; params?: unknown }): boolean {
  return issue.code === 'custom' && (issue.params as { tooLarge?: boolean } | undefined)?.tooLarge === true;
}
