/**
 * Structured output: the JSON schema a run's final answer must fit (the AI SDK's `Output.object`,
 * Mastra's `structuredOutput`), and the check of the model's answer against it. Sandbox-safe: the
 * workflow reads the spec, the model activity checks the answer.
 */
import { z } from 'zod';
import { readJsonSchema, safeParse, truncate, type JsonSchema, type JsonValue } from './json.js';
import { boundedJson, MAX_TEXT } from './limits.js';
import { checkingCostProblem } from './schema-cost.js';

/** The most JSON an output schema may have: every model call of the run carries it. */
export const MAX_OUTPUT_SCHEMA_BYTES = 16 * 1024;

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
