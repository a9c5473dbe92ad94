/**
 * JSON values as they travel through Temporal payloads, and the helpers that check data at the edges
 * without ever throwing. Sandbox-safe: imported by workflow code.
 */
import { z } from 'zod';
import { truncate } from './safe-parse.js';
import { ownPatterns } from './warm-schemas.js';

/** A JSON value, as it travels through Temporal payloads. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/** A JSON schema as stored with a tool's description (object form). */
export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema from a stored JSON schema, to check data against it where the tool's own schema is not at
 * hand. Its metadata goes to a registry of its own, not zod's global one, which a workflow bundle shares
 * between runs (only a description stays there, in a weak map); its patterns are its own for the same
 * reason (see {@link ownPatterns}).
 */
export function zodFromJsonSchema(schema: JsonSchema): z.ZodType {
  const json = Object.isFrozen(z.regexes.email) ? unshareGuardFormats(schema) : schema;
  const built = z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0], { registry: z.registry() });
  ownPatterns(built);
  return built;
}

/**
 * The JSON formats whose zod check is its pattern alone, a module-level RegExp of zod's (`z.regexes`),
 * by the name zod gives the pattern.
 */
const PATTERN_FORMATS: Readonly<Record<string, keyof typeof z.regexes>> = {
  email: 'email',
  date: 'date',
  duration: 'duration',
  ipv4: 'ipv4',
  cidr: 'cidrv4',
  e164: 'e164',
  cuid: 'cuid',
  cuid2: 'cuid2',
  ulid: 'ulid',
  xid: 'xid',
  ksuid: 'ksuid',
  nanoid: 'nanoid',
};

/** Keywords whose values are data, not schemas: a `format` key in them is the data's own. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * The schema with each such format under `propertyNames` or `contains` written as its pattern. zod
 * checks those two keywords with schemas it keeps in closures, out of {@link ownPatterns}' reach, so
 * there a frozen pattern would refuse every value; as a `pattern` zod builds a RegExp of its own, and
 * the check is the same (a key that fails is still an invalid key, an item still does not match).
 */
function unshareGuardFormats(schema: JsonSchema): JsonSchema {
  const rewrite = (node: unknown, inGuard: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, inGuard));
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = DATA_KEYWORDS.has(key)
        ? value
        : rewrite(value, inGuard || key === 'propertyNames' || key === 'contains');
    }
    const format = typeof out.format === 'string' ? PATTERN_FORMATS[out.format] : undefined;
    const pattern = format ? (z.regexes[format] as unknown) : undefined;
    if (!inGuard || !(pattern instanceof RegExp) || pattern.flags !== '') return out;
    const { format: _format, ...rest } = out;
    if (rest.pattern === undefined) return { ...rest, pattern: pattern.source };
    const allOf = Array.isArray(rest.allOf) ? rest.allOf : [];
    return { ...rest, allOf: [...allOf, { type: 'string', pattern: pattern.source }] };
  };
  return rewrite(schema, false) as JsonSchema;
}

/**
 * {@link zodFromJsonSchema} that never throws: a schema zod cannot rebuild (a keyword it does not
 * support, such as `if`/`then`/`else`, or an external `$ref`) comes back as the reason, for the caller
 * to decide on. In workflow code a throw would fail the workflow task, and a tool's schema may come from
 * an MCP server.
 */
export function readJsonSchema(schema: JsonSchema): { schema: z.ZodType } | { unreadable: string } {
  try {
    return { schema: zodFromJsonSchema(schema) };
  } catch (err) {
    return { unreadable: truncate(err instanceof Error ? err.message : String(err), 500) };
  }
}

export { MAX_PARSE_DEPTH, oneLine, safeParse, truncate } from './safe-parse.js';
