/**
 * Receipts: each accepted decision (and each escalation or expiry) becomes a receipt that names the
 * call's fingerprint, a hash of the data decided, the rule the decider was held to, who decided, when,
 * and the approver's signature, chained to the receipt before by its hash. The workflow builds the chain
 * as it takes decisions; `agentctl audit verify` checks an exported chain offline. Pure; sandbox-safe.
 */
import type { AccessRule } from '../schemas/access.js';
import type { DecisionKind, DecisionRecord, DecisionSignal, PendingToolCall } from '../schemas/decisions.js';
import { truncate, type JsonValue } from '../schemas/json.js';
import { MAX_ID, MAX_QUALIFIED_ID, MAX_TEXT } from '../schemas/limits.js';
import type { ExecutionReceipts, Receipt, ReceiptHead } from '../schemas/receipts.js';
import { canonicalJson, sha256Hex } from './fingerprint.js';
import { decisionDataHash } from './signed-decision.js';

export { receiptLine } from './receipt-line.js';

/** What a receipt takes from the decision and the call, beside the trail entry. */
export interface ReceiptEvidence {
  fingerprint: string | null;
  data: string | null;
  resolution: Receipt['resolution'];
  rule: AccessRule | null;
  signature: Receipt['signature'];
}

/**
 * The evidence of a decision on a call: its fingerprint, its data, the rule, and the signature where the
 * worker checked it (elsewhere a signature is whatever the sender wrote, and a receipt does not keep it).
 */
export function decisionEvidence(
  kind: DecisionKind,
  decision: DecisionSignal,
  call: PendingToolCall,
  signatureChecked: boolean,
): ReceiptEvidence {
  const signature = signatureChecked ? decision.signature : undefined;
  return {
    fingerprint: call.fingerprint,
    data: decisionDataHash(decision),
    resolution: kind === 'resolve' ? (decision.resolution ?? null) : null,
    rule: (call.escalation?.escalated ? call.escalation.decide : call.decide) ?? null,
    signature: signature ? { ...signature, fingerprint: decision.fingerprint ?? null } : null,
  };
}

/** The evidence of what the run did itself when a call's deadline passed: for an escalation, its new rule. */
export function deadlineEvidence(kind: 'escalate' | 'expire', call: PendingToolCall): ReceiptEvidence {
  const rule = kind === 'escalate' ? (call.escalation?.decide ?? null) : null;
  return { ...NO_EVIDENCE, fingerprint: call.fingerprint, rule };
}

/** The evidence of an entry whose call the run no longer knows. */
export const NO_EVIDENCE: ReceiptEvidence = Object.freeze({
  fingerprint: null,
  data: null,
  resolution: null,
  rule: null,
  signature: null,
});

/** The hash of a receipt: SHA-256 of the canonical JSON of every field but `hash`. */
export function receiptHash(receipt: Omit<Receipt, 'hash'> | Receipt): string {
  const { hash: _hash, ...fields } = receipt as Receipt;
  return sha256Hex(canonicalJson(fields as unknown as JsonValue));
}

/** A SHA-256 in hex, or null: what a receipt's hash fields hold. */
function hashOrNull(value: string | null | undefined): string | null {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : null;
}

/** A run's chain of receipts, as this execution builds it (from the head an earlier one carried over). */
export class ReceiptChain {
  private readonly receipts: Receipt[] = [];
  private head: ReceiptHead;

  constructor(
    private readonly runId: string,
    private readonly from: ReceiptHead = { next: 0, hash: null },
  ) {
    this.head = from;
  }

  /**
   * The receipt of an accepted trail entry, chained to the last one. A sub-agent's verdict comes in a
   * signal whose sender nobody vouches for: whatever it holds, each field is bounded and each hash is one,
   * so that the chain always fits its schema (a receipt that did not would fail every export of the run).
   */
  append(record: DecisionRecord, evidence: ReceiptEvidence): Receipt {
    const principal = record.principal;
    const text = (value: string | null | undefined, max: number) => (value == null ? null : truncate(value, max));
    const fields: Omit<Receipt, 'hash'> = {
      v: 1,
      runId: this.runId,
      seq: this.head.next,
      prev: this.head.hash,
      decisionId: truncate(record.decisionId, MAX_ID),
      kind: record.kind,
      toolCallId: text(record.toolCallId, MAX_QUALIFIED_ID),
      toolName: text(record.toolName, MAX_ID),
      fingerprint: hashOrNull(evidence.fingerprint),
      approvedFingerprint: hashOrNull(record.approved?.fingerprint),
      data: hashOrNull(evidence.data),
      resolution: evidence.resolution,
      rule: evidence.rule,
      ruling: record.ruling ? rulingOf(record.ruling) : null,
      principal: principal
        ? {
            id: truncate(principal.id, MAX_ID),
            ...(principal.name ? { name: truncate(principal.name, MAX_ID) } : {}),
            ...(principal.tenant ? { tenant: truncate(principal.tenant, MAX_ID) } : {}),
            ...(principal.via ? { via: truncate(principal.via, MAX_ID) } : {}),
          }
        : null,
      by: text(record.by, MAX_TEXT),
      reason: text(record.reason, MAX_TEXT),
      at: truncate(record.at, MAX_ID),
      sentAt: text(record.sentAt, MAX_ID),
      signature: evidence.signature,
    };
    const receipt: Receipt = { ...fields, hash: receiptHash(fields) };
    this.receipts.push(receipt);
    this.head = { next: receipt.seq + 1, hash: receipt.hash };
    return receipt;
  }

  /** Where the chain stands: what a continuation carries over. */
  carried(): ReceiptHead {
    return { ...this.head };
  }

  /** This execution's receipts, and the head it started from. */
  view(): ExecutionReceipts {
    return { from: { ...this.from }, receipts: [...this.receipts] };
  }
}

/** A ruling as a receipt binds it; the judge's model only where a judge gave it (older receipts hash as before). */
function rulingOf(ruling: NonNullable<DecisionRecord['ruling']>): NonNullable<Receipt['ruling']> {
  const judge = ruling.judge === undefined ? {} : { judge: truncate(ruling.judge, MAX_ID) };
  return { version: truncate(ruling.version, 64), rule: ruling.rule, ...judge };
}
