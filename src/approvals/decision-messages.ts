/**
 * What people and the model are told of a decided call: who decided it, and why it did not run. Pure.
 */
import type { DecisionRecord } from '../schemas/decisions.js';

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

/** What a declined call tells the model. */
export function declineMessage(toolName: string, by: string | null, reason: string | null): string {
  const who = by ? ` by ${by}` : '';
  const why = reason ? `: ${reason}` : '';
  return `The call of tool "${toolName}" was declined${who}${why}. It did not run.`;
}
