/**
 * Structured output as callers give it (a zod schema, or another Standard Schema library's with a JSON
 * schema), made into what a run stores: its JSON schema. Shared by `defineAgent` and the client.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { unknownKeyMessage } from './options.js';
import { z } from 'zod';
import { oneLine, type JsonSchema, type JsonValue } from './schemas/json.js';
import { StructuredOutputSpecSchema, type StructuredOutputSpec } from './schemas/structured-output.js';
import { checkWith, jsonSchemaOf, schemaProblem, type SchemaCheck, type ToolSchema } from './tools/schema.js';

/** What a structured output's `schema` may be: a schema of a library, or a JSON schema as such. */
export type OutputSchema = ToolSchema | JsonSchema;

/**
 * What a run's final answer must be (the AI SDK's `Output.object`, Mastra's `structuredOutput`): an
 * object that fits `schema`. The model is shown its JSON schema (at most 16 KiB, an object at the root)
 * and asked for JSON in its provider's JSON mode.
 */
export interface StructuredOutput<S extends OutputSchema = OutputSchema> {
  /**
   * A zod schema, or another library's Standard Schema with a JSON schema (an arktype `type(...)`, ...);
   * or a JSON schema as such (what the HTTP API and `agentctl` take), whose object is then untyped.
   */
  schema: S;
  /** A name for the object, which some providers show the model. */
  name?: string;
  /** What the object is, which some providers show the model. */
  description?: string;
}

/** The object of a structured output: what its schema makes of the model's answer. */
// Unknown (never, or any schema at all): the object as JSON.
export type StructuredObject<S> = [S] extends [never]
  ? JsonValue
  : [OutputSchema] extends [S]
    ? JsonValue
    : S extends StandardSchemaV1
      ? StandardSchemaV1.InferOutput<S>
      : JsonValue;

const KEYS = ['schema', 'name', 'description'] as const;

/** Structured output as the run stores it, or why it cannot be one. */
export function structuredOutputSpec(given: unknown): { spec: StructuredOutputSpec } | { problem: string } {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return { problem: 'must be an object { schema, name?, description? }' };
  }
  const unknown = Object.keys(given).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) return { problem: unknown.map((key) => unknownKeyMessage(key, KEYS)).join('; ') };
  const { schema, name, description } = given as Partial<StructuredOutput>;
  if (isJsonSchema(schema)) {
    const stored = StructuredOutputSpecSchema.safeParse({ schema, name, description });
    return stored.success ? { spec: stored.data } : { problem: oneLine(stored.error.issues) };
  }
  const problem = schemaProblem(schema, true);
  if (problem !== undefined) return { problem: `schema ${problem}` };
  let json: Record<string, unknown>;
  try {
    // The model writes what the schema takes (its input); the schema makes the object of it. What JSON
    // schema cannot say (a z.date()) would let any answer through the worker and none through the caller.
    json =
      schema instanceof z.ZodType
        ? z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' })
        : jsonSchemaOf(schema as ToolSchema, 'input');
  } catch (err) {
    return { problem: `schema has no JSON schema: ${err instanceof Error ? err.message : String(err)}` };
  }
  json = closedObjects(json) as Record<string, unknown>;
  const parsed = StructuredOutputSpecSchema.safeParse({ schema: json, name, description });
  if (!parsed.success) return { problem: oneLine(parsed.error.issues) };
  return { spec: parsed.data };
}

/**
 * The JSON schema with `additionalProperties: false` on every object that leaves it open, as the AI SDK's
 * `zodSchema` sends it: OpenAI's strict JSON mode (its default) refuses a schema without it, and a
 * library schema's input side leaves objects open (extra keys are stripped, not refused).
 */
function closedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closedObjects);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === 'const' || key === 'enum' || key === 'default' || key === 'examples' ? value : closedObjects(value);
  }
  if (out.type === 'object' && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** A plain JSON schema, rather than a schema of a library (which has `~standard`). */
export function isJsonSchema(schema: unknown): schema is JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema instanceof z.ZodType)
    return false;
  return !('~standard' in schema);
}

/**
 * The run's object checked by the caller's own schema (its refinements and transforms included); a JSON
 * schema's object is the worker's, which checked it already.
 */
export async function checkObjectWith<S extends OutputSchema>(
  schema: S,
  object: JsonValue,
): Promise<SchemaCheck<StructuredObject<S>>> {
  if (isJsonSchema(schema)) return { ok: true, value: object as StructuredObject<S> };
  return checkWith(schema as StandardSchemaV1<unknown, StructuredObject<S>>, object);
}
