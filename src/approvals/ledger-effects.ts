/**
 * What the approval ledger tells the workflow to do: its effects, in order, and what an accepted
 * decision hands to the call that waits on it. Pure types; sandbox-safe.
 */
import type { DecisionKind, DecisionRecord, DecisionSignal, PendingToolCall } from '../schemas/decisions.js';
import type { ReceiptEvidence } from './receipts.js';

/**
 * An accepted decision, handed to the call that waits on it; `expire` when the call's approval
 * deadline passed first (its `decision` then names only the trail entry).
 */
export interface Resolution {
  kind: DecisionKind | 'expire';
  decision: DecisionSignal;
  record: DecisionRecord;
  /** What the decision's receipt binds (a resume's is made once the tool has checked the data). */
  evidence?: ReceiptEvidence;
}

/**
 * What the workflow does about an event, in the order given (the order of the workflow's commands
 * must not change between versions, or runs in flight fail to replay).
 */
export type LedgerEffect =
  /** The trail has a new entry: the memo and the parent must hear of it. */
  | { type: 'record'; record: DecisionRecord }
  /** A decision was refused: counted among the run's refusals (never in the trail); the parent hears of it. */
  | { type: 'refused'; record: DecisionRecord }
  /** What the run waits on changed. */
  | { type: 'change' }
  /** A call starts to wait (here, or below: then qualified): tell the stream. */
  | { type: 'waits'; call: PendingToolCall }
  /**
   * One approval of several an own call needs was counted: the call waits on. The stream shows that the
   * decision was taken (a segment that begins and ends again, with the approvals so far).
   */
  | { type: 'counted'; streamGraceMs?: number }
  /** An own call is decided: the call that waits goes on with this. */
  | { type: 'resolve'; toolCallId: string; resolution: Resolution }
  /**
   * A decision for a call that waits below: send `decision` (with the inner id) to that sub-agent's
   * run. `streamGraceMs` is the sender's, for this run's stream: it is not sent down.
   */
  | { type: 'forward'; childRunId: string; kind: DecisionKind; decision: DecisionSignal; streamGraceMs?: number }
  /**
   * A sub-agent's run paused (nothing goes on there without a decision), went on, or ended while
   * paused: the delegating call counts as waiting exactly while its sub-agent is paused.
   */
  | { type: 'child'; change: 'paused' | 'resumed' | 'ended-paused' }
  /** Something the run's webhook hears of, where the worker sends notifications (own calls only). */
  | { type: 'notify'; notice: Notice };

/**
 * What a run's webhook is told of one of its own calls: it starts waiting, is decided, escalates to
 * other approvers, or expires. A sub-agent's run tells of its own calls itself.
 */
export interface Notice {
  event: 'waiting' | 'decided' | 'escalated' | 'expired';
  call: PendingToolCall;
  /** The trail entry (the decision, the escalation, the expiry). */
  record?: DecisionRecord;
}
