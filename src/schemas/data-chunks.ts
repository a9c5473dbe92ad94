/**
 * What a tool writes to its run's stream: data parts in the AI SDK's `data-<name>` form, and the check
 * the worker makes of a write before it goes into the stream (see stream-chunks.ts for the rest).
 *
 * Sandbox-safe: imported by workflow code.
 */
import { z } from 'zod';
import type { JsonValue } from './json.js';
import { boundedJson, clip, kib, MAX_DATA_NAME, MAX_ID, MAX_WRITE_BYTES, measureJson } from './limits.js';

/** The characters of a data part's `<name>`. */
const DATA_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/**
 * Data part names the runner uses itself (`data-tool-suspended`, `data-agent-progress`, ...): a tool
 * may not write them, so a UI never takes a tool's chunk for the run's own.
 */
const RESERVED_DATA_PREFIXES = ['tool-', 'agent-'];

/** Why `type` is not the type of a data part a tool may write, or undefined if it is one. */
export function dataTypeProblem(type: unknown): string | undefined {
  if (typeof type !== 'string' || !type.startsWith('data-')) {
    return `its type must be "data-<name>", not ${typeof type === 'string' ? `"${clip(type, 80)}"` : typeof type}`;
  }
  const name = type.slice('data-'.length);
  if (name.length === 0 || name.length > MAX_DATA_NAME || !DATA_NAME.test(name)) {
    return (
      `"${clip(type, 80)}" is not a data part type: its <name> has 1 to ${MAX_DATA_NAME} letters, digits, ` +
      '".", "_" and "-", starting with a letter or digit'
    );
  }
  const reserved = RESERVED_DATA_PREFIXES.find((prefix) => name.startsWith(prefix));
  if (reserved) return `"${type}" is reserved for the runner's own parts (data-${reserved}*): choose another name`;
  return undefined;
}

/**
 * A chunk a tool writes to its run's stream (`context.writer.write`), in the AI SDK's data-part form:
 * a UI gets it as a `data-<name>` part of the UI message stream, `id` and `transient` as the AI SDK
 * reads them (a part with the id of an earlier one replaces it; a transient part is not kept in the message).
 */
export const DataChunkSchema = z
  .object({
    type: z
      .templateLiteral(['data-', z.string()])
      .refine((type) => dataTypeProblem(type) === undefined, { error: (i) => dataTypeProblem(i.input) }),
    data: boundedJson(MAX_WRITE_BYTES),
    id: z.string().min(1).max(MAX_ID).optional(),
    transient: z.boolean().optional(),
  })
  .strict();
export type DataChunk = z.infer<typeof DataChunkSchema>;

/** What a tool may write, checked: the chunk as it goes into the stream and the bytes of its `data`, or why not. */
export type WriteCheck =
  { ok: true; chunk: DataChunk; bytes: number } | { ok: false; problem: string; tooLarge: boolean };

const WRITE_KEYS = new Set(['type', 'data', 'id', 'transient']);

/**
 * Checks a chunk a tool writes, without throwing and without recursion: a `data-<name>` type that is
 * not reserved, JSON `data` (made JSON as a tool's output is: dates as strings, undefined dropped) of
 * at most {@link MAX_WRITE_BYTES}, an optional `id` and `transient`, and nothing else.
 */
export function checkWrite(value: unknown): WriteCheck {
  const fail = (problem: string, tooLarge = false): WriteCheck => ({ ok: false, problem, tooLarge });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`a chunk is an object { type: "data-<name>", data, id?, transient? }, not ${describe(value)}`);
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !WRITE_KEYS.has(key));
  if (unknown.length > 0) {
    return fail(
      `unknown field(s) ${unknown.map((k) => `"${clip(k, 40)}"`).join(', ')}; a chunk has type, data, id?, transient?`,
    );
  }
  const typeProblem = dataTypeProblem(fields.type);
  if (typeProblem) return fail(typeProblem);
  if (fields.id !== undefined && (typeof fields.id !== 'string' || fields.id.length < 1 || fields.id.length > MAX_ID)) {
    return fail(`its id must be a string of 1 to ${MAX_ID} characters, not ${describe(fields.id)}`);
  }
  if (fields.transient !== undefined && typeof fields.transient !== 'boolean') {
    return fail(`transient must be true or false, not ${describe(fields.transient)}`);
  }
  if (fields.data === undefined) return fail('it has no data: write { type, data }');
  const data = asJson(fields.data);
  if (!data.ok) return fail(`its data is not JSON data: ${data.problem}`);
  const measured = measureJson(data.value);
  if (!measured.ok) return fail(`its data is not JSON data that can be checked: ${measured.problem}`);
  if (measured.bytes > MAX_WRITE_BYTES) {
    return fail(`its data is ${kib(measured.bytes)} of JSON, over the ${kib(MAX_WRITE_BYTES)} a chunk may hold`, true);
  }
  const chunk: DataChunk = {
    type: fields.type as DataChunk['type'],
    data: data.value,
    ...(fields.id !== undefined ? { id: fields.id as string } : {}),
    ...(fields.transient !== undefined ? { transient: fields.transient as boolean } : {}),
  };
  return { ok: true, chunk, bytes: measured.bytes };
}

/** The value as JSON data (what `JSON.stringify` keeps of it), or why it cannot be (a cycle, a BigInt, too deep). */
function asJson(value: unknown): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, problem: `${describe(value)} has no JSON form` };
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `"${clip(value, 40)}"` : `a ${typeof value}`;
}
