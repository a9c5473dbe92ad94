/**
 * What the trail keeps of a decision, accepted or refused. The trail is mirrored into the memo and
 * sent to the parent run, so every field is bounded whatever the signal held. Pure.
 */
import type { Principal } from '../schemas/access.js';
import type { DecisionKind, DecisionRecord, DecisionSignal } from '../schemas/decisions.js';
import { truncate, type JsonValue } from '../schemas/json.js';
import { elided, MAX_ID, MAX_QUALIFIED_ID, MAX_TEXT } from '../schemas/limits.js';
import type { DecisionCheck } from './rules.js';

/**
 * The trail entry for a decision; `approved` is set for an approval with changed arguments. Every
 * field is bounded (the trail is mirrored into the memo): the principal keeps who it is, not its
 * roles, and large changed arguments are only mentioned (the signal in the history has them).
 */
export function decisionRecord(
  kind: DecisionKind,
  decision: Pick<DecisionSignal, 'decisionId'> & Partial<DecisionSignal>,
  at: string,
  check: DecisionCheck,
  approved?: { args: JsonValue; fingerprint: string },
): DecisionRecord {
  const call = check.call;
  const principal = decision.principal;
  return {
    decisionId: decision.decisionId,
    kind,
    toolCallId: call?.toolCallId ?? decision.toolCallId ?? null,
    toolName: call?.toolName ?? null,
    ...(principal ? { principal: whoDecided(principal) } : {}),
    by: decision.by ?? null,
    reason: decision.reason ?? null,
    at,
    ...(decision.sentAt ? { sentAt: decision.sentAt } : {}),
    accepted: check.accepted,
    ...(check.accepted ? {} : { refusal: { type: check.type, message: oneLineMessage(check.message) } }),
    ...(check.accepted && approved ? { approved: { ...approved, args: elided(approved.args, MAX_RECORD_ARGS) } } : {}),
  };
}

/** Changed arguments larger than this are only mentioned in the trail. */
const MAX_RECORD_ARGS = 2048;

function whoDecided({ id, name, tenant, via }: Principal): Principal {
  return { id, ...(name ? { name } : {}), ...(tenant ? { tenant } : {}), ...(via ? { via } : {}) };
}

/** A refusal as the trail keeps it: one line, bounded. */
function oneLineMessage(message: string): string {
  return truncate(message.replace(/\s*\n\s*/g, '; '), MAX_REFUSAL_MESSAGE);
}

/** Refusal messages are kept in the memo; a huge bad payload must not make them huge. */
const MAX_REFUSAL_MESSAGE = 1000;

/** What the trail can keep of a signal that does not fit its schema: the fields that are short strings. */
export function salvage(raw: unknown): Pick<DecisionSignal, 'decisionId' | 'toolCallId' | 'by'> {
  const fields = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const short = (key: string, max: number) => {
    const value = fields[key];
    return typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
  };
  const toolCallId = short('toolCallId', MAX_QUALIFIED_ID);
  const by = short('by', MAX_TEXT);
  return {
    decisionId: short('decisionId', MAX_ID) ?? 'invalid',
    ...(toolCallId ? { toolCallId } : {}),
    ...(by ? { by } : {}),
  };
}
