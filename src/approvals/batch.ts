/**
 * Batch decisions by predicate ("approve every waiting `refund` of at most 50 for tenant acme"): which
 * waiting calls a batch takes, and the conditions it is written with. Each call the batch takes is then
 * decided on its own, checked as if decided alone; nothing here decides. Pure.
 */
import { canonicalJson } from './fingerprint.js';
import type { PendingToolCall } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';

/** A condition on a call's arguments: the value at `path` (dotted: `to.domain`) compared with `value`. */
export interface BatchCondition {
  path: string;
  op: BatchOperator;
  value: JsonValue;
}

/** `eq`/`ne` compare JSON; `lt`..`gte` numbers only; `prefix`/`suffix` strings only. */
export type BatchOperator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'prefix' | 'suffix';

/** Which waiting calls a batch takes: of one tool, optionally one agent and tenant, every condition true. */
export interface BatchFilter {
  toolName: string;
  agentId?: string;
  resourceId?: string;
  where?: BatchCondition[];
}

/** The most calls one batch decides: a batch larger than this is split by a narrower predicate. */
export const MAX_BATCH_CALLS = 500;
/** The most conditions one batch has. */
export const MAX_BATCH_CONDITIONS = 20;

const OPERATORS: Array<[string, BatchOperator]> = [
  ['<=', 'lte'],
  ['>=', 'gte'],
  ['!=', 'ne'],
  ['^=', 'prefix'],
  ['$=', 'suffix'],
  ['<', 'lt'],
  ['>', 'gt'],
  ['=', 'eq'],
];
const PATH = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*){0,7}$/;

/**
 * A condition as people write it on a command line: `amount<=50`, `currency=EUR`, `to$=@example.com`,
 * `urgent=true`. The value is JSON where it reads as JSON (numbers, booleans, null, quoted strings),
 * else the text as a string; after `^=` and `$=` it is always text. Throws a TypeError naming what is wrong.
 */
export function parseCondition(text: string): BatchCondition {
  let at = -1;
  let found: [string, BatchOperator] | undefined;
  for (const entry of OPERATORS) {
    const i = text.indexOf(entry[0]);
    if (i > 0 && (at < 0 || i < at || (i === at && entry[0].length > found![0].length))) [at, found] = [i, entry];
  }
  if (!found) {
    throw new TypeError(
      `condition "${text.slice(0, 80)}" has no operator: write PATH OP VALUE with one of <= >= != ^= $= < > =`,
    );
  }
  const path = text.slice(0, at).trim();
  const raw = text.slice(at + found[0].length).trim();
  let value: JsonValue = raw;
  try {
    value = JSON.parse(raw) as JsonValue;
  } catch {
    // Not JSON: the text itself, as a string.
  }
  // Text is compared as text: `id^=1` means the characters 1, not the number.
  const op = found[1];
  if ((op === 'prefix' || op === 'suffix') && typeof value !== 'string') value = raw;
  return checkCondition({ path, op, value });
}

/** The condition, checked: a dotted path of at most 8 names, a known operator, a value of the operator's type. */
export function checkCondition(condition: BatchCondition): BatchCondition {
  const { path, op, value } = condition;
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new TypeError(
      `condition path "${String(path).slice(0, 80)}" is not a dotted name such as amount or to.domain`,
    );
  }
  if (!OPERATORS.some(([, known]) => known === op))
    throw new TypeError(`condition on ${path}: unknown operator "${op}"`);
  if (['lt', 'lte', 'gt', 'gte'].includes(op) && typeof value !== 'number') {
    throw new TypeError(`condition on ${path}: ${op} compares numbers, not ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  if ((op === 'prefix' || op === 'suffix') && typeof value !== 'string') {
    throw new TypeError(`condition on ${path}: ${op} compares text, not ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  return { path, op, value };
}

/**
 * The arguments a batch reads and shows: the display form where the agent's transforms make one, as the
 * inbox shows them. A condition on the raw form would answer, call by call, questions about what the
 * display hides (an account number, one digit at a time).
 */
export function shownArgs(call: PendingToolCall): JsonValue {
  return call.display ? call.display.args : call.args;
}

/**
 * Conditions kept as text (an agent's rules, a grant), parsed where they are used. Checked when they were
 * written; should one not parse here, the caller takes nothing from them (undefined), rather than fail.
 */
export function storedConditions(where: readonly string[]): BatchCondition[] | undefined {
  try {
    return where.map(parseCondition);
  } catch {
    return undefined;
  }
}

/** Whether a waiting call of a run is one the batch takes (approvals only: a batch approves or declines). */
export function inBatch(
  run: { agentId?: string | undefined; resourceId?: string | undefined },
  call: PendingToolCall,
  filter: BatchFilter,
): boolean {
  if (call.kind !== 'approval' || call.toolName !== filter.toolName) return false;
  if (filter.agentId !== undefined && run.agentId !== filter.agentId) return false;
  if (filter.resourceId !== undefined && run.resourceId !== filter.resourceId) return false;
  return argsMeet(shownArgs(call), filter.where ?? []);
}

/**
 * Whether every condition holds of these arguments. A missing value, or one of another type than the
 * operator compares, never holds; with `unknownHolds` (a rule that denies) it always does.
 */
export function argsMeet(args: JsonValue, where: readonly BatchCondition[], { unknownHolds = false } = {}): boolean {
  return where.every((c) => {
    const actual = valueAt(args, c.path);
    return unknownHolds && !comparable(c, actual) ? true : holds(c, actual);
  });
}

/** Whether the operator can compare this value at all: it is there, and of the type the operator takes. */
function comparable({ op, value }: BatchCondition, actual: JsonValue | undefined): boolean {
  if (actual === undefined) return false;
  if (op === 'eq' || op === 'ne') return op === 'eq' || jsonType(actual) === jsonType(value);
  return op === 'prefix' || op === 'suffix' ? typeof actual === 'string' : typeof actual === 'number';
}

function valueAt(args: JsonValue, path: string): JsonValue | undefined {
  let here: JsonValue | undefined = args;
  for (const name of path.split('.')) {
    if (typeof here !== 'object' || here === null || Array.isArray(here) || !Object.hasOwn(here, name))
      return undefined;
    here = (here as Record<string, JsonValue>)[name];
  }
  return here;
}

/** A missing value, or one of another type than the operator compares, never holds (nothing is coerced). */
function holds({ op, value }: BatchCondition, actual: JsonValue | undefined): boolean {
  if (actual === undefined) return false;
  switch (op) {
    case 'eq':
      return canonicalJson(actual) === canonicalJson(value);
    case 'ne':
      // Of another type is not "not equal": `account!=12345` does not take the string "12345".
      return jsonType(actual) === jsonType(value) && canonicalJson(actual) !== canonicalJson(value);
    case 'prefix':
      return typeof actual === 'string' && actual.startsWith(value as string);
    case 'suffix':
      return typeof actual === 'string' && actual.endsWith(value as string);
    default: {
      if (typeof actual !== 'number') return false;
      const limit = value as number;
      return op === 'lt'
        ? actual < limit
        : op === 'lte'
          ? actual <= limit
          : op === 'gt'
            ? actual > limit
            : actual >= limit;
    }
  }
}

function jsonType(value: JsonValue): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
