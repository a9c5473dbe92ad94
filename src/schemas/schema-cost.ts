/**
 * What a JSON schema costs to check data against, before anything checks with it. A schema may come
 * from outside (an MCP server lists its tools' schemas, a run brings client tools, a caller sends an
 * output schema), and checking runs where it must not stall: workflow code, and the worker's one event
 * loop. Sandbox-safe and pure.
 */
import safeRegex from 'safe-regex2';
import type { JsonSchema } from './json.js';
import { truncate } from './safe-parse.js';

/**
 * How many schema nodes checking a value may walk, each `$ref` expanded where it is used: a small
 * schema whose references fan out (`allOf` of the same `$ref` twice, level after level) would otherwise
 * take hours of the worker's CPU to check one value.
 */
export const MAX_CHECKED_SCHEMA_NODES = 2_000;

/**
 * How much checking in workflow code may do: schema nodes (references expanded) times the JSON values
 * of the data, an upper bound of what zod walks. About a second of a worker's CPU at most; a workflow
 * task that takes 5 s fails, and is retried with the same data.
 */
export const MAX_CHECK_WORK = 4_000_000;

/** Keywords whose values are data, not schemas: a `$ref` or `pattern` key inside them means nothing. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);

/** Keywords whose values map names (of properties, definitions) to schemas: their keys are no keywords. */
export const NAME_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/**
 * What would make checking data against `schema` cost more than its size says: more than
 * {@link MAX_CHECKED_SCHEMA_NODES} nodes with its references expanded (a reference back into itself,
 * a recursive schema, counts once), or a `pattern` that can take exponential time on some strings
 * (nested repetition such as `(a+)+`, found by fastify's `safe-regex2`). Pure and bounded.
 */
export function checkingCostProblem(schema: JsonSchema): string | undefined {
  const walked = walk(schema, true);
  if (typeof walked === 'string') return walked;
  if (walked > MAX_CHECKED_SCHEMA_NODES) return tooManyNodes();
  return undefined;
}

/**
 * Why checking `data` against `schema` in workflow code would cost more than {@link MAX_CHECK_WORK}, or
 * undefined. Both walks stop early, so this is bounded too.
 */
export function checkWorkProblem(schema: JsonSchema, data: unknown): string | undefined {
  const nodes = walk(schema, false);
  if (typeof nodes === 'string') return nodes;
  if (nodes > MAX_CHECKED_SCHEMA_NODES) return tooManyNodes();
  const values = jsonValues(data, Math.floor(MAX_CHECK_WORK / Math.max(nodes, 1)) + 1);
  if (nodes * values <= MAX_CHECK_WORK) return undefined;
  return (
    `checking ${values.toLocaleString('en')} JSON values against ${nodes} schema nodes would take too long ` +
    'in the run; send fewer or smaller values'
  );
}

function tooManyNodes(): string {
  return (
    `it has more than ${MAX_CHECKED_SCHEMA_NODES} schema nodes with its $refs expanded where they are used, ` +
    'which would make each value slow to check; use fewer references to the same definition'
  );
}

/**
 * The schema's nodes, each `$ref` expanded where it is used, counted up to one past the limit; the
 * reason instead for a local `$ref` of another form than zod's, and, with `patterns`, for a pattern
 * that is not a string or may take exponential time.
 */
function walk(schema: JsonSchema, patterns: boolean): number | string {
  const stack: Array<{ node: unknown; refs: readonly string[] }> = [{ node: schema, refs: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { node, refs } = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node) stack.push({ node: item, refs });
      continue;
    }
    if (!isObject(node)) continue;
    if (++nodes > MAX_CHECKED_SCHEMA_NODES) return nodes;
    const unsafe = patterns ? unsafePattern(node) : undefined;
    if (unsafe !== undefined) return unsafe;
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      const targets = refTargets(schema, ref);
      if (targets === undefined) return unreadableRef(ref);
      if (!refs.includes(ref)) for (const target of targets) stack.push({ node: target, refs: [...refs, ref] });
    }
    for (const [key, value] of Object.entries(node)) {
      // Definitions count where a reference uses them.
      if (DATA_KEYWORDS.has(key) || key === '$defs' || key === 'definitions') continue;
      if (NAME_MAPS.has(key) && isObject(value))
        for (const item of Object.values(value)) stack.push({ node: item, refs });
      else stack.push({ node: value, refs });
    }
  }
  return nodes;
}

/** Why a pattern of this node (its own, or one matching property names) cannot be used, or undefined. */
function unsafePattern(node: Record<string, unknown>): string | undefined {
  if (node.pattern !== undefined && typeof node.pattern !== 'string') {
    return `its pattern ${truncate(JSON.stringify(node.pattern), 80)} is not a string`;
  }
  const patterns = [
    ...(typeof node.pattern === 'string' ? [node.pattern] : []),
    ...(isObject(node.patternProperties) ? Object.keys(node.patternProperties) : []),
  ];
  const unsafe = patterns.find((pattern) => !safeRegex(pattern));
  if (unsafe === undefined) return undefined;
  return (
    `its pattern ${JSON.stringify(truncate(unsafe, 80))} may take exponential time to check (nested ` +
    'repetition, as in (a+)+); write it without a repeated group that repeats itself'
  );
}

/** How many JSON values `data` holds (itself included), counted up to `cap`. */
function jsonValues(data: unknown, cap: number): number {
  const stack: unknown[] = [data];
  let count = 0;
  while (stack.length > 0 && count < cap) {
    const value = stack.pop();
    count++;
    if (Array.isArray(value)) stack.push(...value);
    else if (isObject(value)) stack.push(...Object.values(value));
  }
  return count;
}

/** The local references checked data may follow: the root, or one definition by its name. */
const LOCAL_REF = /^#(?:\/(?:\$defs|definitions)\/([^/~]+))?$/;

/**
 * What a local `$ref` may point at in `root`, every place zod might take it from (it reads `$defs` and
 * `definitions` alike), or undefined for a reference of another form: zod resolves those more loosely
 * than a JSON pointer (`#/$defs/a/` is `a` to it), so counting them here could undercount its work.
 */
function refTargets(root: JsonSchema, ref: string): unknown[] | undefined {
  const matched = LOCAL_REF.exec(ref);
  if (!matched) return undefined;
  const name = matched[1];
  if (name === undefined) return [root];
  return [root.$defs, root.definitions].flatMap((defs) =>
    isObject(defs) && Object.hasOwn(defs, name) ? [defs[name]] : [],
  );
}

function unreadableRef(ref: string): string {
  return (
    `its $ref ${JSON.stringify(truncate(ref, 80))} is neither "#" nor "#/$defs/<name>" ` +
    '(or "#/definitions/<name>"); refer to a definition by its name alone'
  );
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
