/**
 * The schemas a tool takes: zod, or any other Standard Schema library (valibot, arktype, ...). Every
 * check of data against a tool's schema, and every JSON schema made of one, goes through here, so the
 * rest of the code does not care which library a tool was written with.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import type { JsonSchema } from '../schemas/json.js';

/**
 * A schema that checks data: a zod schema, or any [Standard Schema](https://standardschema.dev)
 * (valibot, arktype, ...). Enough for `outputSchema` and `suspendSchema`, which are only checked.
 */
export type CheckingSchema<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output>;

/**
 * A schema that checks data and has a JSON schema too ([Standard JSON
 * Schema](https://standardschema.dev/json-schema)): a zod schema, an arktype `type(...)`, a valibot schema
 * wrapped in `toStandardJsonSchema(...)` from `@valibot/to-json-schema`. `inputSchema` must be one (the
 * model is shown its JSON schema), and so must `resumeSchema` (callers check resume data against its JSON
 * schema before they send it).
 */
export type ToolSchema<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output> &
  StandardJSONSchemaV1<Input, Output>;

/** What a schema makes of valid data (zod's `z.output`). */
export type SchemaOutput<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;
/** What a schema takes (zod's `z.input`). */
export type SchemaInput<S extends StandardSchemaV1> = StandardSchemaV1.InferInput<S>;

/** One problem with checked data, where it is (`path`), and, for a union, what each of its forms missed. */
export interface SchemaIssue {
  message: string;
  path: PropertyKey[];
  errors?: ReadonlyArray<ReadonlyArray<SchemaIssue>>;
}

/** The verdict on data: its checked value, or the issues and a readable account of them. */
export type SchemaCheck<T = unknown> =
  | { ok: true; value: T }
  | {
      ok: false;
      issues: readonly SchemaIssue[];
      /** One line per issue and where it is, as `z.prettifyError` writes them (zod's own, for a zod schema). */
      pretty: string;
    };

/**
 * Checks `value` against a tool schema. A Standard Schema may check asynchronously, so this always
 * returns a promise. A zod schema gives zod's own issues and its `z.prettifyError` text.
 */
export async function checkWith<T>(schema: StandardSchemaV1<unknown, T>, value: unknown): Promise<SchemaCheck<T>> {
  if (schema instanceof z.ZodType) {
    const parsed = await schema.safeParseAsync(value);
    if (parsed.success) return { ok: true, value: parsed.data as T };
    return { ok: false, issues: parsed.error.issues, pretty: z.prettifyError(parsed.error) };
  }
  const result = await schema['~standard'].validate(value);
  if (!result.issues) return { ok: true, value: result.value };
  const issues = result.issues.map((issue) => ({
    message: issue.message,
    // Array.from, not map: a library's path may be an array subclass (arktype's) that map would keep.
    path: Array.from(issue.path ?? [], (segment) => (typeof segment === 'object' ? segment.key : segment)),
  }));
  return { ok: false, issues, pretty: prettyIssues(issues) };
}

/** Issues as `z.prettifyError` writes zod's: `✖ message`, then `  → at where.it.is`, shallowest first. */
function prettyIssues(issues: readonly SchemaIssue[]): string {
  const lines: string[] = [];
  for (const issue of [...issues].sort((a, b) => a.path.length - b.path.length)) {
    lines.push(`✖ ${issue.message}`);
    if (issue.path.length) lines.push(`  → at ${dotPath(issue.path)}`);
  }
  return lines.join('\n');
}

function dotPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'symbol' || /[^\w$]/.test(key)) out += `[${JSON.stringify(String(key))}]`;
    else out += out ? `.${key}` : key;
  }
  return out;
}

/**
 * A tool schema as the JSON schema the run stores, for the model and for callers without the tool's
 * code, in draft 2020-12 whatever the library. What a library cannot say in JSON schema (a refinement, a
 * date) is left open, as zod's `unrepresentable: 'any'` leaves it: the worker still checks it with the
 * schema itself. A converter may still throw where its library cannot convert a schema at all.
 */
export function jsonSchemaOf(schema: ToolSchema, io: 'input' | 'output' = 'input'): JsonSchema {
  if (schema instanceof z.ZodType) return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const { vendor, jsonSchema } = schema['~standard'];
  const json: unknown = jsonSchema[io]({ target: 'draft-2020-12', ...lenient(vendor) });
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TypeError(`its ${vendor} JSON Schema converter returned ${String(json)}, not an object`);
  }
  return json as JsonSchema;
}

/**
 * The options that make a library's converter leave open what it cannot convert, where it would throw
 * by default (arktype already leaves it open).
 */
function lenient(vendor: string): Pick<StandardJSONSchemaV1.Options, 'libraryOptions'> {
  return vendor === 'valibot' ? { libraryOptions: { errorMode: 'ignore' } } : {};
}

/** Why `value` cannot serve as a tool schema (with what to do about it), or undefined when it can. */
export function schemaProblem(value: unknown, json: boolean): string | undefined {
  if (value instanceof z.ZodType) return undefined;
  const standard: unknown =
    (typeof value === 'object' || typeof value === 'function') && value !== null
      ? (value as { '~standard'?: unknown })['~standard']
      : undefined;
  if (typeof standard !== 'object' || standard === null) {
    return (
      `is ${describe(value)}, not a schema; give a zod schema, or a Standard Schema of another library ` +
      '(an arktype type(...), a valibot schema in toStandardJsonSchema(...), ...)'
    );
  }
  const { version, vendor, validate, jsonSchema } = standard as {
    version?: unknown;
    vendor?: unknown;
    validate?: unknown;
    jsonSchema?: { input?: unknown; output?: unknown };
  };
  const library = typeof vendor === 'string' ? `${/^[aeiou]/i.test(vendor) ? 'an' : 'a'} ${vendor} schema` : 'a schema';
  if (version !== 1) return `is ${library} of Standard Schema version ${String(version)}; version 1 is supported`;
  if (typeof validate !== 'function') {
    return `is ${library} that cannot check data (its \`~standard\` has no \`validate\`); give a Standard Schema`;
  }
  if (json && (typeof jsonSchema?.input !== 'function' || typeof jsonSchema.output !== 'function')) {
    return (
      `is ${library} without a JSON schema (no Standard JSON Schema \`~standard.jsonSchema\`), so the model ` +
      `and callers could not be told what it takes; ${jsonAdvice(vendor)}`
    );
  }
  return undefined;
}

function jsonAdvice(vendor: unknown): string {
  if (vendor === 'valibot') return "wrap it: toStandardJsonSchema(schema) from '@valibot/to-json-schema'";
  if (vendor === 'zod') return "use zod 4's classic API (import { z } from 'zod'), whose schemas have one";
  return 'use a library that implements Standard JSON Schema (zod 4, arktype, valibot with @valibot/to-json-schema)';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
