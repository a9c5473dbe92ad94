/**
 * When a call that waits for approval escalates and expires, from when it was asked and the deadline
 * its tool (or agent) sets. Pure; sandbox-safe.
 */
import type { AccessRule } from '../schemas/access.js';
import type { ApprovalDeadlineSpec } from '../schemas/deadline.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';

/** The deadline that holds for a tool's calls: the tool's own, else the agent's. */
export function deadlineOf(
  tool: { approvalDeadline?: ApprovalDeadlineSpec },
  agent: { approvalDeadline?: ApprovalDeadlineSpec },
): ApprovalDeadlineSpec | undefined {
  return tool.approvalDeadline ?? agent.approvalDeadline;
}

/**
 * What the pending call shows of its deadline: when it expires (after the escalation, when there is
 * one), and when it escalates to whom. Nothing without a deadline, so such a call is listed as before.
 */
export function deadlineFields(
  askedAt: string,
  deadline: ApprovalDeadlineSpec | undefined,
): Pick<PendingToolCall, 'expiresAt' | 'escalation'> {
  if (!deadline) return {};
  const asked = Date.parse(askedAt);
  const first = asked + deadline.afterMs;
  const { escalate } = deadline;
  if (!escalate) return { expiresAt: new Date(first).toISOString() };
  return {
    expiresAt: new Date(first + escalate.afterMs).toISOString(),
    escalation: { at: new Date(first).toISOString(), decide: escalate.decide },
  };
}

/** The ms from `now` until `at` (at least 1: a timer that is due fires at once). */
export function msUntil(at: string, now: number): number {
  return Math.max(1, Date.parse(at) - now);
}

/** Everyone the agent's deadlines (its own, its tools') escalate to: they decide, so they read its runs. */
export function escalationDeciders(spec: {
  approvalDeadline?: ApprovalDeadlineSpec;
  tools: Array<{ approvalDeadline?: ApprovalDeadlineSpec }>;
}): AccessRule {
  const rules = [spec.approvalDeadline, ...spec.tools.map((t) => t.approvalDeadline)].flatMap(
    (d) => d?.escalate?.decide ?? [],
  );
  return [...new Set(rules)];
}

/** Whether `when` has come by `at` (both ISO 8601). */
function due(when: string | undefined, at: string): boolean {
  return when !== undefined && Date.parse(when) <= Date.parse(at);
}

/**
 * The kinds of call a deadline holds for: an approval (its tool's or agent's), and a suspension a workflow
 * tool gave one (`suspendWorkflowTool`). A call the run waits on for another reason has none.
 */
export function hasDeadlines(kind: PendingToolCall['kind']): boolean {
  return kind === 'approval' || kind === 'suspend';
}

/** Whether a waiting call's escalation or expiry has come by `at` and has not been acted on. */
export function overdue(call: PendingToolCall, at: string): { escalate: boolean; expire: boolean } {
  const escalate = hasDeadlines(call.kind) && !!call.escalation && !call.escalation.escalated;
  return {
    escalate: escalate && due(call.escalation?.at, at),
    expire: hasDeadlines(call.kind) && due(call.expiresAt, at),
  };
}

/** The call once escalated: from now on only the escalation's approvers may decide it. */
export function escalated(call: PendingToolCall & { escalation: NonNullable<PendingToolCall['escalation']> }) {
  // Only the escalation's approvers decide from now on: approvals given before count no more.
  const quorum = call.quorum ? { quorum: { ...call.quorum, approvals: [] } } : {};
  return { ...call, ...quorum, decide: call.escalation.decide, escalation: { ...call.escalation, escalated: true } };
}

/** The trail entry for what the run did itself when a call's time came (no principal decided it). */
export function deadlineRecord(kind: 'escalate' | 'expire', call: PendingToolCall, at: string): DecisionRecord {
  const reason =
    kind === 'escalate'
      ? `no decision since ${call.askedAt}: only ${call.escalation?.decide.join(', ')} may decide it now` +
        (call.expiresAt ? `, until ${call.expiresAt}` : '')
      : `nobody decided between ${call.askedAt} and ${call.expiresAt ?? at}`;
  return {
    decisionId: `${kind}:${call.toolCallId}`,
    kind,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    by: null,
    reason,
    at,
    accepted: true,
  };
}
