/**
 * Approval deadlines: how long a call may wait for approval before it expires, and an optional
 * escalation to other approvers first. A tool or an agent sets one with durations people write
 * (`'30m'`, `'2 hours'`, or ms); the spec the run records holds milliseconds. Sandbox-safe.
 */
import { z } from 'zod';
import { AccessRuleSchema, type AccessRule } from './access.js';

/** The shortest deadline: a timer shorter than this is a mistake, not a policy. */
export const MIN_DEADLINE_MS = 1000;
/** The longest: a run that waits a year for a decision is better given no deadline at all. */
export const MAX_DEADLINE_MS = 365 * 24 * 60 * 60 * 1000;

/** A duration: ms as a number, or a string such as `'90s'`, `'30m'`, `'2h'`, `'1d'`, `'30 minutes'`. */
export type DeadlineDuration = string | number;

/**
 * An approval deadline, as a tool or agent sets it. With `escalate`, the call first waits `after` for
 * its own approvers; then only `escalate.decide` may decide, for another `escalate.after`; then it expires.
 */
export interface ApprovalDeadline {
  after: DeadlineDuration;
  escalate?: { after: DeadlineDuration; decide: AccessRule };
}

const DeadlineMs = z.number().int().min(MIN_DEADLINE_MS).max(MAX_DEADLINE_MS);

/** The deadline as the agent's spec records it (ms). */
export const ApprovalDeadlineSpecSchema = z
  .object({
    afterMs: DeadlineMs,
    escalate: z.object({ afterMs: DeadlineMs, decide: AccessRuleSchema }).strict().optional(),
  })
  .strict();
export type ApprovalDeadlineSpec = z.infer<typeof ApprovalDeadlineSpecSchema>;

const UNITS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** A duration in ms, or a message saying what is wrong with it. */
export function durationMs(value: unknown): { ms: number } | { problem: string } {
  const range = `between 1 second and 365 days`;
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(value);
    const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
    if (!match || unit === undefined) {
      return { problem: `"${value.slice(0, 40)}" is not a duration; write ms, or e.g. "90s", "30m", "2h", "1d"` };
    }
    ms = Math.round(Number(match[1]) * unit);
  } else {
    return { problem: `a duration is ms or a string such as "30m", not ${typeof value}` };
  }
  if (!Number.isFinite(ms) || ms < MIN_DEADLINE_MS || ms > MAX_DEADLINE_MS) {
    return { problem: `${JSON.stringify(value)} is not ${range}` };
  }
  return { ms: Math.round(ms) };
}

/**
 * The spec of a deadline a tool or agent sets; throws a TypeError naming `where` and what is wrong
 * (so `createTool` and `defineAgent` refuse it at definition).
 */
export function approvalDeadlineSpec(where: string, value: unknown): ApprovalDeadlineSpec {
  const fail = (problem: string): never => {
    throw new TypeError(`${where}: approvalDeadline${problem.startsWith('.') ? '' : ' '}${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`is { after, escalate?: { after, decide } }, not ${JSON.stringify(value)}`);
  }
  const { after, escalate, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`takes after and escalate, not ${extra.join(', ')}`);
  const first = durationMs(after);
  if ('problem' in first) return fail(`.after: ${first.problem}`);
  if (escalate === undefined) return { afterMs: first.ms };
  if (typeof escalate !== 'object' || escalate === null || Array.isArray(escalate)) {
    return fail(`.escalate is { after, decide }, not ${JSON.stringify(escalate)}`);
  }
  const { after: then, decide, ...more } = escalate as Record<string, unknown>;
  if (Object.keys(more).length > 0) fail(`.escalate takes after and decide, not ${Object.keys(more).join(', ')}`);
  const second = durationMs(then);
  if ('problem' in second) return fail(`.escalate.after: ${second.problem}`);
  const rule = AccessRuleSchema.safeParse(decide);
  if (!rule.success || rule.data.length === 0) {
    return fail(
      '.escalate.decide names who decides once the call escalates: a non-empty list of "*", "user:<id>", ' +
        `"role:<role>" or "group:<group>", not ${JSON.stringify(decide)}`,
    );
  }
  return { afterMs: first.ms, escalate: { afterMs: second.ms, decide: rule.data } };
}

/** A duration for people: the largest whole unit that fits (`30m`, `90s`, `2h`, `1d`). */
export function shownDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
