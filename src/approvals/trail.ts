/**
 * What a run keeps of its decisions: the trail (accepted decisions, and what the run did itself:
 * escalations, expiries), a receipt of each in a hash chain (see receipts.ts), its refusals (counted,
 * the last few kept: see {@link RefusalLog}), and the verdicts a parent run has not heard of yet. Pure.
 */
import type { DecisionRecord, RefusalSummary } from '../schemas/decisions.js';
import type { ReceiptHead } from '../schemas/receipts.js';
import type { LedgerEffect } from './ledger-effects.js';
import { NO_EVIDENCE, ReceiptChain, type ReceiptEvidence } from './receipts.js';
import { RefusalLog } from './refusal-log.js';

/** What a run that continued as new hands its trail: the last entries, the refusals, the receipts' head. */
export interface CarriedTrail {
  trail?: DecisionRecord[];
  refusals?: RefusalSummary;
  receipts?: ReceiptHead;
}

export class DecisionTrail {
  private readonly entries: DecisionRecord[] = [];
  private readonly refusals: RefusalLog;
  /** Accepted decisions by tool-call id, to tell "already decided" from "unknown". */
  readonly decided = new Map<string, DecisionRecord>();
  /** Verdicts (trail entries and refusals) a parent run has not been sent yet. */
  private unreported: DecisionRecord[] = [];
  /**
   * The receipts of the accepted entries. Refusals get none: they change nothing, and a receipt each would
   * let whoever can send a signal grow the run's state without end.
   */
  readonly receipts: ReceiptChain;

  /**
   * @param runId the run whose trail it is (each receipt names it)
   * @param carried the trail, refusals and receipts' head a run that continued as new carries over
   */
  constructor(runId: string, carried: CarriedTrail = {}) {
    this.receipts = new ReceiptChain(runId, carried.receipts);
    const trail = carried.trail ?? [];
    // Runs from before kept refusals in the trail: they stay there as they were.
    this.entries.push(...trail);
    this.refusals = new RefusalLog(carried.refusals);
    for (const d of trail) if (d.accepted && d.toolCallId && d.kind !== 'escalate') this.decided.set(d.toolCallId, d);
  }

  /** The whole trail, oldest first. */
  all(): DecisionRecord[] {
    return [...this.entries];
  }

  /** How many decisions the run refused, and the last few. */
  refused(): RefusalSummary {
    return this.refusals.summary();
  }

  /** The verdicts since the last call (what a parent has not been sent yet). */
  drainVerdicts(): DecisionRecord[] {
    const verdicts = this.unreported;
    this.unreported = [];
    return verdicts;
  }

  /** The verdict on this decision, once the trail (or the refusals kept) has it. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.entries.find((d) => d.decisionId === decisionId) ?? this.refusals.find(decisionId);
  }

  /**
   * Keeps a verdict: an accepted one in the trail, with its receipt (made of the record and `evidence`:
   * every accepted entry has one, with what is known of it), a refusal among the refusals.
   */
  record(record: DecisionRecord, evidence: ReceiptEvidence = NO_EVIDENCE): LedgerEffect[] {
    if (!record.accepted) {
      const kept = this.refusals.add(record);
      this.unreported.push(kept);
      return [{ type: 'refused', record: kept }];
    }
    this.entries.push(record);
    this.receipts.append(record, evidence);
    this.unreported.push(record);
    return [{ type: 'record', record }];
  }
}
