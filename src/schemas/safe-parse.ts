/**
 * Checking data at the edges without ever throwing, and the one-line form of what did not fit. Apart
 * from json.ts (which re-exports it) because nothing here loads zod: a check written by hand, such as
 * the webhook payload's (src/notifications/webhook-payload.ts), gives its refusals the same way.
 * Sandbox-safe.
 */
import type { z } from 'zod';
import { undecodableReason } from './undecodable.js';

type Issue = { path: PropertyKey[]; message: string; errors?: ReadonlyArray<ReadonlyArray<Issue>> };

/**
 * Schema issues on one line, each with where it is: `amount: Too big: expected number to be <=1000; to: ...`.
 * With `alternatives`, a union that fits none of its forms says what each one missed (one level deep),
 * where zod says only "Invalid input": `Invalid input (fits no alternative: [a: …] or [b: …])`.
 */
export function oneLine(issues: ReadonlyArray<Issue>, alternatives = false): string {
  const where = (path: PropertyKey[]): string => (path.length ? `${path.map(String).join('.')}: ` : '');
  return issues
    .map((i) => {
      if (!alternatives || !i.errors?.length) return `${where(i.path)}${i.message}`;
      const missed = new Set(i.errors.map((branch) => `[${oneLine(branch.map((b) => ({ ...b, errors: [] })))}]`));
      return `${where(i.path)}${i.message} (fits no alternative: ${[...missed].join(' or ')})`;
    })
    .join('; ');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * How deep {@link safeParse} lets a value nest: deeper than any data a run takes (the client and the
 * HTTP server refuse 64 levels), shallower than what overflows zod's recursive parse (about 2,000 here).
 */
export const MAX_PARSE_DEPTH = 512;

/** Whether `value` nests deeper than `max` levels, walked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (seen.has(v)) continue;
    if (depth >= max) return true;
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * `schema.safeParse` that also survives input it cannot walk: bad input must become a refusal, never a
 * failed workflow task. A value nested deeper than {@link MAX_PARSE_DEPTH} is refused before zod sees
 * it, since a stack overflow inside zod's parse leaves entries in its module-level bookkeeping, which
 * every run of a workflow bundle shares. What a worker hands over for a payload it could not decode
 * (`{ $undecodable }`, see undecodable.ts) is refused whatever the schema, with the reason: a lenient
 * schema would take it for an empty message.
 */
export function safeParse<T>(
  schema: z.ZodType<T>,
  value: unknown,
): { success: true; data: T } | { success: false; error: string } {
  const undecodable = undecodableReason(value);
  if (undecodable !== undefined) return { success: false, error: `the payload could not be decoded: ${undecodable}` };
  try {
    if (nestsDeeperThan(value, MAX_PARSE_DEPTH)) {
      return { success: false, error: `it nests deeper than ${MAX_PARSE_DEPTH} levels` };
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return { success: true, data: parsed.data };
    return { success: false, error: truncate(oneLine(parsed.error.issues), 1000) };
  } catch (err) {
    // A schema that throws (a refinement's own error), a stack overflow in a schema's own recursion, or
    // a value whose getter throws.
    return { success: false, error: `it could not be checked (${err instanceof Error ? err.message : String(err)})` };
  }
}
