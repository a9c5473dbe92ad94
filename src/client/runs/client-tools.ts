/**
 * Tools a run brings along (`clientTools`, `toolsets`), as they are stored with the run: names,
 * descriptions and JSON schemas. The caller runs them: the run pauses at each call for its result.
 */
import { checkingCostProblem } from '../../schemas/schema-cost.js';
import { InvalidRunOptionsError } from '../../errors.js';
import { errorMessage } from '../../errors.js';
import type { JsonSchema } from '../../schemas/json.js';
import { ClientToolSchema, ToolNameSchema, type ClientToolSpec } from '../../schemas/run-options.js';
import { oneLine } from '../../schemas/json.js';
import { jsonSchemaOf, schemaProblem, type ToolSchema } from '../../tools/schema.js';

/**
 * A tool the caller runs: a tool made with `createTool` (without `execute`: one with it is refused), or
 * `{ description?, inputSchema, requireApproval? }` with a zod or Standard Schema schema, or a JSON
 * schema object.
 */
export interface ClientToolInput {
  id?: string;
  description?: string;
  inputSchema: ToolSchema | JsonSchema;
  requireApproval?: boolean;
  /** Cannot be stored with a durable run: a tool that has one is refused (see {@link executeNotStoredRefusal}). */
  execute?: (...args: never[]) => unknown;
}

/**
 * Why a run tool with `execute` is refused: the run could only pause for the caller's result, which is
 * not what an `execute` promises, so the caller says which it means.
 */
export function executeNotStoredRefusal(where: string): string {
  return (
    `${where}: execute is a function, which cannot be stored with a durable run. Give the tool to the agent ` +
    '(defineAgent({ tools })) to run it on the worker, or leave execute out ({ ...tool, execute: undefined }) ' +
    "to offer it as a client tool: the run then pauses at each call for the caller's result (submitToolResult)"
  );
}

/**
 * What a client tool may have: anything else (a transform, a hook, an output schema) would be dropped,
 * so it is refused.
 */
const STORABLE_KEYS = new Set(['kind', 'id', 'description', 'inputSchema', 'requireApproval', 'execute']);

/**
 * The run's client tools as stored: `clientTools` and the tools of every toolset (by their own key, as
 * Mastra flattens toolsets), each once. Throws {@link InvalidRunOptionsError} naming what cannot be stored.
 */
export function storableClientTools(
  clientTools: Record<string, ClientToolInput> | undefined,
  toolsets: Record<string, Record<string, ClientToolInput>> | undefined,
): Record<string, ClientToolSpec> | undefined {
  const entries: Array<[where: string, name: string, tool: unknown]> = [];
  for (const [name, tool] of Object.entries(objectOf('clientTools', clientTools))) {
    entries.push([`clientTools.${name}`, name, tool]);
  }
  for (const [set, tools] of Object.entries(objectOf('toolsets', toolsets))) {
    for (const [name, tool] of Object.entries(objectOf(`toolsets.${set}`, tools))) {
      entries.push([`toolsets.${set}.${name}`, name, tool]);
    }
  }
  if (entries.length === 0) return undefined;
  const stored: Record<string, ClientToolSpec> = {};
  const seen = new Map<string, string>();
  for (const [where, name, tool] of entries) {
    const named = ToolNameSchema.safeParse(name);
    if (!named.success)
      throw new InvalidRunOptionsError(`${where}: "${name}" is not a tool name: ${named.error.issues[0]?.message}`);
    const first = seen.get(name);
    if (first) throw new InvalidRunOptionsError(`${where}: ${first} is named "${name}" already; each tool name once`);
    seen.set(name, where);
    stored[name] = storable(where, tool);
  }
  return stored;
}

function objectOf(where: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidRunOptionsError(`${where} must be an object of tools by name`);
  }
  return value as Record<string, unknown>;
}

function storable(where: string, tool: unknown): ClientToolSpec {
  if (typeof tool !== 'object' || tool === null) {
    throw new InvalidRunOptionsError(`${where} must be a tool: createTool({ ... }) or { description?, inputSchema }`);
  }
  const given = Object.entries(tool).filter(([, value]) => value !== undefined);
  const other = given.map(([key]) => key).filter((key) => !STORABLE_KEYS.has(key));
  if (other.length > 0) {
    throw new InvalidRunOptionsError(
      `${where}: ${other.join(', ')} cannot be stored with a durable run, where the caller runs the tool; ` +
        'give the tool to the agent (defineAgent({ tools })) to have them apply',
    );
  }
  const { description, inputSchema, requireApproval, execute } = tool as ClientToolInput;
  if (execute !== undefined) throw new InvalidRunOptionsError(executeNotStoredRefusal(where));
  if (requireApproval !== undefined && typeof requireApproval !== 'boolean') {
    throw new InvalidRunOptionsError(`${where}: requireApproval must be true or false`);
  }
  const parsed = ClientToolSchema.safeParse({
    ...(description !== undefined ? { description } : {}),
    inputSchema: inputJsonSchema(where, inputSchema),
    ...(requireApproval !== undefined ? { requireApproval } : {}),
  });
  if (!parsed.success) throw new InvalidRunOptionsError(`${where}: ${oneLine(parsed.error.issues)}`);
  return parsed.data;
}

/** A schema library's schema as JSON schema; a plain object is taken as a JSON schema already. */
function inputJsonSchema(where: string, schema: unknown): JsonSchema {
  const json = jsonOf(where, schema);
  // The run checks each call's arguments against it, in workflow code: a schema slow to check would
  // hold the worker's workflow thread (nested repetition in a pattern, references that fan out).
  const costly = checkingCostProblem(json);
  if (costly !== undefined) throw new InvalidRunOptionsError(`${where}: inputSchema: ${costly}`);
  return json;
}

function jsonOf(where: string, schema: unknown): JsonSchema {
  if (schema === undefined) throw new InvalidRunOptionsError(`${where}: inputSchema is required`);
  if (schemaProblem(schema, true) === undefined) {
    try {
      return jsonSchemaOf(schema as ToolSchema);
    } catch (err) {
      throw new InvalidRunOptionsError(`${where}: inputSchema has no JSON schema: ${errorMessage(err)}`);
    }
  }
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    const json = schema as JsonSchema;
    if (json.type === undefined || json.type === 'object') return json;
  }
  throw new InvalidRunOptionsError(
    `${where}: inputSchema must be a zod or Standard Schema object schema, or a JSON schema of an object`,
  );
}
