/**
 * Signed decisions: what an approver's Ed25519 signature covers, so that a decision cannot be forged
 * by whoever can send a signal, nor replayed on another call, run or kind. Pure (the signing and the
 * verifying, which need `node:crypto`, are in the client and an activity); sandbox-safe.
 */
import type { DecisionKind, DecisionSignal } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import { canonicalJson, sha256Hex } from './fingerprint.js';

/** Where a signature binds a decision: the run it was made for and the call, qualified from there. */
export interface SignatureBinding {
  runId: string;
  toolCallId: string;
}

/**
 * The text an approver signs: the run and call it is for, the call's fingerprint, the verdict, who
 * decides, until when, the decision's id (used once), and a hash of what it carries (resume data, a
 * result, changed arguments, a reason).
 */
export function signedText(
  kind: DecisionKind,
  decision: Pick<
    DecisionSignal,
    'decisionId' | 'fingerprint' | 'principal' | 'resumeData' | 'result' | 'args' | 'reason'
  >,
  binding: SignatureBinding,
  expiresAt: string,
): string {
  return signedTextOf(
    {
      kind,
      decisionId: decision.decisionId,
      fingerprint: decision.fingerprint ?? null,
      principalId: decision.principal?.id ?? null,
      data: decisionDataHash(decision),
    },
    binding,
    expiresAt,
  );
}

/** The text an approver signs, from what a receipt keeps of the decision (its data as a hash). */
export function signedTextOf(
  decision: { kind: string; decisionId: string; fingerprint: string | null; principalId: string | null; data: string },
  binding: SignatureBinding,
  expiresAt: string,
): string {
  return canonicalJson({
    v: 1,
    runId: binding.runId,
    toolCallId: binding.toolCallId,
    fingerprint: decision.fingerprint,
    kind: decision.kind,
    principal: decision.principalId,
    expiresAt,
    decisionId: decision.decisionId,
    data: decision.data,
  });
}

/** SHA-256 of what a decision carries (resume data, a result, changed arguments, a reason), as signed. */
export function decisionDataHash(decision: Pick<DecisionSignal, 'resumeData' | 'result' | 'args' | 'reason'>): string {
  const data: JsonValue = {
    resumeData: decision.resumeData ?? null,
    result: decision.result ?? null,
    args: decision.args ?? null,
    reason: decision.reason ?? null,
  };
  return sha256Hex(canonicalJson(data));
}

/**
 * The text a sender signs for a message to a working run (`sendMessage`), where the run takes signed
 * decisions only: the run it is for, the message's id (queued once), who sends it, until when, and a hash
 * of its text. A message decides nothing, but it steers the model: who sends it must be proven as an
 * approver's identity is.
 */
export function signedMessageText(
  message: { messageId: string; text: string; principal?: { id: string } },
  runId: string,
  expiresAt: string,
): string {
  return canonicalJson({
    v: 1,
    runId,
    kind: 'message',
    principal: message.principal?.id ?? null,
    expiresAt,
    messageId: message.messageId,
    text: sha256Hex(message.text),
  });
}

/**
 * The bindings under which a decision received by this run for this call is genuine: made for this
 * run, or for a run above it (sub-agents' runs are `<parent>::<delegating call>`), with the call's id
 * qualified by the delegating calls in between.
 */
export function acceptedBindings(runId: string, toolCallId: string): SignatureBinding[] {
  const hops = runId.split('::');
  return hops.map((_, i) => ({
    runId: hops.slice(0, i + 1).join('::'),
    toolCallId: [...hops.slice(i + 1), toolCallId].join('/'),
  }));
}
