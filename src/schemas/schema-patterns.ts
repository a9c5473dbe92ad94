/**
 * A schema from outside (a run's client tools, an MCP server's tools) as workflow code checks data
 * against it: without its patterns. Nothing bounds how long a pattern takes (`^(a|aa)+$` passes every
 * static check and backtracks for minutes on 50 characters), and a workflow task that stalls fails and
 * is retried with the same data, so the run would never move again. Sandbox-safe and pure.
 */
import type { JsonSchema } from './json.js';
import { DATA_KEYWORDS, isObject, NAME_MAPS } from './schema-cost.js';

/** Where dropping a check could refuse what the whole schema takes: a pattern under them is not dropped. */
const NARROWING = new Set(['not', 'oneOf', 'if', 'contains']);

/** Keywords that decide which properties `patternProperties` leaves to them: they go with it. */
const AFTER_PATTERN_PROPERTIES = ['additionalProperties', 'unevaluatedProperties'];

/**
 * The schema without its patterns (`pattern`, `patternProperties` with the keywords that depend on
 * it): what it takes is a superset of what the whole schema takes. `changed` says whether anything was
 * dropped. `unchecked` (with the reason) where no such schema exists: a pattern under `not`, `oneOf`,
 * `if` or `contains` (or one a `$ref` there may lead to), where dropping it would refuse what the whole
 * schema takes.
 */
export function withoutPatterns(schema: JsonSchema): { schema: JsonSchema; changed: boolean } | { unchecked: string } {
  let changed = false;
  let narrowing: string | undefined;
  // A reference under a narrowing keyword may lead to a pattern anywhere (a definition, the root).
  let referredUnder: string | undefined;
  const strip = (node: unknown, under: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((item) => strip(item, under));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    const dropped = (key: string) => {
      changed = true;
      narrowing ??= under && `its ${key} under ${under}`;
    };
    if (under && node.$ref !== undefined) referredUnder ??= `a $ref under ${under}`;
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (key === 'pattern' || key === 'patternProperties') dropped(key);
      else if (NAME_MAPS.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, strip(item, under)]));
      } else out[key] = strip(value, under ?? (NARROWING.has(key) ? key : undefined));
    }
    if (node.patternProperties !== undefined) for (const key of AFTER_PATTERN_PROPERTIES) delete out[key];
    return out;
  };
  const stripped = strip(schema, undefined) as JsonSchema;
  narrowing ??= changed ? referredUnder : undefined;
  if (narrowing) return { unchecked: `${narrowing} cannot be left out without refusing what it takes` };
  return { schema: changed ? stripped : schema, changed };
}

/**
 * An outside tool's input schema as the run checks changed arguments against it: without its patterns
 * once the run takes the change (`takesIt()`, asked only when there is a pattern to drop), and only its
 * type (an object) where patterns cannot be dropped. The worker checks the rest where the tool runs.
 */
export function schemaInRun(schema: JsonSchema, takesIt: () => boolean): JsonSchema {
  const shape = withoutPatterns(schema);
  if ('schema' in shape && !shape.changed) return schema;
  if (!takesIt()) return schema;
  return 'schema' in shape ? shape.schema : { type: 'object' };
}
