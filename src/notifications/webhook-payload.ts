/**
 * The check of a webhook body, written by hand: `verifyWebhook` is synchronous and is exported by the
 * client's entry, which does not load zod, so it cannot parse with `WebhookPayloadSchema`. It takes what
 * `JSON.parse` gives and answers exactly as `safeParse(WebhookPayloadSchema, json)` does, the same data
 * or the same refusal word for word; test/unit/webhook-payload.test.ts holds the two together.
 */
import type { WebhookPayload } from '../schemas/notification.js';
import { MAX_PARSE_DEPTH, nestsDeeperThan, oneLine, truncate } from '../schemas/safe-parse.js';
import { undecodableReason } from '../schemas/undecodable.js';

/** `NotificationTypeSchema`'s options. */
export const NOTIFICATION_TYPES = ['waiting', 'decided', 'escalated', 'expired'] as const;
/** The options of the notification's `kind`. */
export const WAITING_KINDS = ['approval', 'suspend', 'client', 'uncertain'] as const;
/** `TrailKindSchema`'s options. */
export const TRAIL_KINDS = ['approve', 'decline', 'resume', 'result', 'resolve', 'escalate', 'expire'] as const;
/** An entry of `AccessRuleSchema`, and what it says of one that does not fit. */
const ACCESS_ENTRY = /^(\*|(user|role|group):.{1,256})$/;
const ACCESS_ENTRY_MESSAGE = 'use "*", "user:<id>", "role:<role>" or "group:<group>"';
const MAX_ACCESS_ENTRIES = 64;

type Issue = { path: PropertyKey[]; message: string };
type Fields = Record<string, unknown>;

/** The body as a notification, or why it is not one (as `safeParse` says it). */
export function parseWebhookPayload(
  value: unknown,
): { success: true; data: WebhookPayload } | { success: false; error: string } {
  const undecodable = undecodableReason(value);
  if (undecodable !== undefined) return { success: false, error: `the payload could not be decoded: ${undecodable}` };
  if (nestsDeeperThan(value, MAX_PARSE_DEPTH)) {
    return { success: false, error: `it nests deeper than ${MAX_PARSE_DEPTH} levels` };
  }
  const issues: Issue[] = [];
  const data = payload(value, issues);
  if (issues.length > 0) return { success: false, error: truncate(oneLine(issues), 1000) };
  return { success: true, data: data as WebhookPayload };
}

/** How zod names the type of what it was given. */
function received(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function expected(type: string, value: unknown, path: PropertyKey[], issues: Issue[]): void {
  issues.push({ path, message: `Invalid input: expected ${type}, received ${received(value)}` });
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields of an object schema, in its order (which is the order of the issues and of the data),
 * without the keys it does not know, as a zod object strips them.
 */
function fields(
  value: unknown,
  path: PropertyKey[],
  issues: Issue[],
  shape: Array<[key: string, optional: boolean, check: (v: unknown, at: PropertyKey[]) => unknown]>,
): Fields | undefined {
  if (!isObject(value)) {
    expected('object', value, path, issues);
    return undefined;
  }
  const out: Fields = {};
  for (const [key, optional, check] of shape) {
    const field = value[key];
    if (optional && field === undefined) continue;
    out[key] = check(field, [...path, key]);
  }
  return out;
}

function payload(value: unknown, issues: Issue[]): Fields | undefined {
  const text = (v: unknown, at: PropertyKey[]): unknown =>
    typeof v === 'string' ? v : expected('string', v, at, issues);
  const oneOf =
    (options: readonly string[]) =>
    (v: unknown, at: PropertyKey[]): unknown => {
      if (typeof v === 'string' && options.includes(v)) return v;
      issues.push({ path: at, message: `Invalid option: expected one of ${options.map((o) => `"${o}"`).join('|')}` });
      return undefined;
    };
  const accessRule = (v: unknown, at: PropertyKey[]): unknown => {
    if (!Array.isArray(v)) return expected('array', v, at, issues);
    // zod refuses a list over its bound before it looks at the entries.
    if (v.length > MAX_ACCESS_ENTRIES) {
      issues.push({ path: at, message: `Too big: expected array to have <=${MAX_ACCESS_ENTRIES} items` });
      return undefined;
    }
    return v.map((entry: unknown, i) => {
      if (typeof entry !== 'string') return expected('string', entry, [...at, i], issues);
      if (!ACCESS_ENTRY.test(entry)) issues.push({ path: [...at, i], message: ACCESS_ENTRY_MESSAGE });
      return entry;
    });
  };
  const principal = (v: unknown, at: PropertyKey[]): unknown =>
    fields(v, at, issues, [
      ['id', false, text],
      ['name', true, text],
    ]);
  const decision = (v: unknown, at: PropertyKey[]): unknown =>
    fields(v, at, issues, [
      ['decisionId', false, text],
      ['kind', false, oneOf(TRAIL_KINDS)],
      ['principal', true, principal],
      ['by', true, text],
      ['reason', true, text],
    ]);
  return fields(value, [], issues, [
    ['type', false, oneOf(NOTIFICATION_TYPES)],
    ['runId', false, text],
    ['agentId', false, text],
    ['toolCallId', false, text],
    ['toolName', false, text],
    ['kind', false, oneOf(WAITING_KINDS)],
    ['fingerprint', false, text],
    ['at', false, text],
    ['askedAt', false, text],
    ['expiresAt', true, text],
    ['decide', true, accessRule],
    ['decision', true, decision],
    ['link', true, text],
  ]);
}
