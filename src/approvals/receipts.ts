/**
 * Receipts: each accepted decision (and each escalation or expiry) becomes a receipt that names the
 * call's fingerprint, a hash of the data decided, the rule the decider was held to, who decided, when,
 * and the approver's signature, chained to the receipt before by its hash. The workflow builds the chain
 * as it takes decisions; `agentctl audit verify` checks an exported chain offline. Pure; sandbox-safe.
 */
import type { AccessRule } from '../schemas/access.js';
import type { DecisionKind, DecisionRecord, DecisionSignal, PendingToolCall } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { ExecutionReceipts, Receipt, ReceiptHead } from '../schemas/receipts.js';
import { canonicalJson, sha256Hex } from './fingerprint.js';
import { decisionDataHash } from './signed-decision.js';

/** What a receipt takes from the decision and the call, beside the trail entry. */
export interface ReceiptEvidence {
  fingerprint: string | null;
  data: string | null;
  resolution: Receipt['resolution'];
  rule: AccessRule | null;
  signature: Receipt['signature'];
}

/** The evidence of a decision on a call: its fingerprint, its data, the rule, the signature. */
export function decisionEvidence(kind: DecisionKind, decision: DecisionSignal, call: PendingToolCall): ReceiptEvidence {
  const { signature } = decision;
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

  /** The receipt of an accepted trail entry, chained to the last one. */
  append(record: DecisionRecord, evidence: ReceiptEvidence): Receipt {
    const principal = record.principal;
    const fields: Omit<Receipt, 'hash'> = {
      v: 1,
      runId: this.runId,
      seq: this.head.next,
      prev: this.head.hash,
      decisionId: record.decisionId,
      kind: record.kind,
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      fingerprint: evidence.fingerprint,
      approvedFingerprint: record.approved?.fingerprint ?? null,
      data: evidence.data,
      resolution: evidence.resolution,
      rule: evidence.rule,
      principal: principal
        ? {
            id: principal.id,
            ...(principal.name ? { name: principal.name } : {}),
            ...(principal.tenant ? { tenant: principal.tenant } : {}),
            ...(principal.via ? { via: principal.via } : {}),
          }
        : null,
      by: record.by,
      reason: record.reason,
      at: record.at,
      sentAt: record.sentAt ?? null,
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
