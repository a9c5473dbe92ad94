/**
 * The calls a run's own tools wait on, for the approval ledger: a call asks, escalates or expires when
 * its approval deadline says so, or a decision takes it. A sub-agent's calls are kept apart
 * (sub-agent-calls.ts): their deadlines are their own run's business. Pure.
 */
import type { AccessPolicy } from '../schemas/access.js';
import type { PendingToolCall } from '../schemas/decisions.js';
import { callAccess } from './access.js';
import { deadlineRecord, escalated, hasDeadlines, overdue } from './deadline.js';
import type { LedgerEffect, Resolution } from './ledger-effects.js';
import { deadlineEvidence } from './receipts.js';
import type { DecisionTrail } from './trail.js';

/** The part of a pending call the waiting tool call gives; the rest comes from the model's call. */
export type Waiting = Pick<
  PendingToolCall,
  | 'kind'
  | 'askedAt'
  | 'suspendPayload'
  | 'resumeSchema'
  | 'inputSchema'
  | 'display'
  | 'expiresAt'
  | 'escalation'
  | 'uncertainty'
  | 'preview'
  | 'judged'
  | 'grantable'
>;

export class OwnCalls {
  private readonly calls: PendingToolCall[] = [];

  /**
   * @param trail where escalations and expiries are recorded, and an expired call counts as decided
   * @param deadlinesFirst see the ledger's constructor
   */
  constructor(
    private readonly trail: DecisionTrail,
    private readonly deadlinesFirst: () => boolean,
  ) {}

  /** The calls, in the order they asked. */
  list(): readonly PendingToolCall[] {
    return this.calls;
  }

  /** A call starts to wait on a decision, under the agent's access policy. */
  ask(
    call: Pick<PendingToolCall, 'toolCallId' | 'toolName' | 'args' | 'fingerprint'>,
    waiting: Waiting,
    access: AccessPolicy | undefined,
  ): LedgerEffect[] {
    const entry: PendingToolCall = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
      fingerprint: call.fingerprint,
      requiresApproval: waiting.kind === 'approval',
      path: [],
      ...waiting,
      ...callAccess(access, call.toolName, waiting.kind),
    };
    this.calls.push(entry);
    return [
      { type: 'change' },
      { type: 'waits', call: entry },
      { type: 'notify', notice: { event: 'waiting', call: entry } },
    ];
  }

  /**
   * A call's approval deadline passed its first period: from now on only the escalation's approvers
   * may decide it. Recorded in the trail; nothing happens to a call decided meanwhile.
   */
  escalate(toolCallId: string, at: string): LedgerEffect[] {
    const index = this.calls.findIndex((c) => c.toolCallId === toolCallId && hasDeadlines(c.kind));
    const call = this.calls[index];
    if (!call?.escalation || call.escalation.escalated) return [];
    const now = escalated({ ...call, escalation: call.escalation });
    this.calls[index] = now;
    const record = deadlineRecord('escalate', call, at);
    return [
      ...this.trail.record(record, deadlineEvidence('escalate', call)),
      { type: 'change' },
      { type: 'notify', notice: { event: 'escalated', call: now, record } },
    ];
  }

  /**
   * A call's deadline passed: it is recorded as expired (not declined), never runs, and takes
   * no decision after. Nothing happens to a call decided meanwhile.
   */
  expire(toolCallId: string, at: string): LedgerEffect[] {
    const call = this.calls.find((c) => c.toolCallId === toolCallId && hasDeadlines(c.kind));
    if (!call) return [];
    const record = deadlineRecord('expire', call, at);
    this.trail.decided.set(toolCallId, record);
    this.calls.splice(this.calls.indexOf(call), 1);
    const resolution: Resolution = { kind: 'expire', decision: { decisionId: record.decisionId }, record };
    return [
      ...this.trail.record(record, deadlineEvidence('expire', call)),
      { type: 'resolve', toolCallId, resolution },
      { type: 'change' },
      { type: 'notify', notice: { event: 'expired', call, record } },
    ];
  }

  /** The escalations and expiries of calls whose time has come by `at` (none before the patch). */
  deadlinesDue(at: string): LedgerEffect[] {
    const due = this.calls.map((call) => ({ call, ...overdue(call, at) })).filter((c) => c.escalate || c.expire);
    if (due.length === 0 || !this.deadlinesFirst()) return [];
    return due.flatMap(({ call, escalate, expire }) => [
      ...(escalate ? this.escalate(call.toolCallId, at) : []),
      ...(expire ? this.expire(call.toolCallId, at) : []),
    ]);
  }

  /** One approval of several the call needs: counted, and the call waits on. */
  counted(call: PendingToolCall, approval: { principal: string; decisionId: string; at: string }): void {
    const { quorum } = call;
    if (!quorum) return;
    this.calls[this.calls.indexOf(call)] = {
      ...call,
      quorum: { ...quorum, approvals: [...quorum.approvals, approval] },
    };
  }

  /** A decision took the call: it waits no more. */
  remove(call: PendingToolCall): void {
    this.calls.splice(this.calls.indexOf(call), 1);
  }

  /** The run ended: nothing waits any more. */
  clear(): void {
    this.calls.length = 0;
  }
}
