/**
 * What people and the model are told of a decided call: who decided it, and why it did not run. Pure.
 */
import type { DecisionRecord } from '../schemas/decisions.js';
import { MAX_DECLINE_MESSAGE } from '../schemas/limits.js';

/** Who made a decision, for people and the model: the principal, else the free-text note. */
export function decidedBy(record: Pick<DecisionRecord, 'principal' | 'by'>): string | null {
  return record.principal?.name ?? record.principal?.id ?? record.by;
}

/** What a call whose approval deadline passed tells the model. */
export function expiredMessage(toolName: string, askedAt: string, at: string): string {
  return (
    `The call of tool "${toolName}" was not approved in time: it waited for approval from ${askedAt} ` +
    `and expired at ${at}. It did not run, and nobody declined it; ask again if it is still needed.`
  );
}

/** What the model hears of a suspended call nobody resumed before its deadline. */
export function expiredSuspensionMessage(toolName: string, askedAt: string, at: string): string {
  return (
    `The call of tool "${toolName}" waited for a person's answer from ${askedAt} and expired at ${at}: ` +
    `nobody answered in time, and it did not go on. Ask again if it is still needed.`
  );
}

/** What a declined call tells the model. */
export function declineMessage(toolName: string, by: string | null, reason: string | null): string {
  const who = by ? ` by ${by}` : '';
  const why = reason ? `: ${reason}` : '';
  return `The call of tool "${toolName}" was declined${who}${why}. It did not run.`;
}

/** Mastra's words for a declined call, which its model gets as the tool's result. */
export const MASTRA_DECLINE_MESSAGE = 'Tool call was not approved by the user';

/** The placeholders an agent's `declineMessage` may hold. */
export const DECLINE_PLACEHOLDERS = ['toolName', 'by', 'reason'] as const;

/** Why `value` is not an agent's `declineMessage` (`'mastra'`, or a template), or undefined when it is one. */
export function declineWordingProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    const example = "'The call of {toolName} was declined: {reason}'";
    return `is 'mastra' or a text such as ${example}, not ${JSON.stringify(value)}`;
  }
  if (value.length > MAX_DECLINE_MESSAGE) return `is at most ${MAX_DECLINE_MESSAGE} characters, not ${value.length}`;
  const unknown = [...value.matchAll(/\{(\w*)\}/g)]
    .map(([, name]) => name!)
    .filter((name) => !(DECLINE_PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const placeholders = DECLINE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ');
    return `names {${unknown[0]}}, which is not a placeholder (they are ${placeholders})`;
  }
  return undefined;
}

/**
 * A declined call's outcome: the application is told who declined it and why (`message`); the model, in
 * the agent's wording (`modelText`): with `'mastra'`, Mastra's words as the tool's result; else the
 * agent's text, its placeholders filled (an absent decider or reason: empty). Without a wording, the
 * model is told what the application is.
 */
export function declinedOutcome(
  wording: string | undefined,
  toolName: string,
  by: string | null,
  reason: string | null,
): { type: 'declined'; message: string; modelText?: string; asResult?: true } {
  const message = declineMessage(toolName, by, reason);
  if (wording === undefined) return { type: 'declined', message };
  if (wording === 'mastra') return { type: 'declined', message, modelText: MASTRA_DECLINE_MESSAGE, asResult: true };
  const values: Record<string, string> = { toolName, by: by ?? '', reason: reason ?? '' };
  const modelText = wording.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  return { type: 'declined', message, modelText };
}
