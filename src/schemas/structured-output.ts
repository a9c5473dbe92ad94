/**
 * Structured output: the JSON schema a run's final answer must fit (the AI SDK's `Output.object`,
 * Mastra's `structuredOutput`), and the check of the model's answer against it. Sandbox-safe: the
 * workflow reads the spec, the model activity checks the answer.
 */
import safeRegex from 'safe-regex2';
import { z } from 'zod';
import { readJsonSchema, safeParse, truncate, type JsonSchema, type JsonValue } from './json.js';
import { boundedJson, MAX_TEXT } from './limits.js';

/** The most JSON an output schema may have: every model call of the run carries it. */
export const MAX_OUTPUT_SCHEMA_BYTES = 16 * 1024;

/**
 * How many schema nodes checking an answer may walk, each `$ref` expanded where it is used: a small
 * schema whose references fan out (`allOf` of the same `$ref` twice, level after level) would otherwise
 * take hours of the worker's CPU to check one answer.
 */
export const MAX_OUTPUT_SCHEMA_NODES = 2_000;

/** Keywords whose values are data, not schemas: a `$ref` or `pattern` key inside them means nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * What would make checking an answer against `schema` cost more than its size says: more than
 * {@link MAX_OUTPUT_SCHEMA_NODES} nodes with its references expanded (a reference back into itself,
 * a recursive schema, counts once), or a `pattern` that can take exponential time on some strings
 * (nested repetition such as `(a+)+`, found by fastify's `safe-regex2`). Pure and bounded.
 */
export function checkingCostProblem(schema: JsonSchema): string | undefined {
  const stack: Array<{ node: unknown; refs: readonly string[] }> = [{ node: schema, refs: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { node, refs } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (++nodes > MAX_OUTPUT_SCHEMA_NODES) {
      return (
        `it has more than ${MAX_OUTPUT_SCHEMA_NODES} schema nodes with its $refs expanded where they are used, ` +
        'which would make each answer slow to check; use fewer references to the same definition'
      );
    }
    const record = node as Record<string, unknown>;
    const patterns = [
      ...(typeof record.pattern === 'string' ? [record.pattern] : []),
      ...(isObject(record.patternProperties) ? Object.keys(record.patternProperties) : []),
    ];
    const unsafe = patterns.find((pattern) => !safeRegex(pattern));
    if (unsafe !== undefined) {
      return (
        `its pattern ${JSON.stringify(truncate(unsafe, 80))} may take exponential time to check (nested ` +
        'repetition, as in (a+)+); write it without a repeated group that repeats itself'
      );
    }
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith('#') && !refs.includes(ref)) {
      stack.push({ node: pointer(schema, ref), refs: [...refs, ref] });
    }
    for (const [key, value] of Object.entries(record)) {
      if (!DATA_KEYWORDS.has(key) && key !== '$defs' && key !== 'definitions') stack.push({ node: value, refs });
    }
  }
  return undefined;
}

/** What a local JSON pointer (`#/$defs/a`) points at in `root`, or undefined. */
function pointer(root: JsonSchema, ref: string): unknown {
  let at: unknown = root;
  for (const part of ref.slice(1).split('/').slice(1)) {
    if (!isObject(at) && !Array.isArray(at)) return undefined;
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    at = Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a JSON schema cannot be a run's output schema, or undefined when it can. */
export function outputSchemaProblem(schema: JsonSchema): string | undefined {
  // Providers' JSON modes (OpenAI's strict json_schema above all) take an object at the root.
  if (schema.type !== 'object') {
    return (
      `its root is ${schema.type === undefined ? 'of no type' : `of type ${JSON.stringify(schema.type)}`}, not ` +
      "an object; providers' JSON modes need an object at the root: wrap a list as { items: [...] }"
    );
  }
  const costly = checkingCostProblem(schema);
  if (costly !== undefined) return costly;
  const read = readJsonSchema(schema);
  if ('unreadable' in read) return `it cannot be checked here (${read.unreadable}); use plain JSON Schema keywords`;
  return undefined;
}

/**
 * What a run's answer must fit: a JSON schema whose root is an object, at most
 * {@link MAX_OUTPUT_SCHEMA_BYTES}, with the name and description some providers show the model.
 */
export const StructuredOutputSpecSchema = z
  .object({
    schema: (boundedJson(MAX_OUTPUT_SCHEMA_BYTES) as z.ZodType<unknown>)
      .pipe(z.record(z.string(), z.unknown()))
      .superRefine((schema, ctx) => {
        const problem = outputSchemaProblem(schema);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
    // OpenAI takes a json_schema name of these characters only.
    name: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a name is 1-64 letters, digits, _ or -')
      .optional(),
    description: z.string().max(MAX_TEXT).optional(),
  })
  .strict();
export type StructuredOutputSpec = z.infer<typeof StructuredOutputSpecSchema>;

/**
 * The model's final answer checked against the output schema: it is the object (read with
 * {@link objectOfText}, so the run keeps the answer once, as its text), or why it is not.
 */
export type ObjectCheck = { objectOk: true } | { objectError: string };

/** How much of the model's text an error quotes. */
const QUOTED_CHARS = 200;

/**
 * The object of a step that ended without tool calls: its text parsed as JSON and checked against the
 * schema. Never throws: a model that cannot produce the object gives the reason, which the run's
 * result carries and the client raises as a typed error.
 */
export function checkObject(spec: StructuredOutputSpec, text: string, finishReason: string): ObjectCheck {
  const cutOff = finishReason === 'length' ? ' (the answer was cut off at the output token limit)' : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripFence(text));
  } catch {
    const quoted =
      text.trim() === '' ? 'no text' : `text that is not JSON: ${JSON.stringify(truncate(text, QUOTED_CHARS))}`;
    return { objectError: `The model answered with ${quoted}${cutOff}.` };
  }
  const read = readJsonSchema(spec.schema);
  if ('unreadable' in read) return { objectError: `The output schema cannot be checked: ${read.unreadable}.` };
  const checked = safeParse(read.schema, parsed);
  if (!checked.success) {
    return { objectError: `The model's answer does not match the output schema: ${checked.error}${cutOff}.` };
  }
  return { objectOk: true };
}

/** The object a checked answer holds: its text as JSON, a Markdown code fence around it taken off. */
export function objectOfText(text: string): JsonValue | undefined {
  try {
    return JSON.parse(stripFence(text)) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The JSON inside a Markdown code fence, as models without a JSON mode tend to write it. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/** The reason a finished run has no object when its last step asked for tool calls (its step limit). */
export function noAnswerReason(steps: number, finishReason: string): string {
  return (
    `The run ended after ${steps} step${steps === 1 ? '' : 's'} without a final answer (finish reason ` +
    `"${finishReason}"): raise maxSteps, or give the model fewer tools to call.`
  );
}
