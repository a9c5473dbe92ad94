/**
 * A call that waits on a decision: pending from the moment it asks until a decision resolves it, with
 * durable timers for its deadline when it has one.
 */
import { condition } from '@temporalio/workflow';
import type { ModelToolCall } from '../../protocol/activities.js';
import { msUntil } from '../../approvals/deadline.js';
import type { LedgerEffect, Resolution } from '../../approvals/ledger-effects.js';
import type { ApprovalLedger } from '../../approvals/ledger.js';
import type { Waiting } from '../../approvals/own-calls.js';
import { waitSpan } from './spans.js';

export class DecisionWaits {
  /** Accepted decisions, by the own call they resolve, until its waiter takes them. */
  private readonly resolutions = new Map<string, Resolution>();

  constructor(
    private readonly ledger: ApprovalLedger,
    /** Carries out the ledger's effects. */
    private readonly apply: (effects: LedgerEffect[]) => void,
    /** The call stopped: it waits now. */
    private readonly stopped: () => void,
  ) {}

  /** Waits until a decision resolves this call, which is pending meanwhile. */
  forDecision(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    return waitSpan(waiting.kind, call.toolName, () => this.decided(call, waiting));
  }

  /** The ledger's `resolve`: the call counts as going on again the moment it is decided. */
  resolve(toolCallId: string, resolution: Resolution): void {
    this.resolutions.set(toolCallId, resolution);
  }

  private async decided(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    this.apply(this.ledger.ask(call, waiting));
    this.stopped();
    const resolved = () => this.resolutions.has(call.toolCallId);
    // Only a call with a deadline starts timers: a run without one issues the commands it always did. An
    // approval has one from its tool or agent; a suspension only from a workflow tool (suspendWorkflowTool).
    if (waiting.expiresAt) await this.untilDeadline(call.toolCallId, waiting, resolved);
    await condition(resolved);
    const resolution = this.resolutions.get(call.toolCallId)!;
    this.resolutions.delete(call.toolCallId);
    return resolution;
  }

  /**
   * Durable timers: the first escalates the call (when its deadline does), the second expires it. They
   * fire on the server whether a worker runs or not; the run acts on them when one does. A decision
   * that arrives first (or in the same activation) wins: escalating or expiring a call that is no
   * longer waiting changes nothing.
   */
  private async untilDeadline(toolCallId: string, waiting: Waiting, resolved: () => boolean): Promise<void> {
    const { escalation, expiresAt } = waiting;
    if (escalation && !(await condition(resolved, msUntil(escalation.at, Date.now())))) {
      this.apply(this.ledger.escalate(toolCallId, new Date().toISOString()));
    }
    if (resolved() || (await condition(resolved, msUntil(expiresAt!, Date.now())))) return;
    this.apply(this.ledger.expire(toolCallId, new Date().toISOString()));
  }
}
