/**
 * Quorum: a call that needs several approvers runs once that many distinct principals the rule admits
 * have approved it; each counts once, the starter is refused as for any approval, an approval without a
 * principal or with changed arguments does not count, and one decline ends it.
 */
import { describe, expect, it } from 'vitest';
import { callAccess } from '../../src/approvals/access.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import type { LedgerEffect } from '../../src/approvals/ledger-effects.js';
import type { AccessPolicy } from '../../src/schemas/access.js';

const AT = '2026-12-06T10:00:00.000Z';
const types = (effects: LedgerEffect[]) => effects.map((e) => e.type);
const ann = { id: 'ann', roles: ['approver'] };
const bob = { id: 'bob', roles: ['approver'] };
const eve = { id: 'eve' };
const tina = { id: 'tina', roles: ['approver'] };
const policy: AccessPolicy = { decide: ['role:approver'], tools: { transfer: { quorum: 2 } } };

/** A run started by Tina, waiting on a transfer that needs two approvers. */
function waiting() {
  const ledger = new ApprovalLedger('run-1');
  ledger.govern(policy, { resourceId: undefined, startedBy: tina });
  ledger.ask(
    { toolCallId: 'c1', toolName: 'transfer', args: { amount: 500 }, fingerprint: 'fp-1' },
    {
      kind: 'approval',
      askedAt: AT,
    },
  );
  return ledger;
}

const approve = (ledger: ApprovalLedger, decisionId: string, principal?: object, extra: object = {}) =>
  ledger.decide(
    'approve',
    { decisionId, toolCallId: 'c1', fingerprint: 'fp-1', ...(principal ? { principal } : {}), ...extra },
    AT,
  );

describe('quorum', () => {
  it('is set on approvals only, from the tool or the agent', () => {
    expect(callAccess(policy, 'transfer', 'approval')).toMatchObject({ quorum: { required: 2, approvals: [] } });
    expect(callAccess(policy, 'transfer', 'suspend').quorum).toBeUndefined();
    expect(callAccess({ quorum: 3 }, 'other', 'approval').quorum).toEqual({ required: 3, approvals: [] });
    expect(callAccess({ decide: ['*'] }, 'other', 'approval').quorum).toBeUndefined();
  });

  it('runs the call once two distinct approvers have approved, counting each once', () => {
    const ledger = waiting();
    expect(types(approve(ledger, 'a1', ann))).toEqual(['record', 'change', 'counted']);
    expect(ledger.verdict('a1')).toMatchObject({ accepted: true, quorum: { count: 1, of: 2 } });
    expect(ledger.pending()[0]!.quorum).toEqual({
      required: 2,
      approvals: [{ principal: 'ann', decisionId: 'a1', at: AT }],
    });
    // Ann again, with another decision id: she counts once.
    expect(types(approve(ledger, 'a2', ann))).toEqual(['refused']);
    expect(ledger.verdict('a2')).toMatchObject({
      accepted: false,
      refusal: {
        type: 'AlreadyDecided',
        message: expect.stringMatching(/"ann" approved it already \(1 of 2 so far\)/),
      },
    });
    const done = approve(ledger, 'b1', bob);
    expect(types(done)).toEqual(['record', 'resolve', 'change', 'notify']);
    expect(ledger.verdict('b1')).toMatchObject({ accepted: true, quorum: { count: 2, of: 2 } });
    expect(ledger.pending()).toEqual([]);
    expect(ledger.trail.receipts.view().receipts.map((r) => r.decisionId)).toEqual(['a1', 'b1']);
  });

  it('refuses the starter, a principal outside the rule, no principal, and changed arguments', () => {
    const ledger = waiting();
    const refusal = (id: string) => ledger.verdict(id)?.refusal?.type;
    approve(ledger, 't', tina);
    approve(ledger, 'e', eve);
    approve(ledger, 'n');
    approve(ledger, 'x', ann, { args: { amount: 5 } });
    expect(['t', 'e', 'n', 'x'].map(refusal)).toEqual(['SelfApproval', 'NotAllowed', 'NotAllowed', 'InvalidDecision']);
    expect(ledger.pending()[0]!.quorum!.approvals).toEqual([]);
  });

  it('counts no approval that names nobody, even where anyone may decide', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern({ quorum: 2 }, { resourceId: undefined, startedBy: undefined });
    const call = { toolCallId: 'c1', toolName: 'transfer', args: {}, fingerprint: 'fp-1' };
    ledger.ask(call, { kind: 'approval', askedAt: AT });
    expect(types(approve(ledger, 'n1'))).toEqual(['refused']);
    expect(ledger.verdict('n1')?.refusal?.message).toMatch(/an approval that names no principal does not count$/);
    expect(types(approve(ledger, 'a1', ann))).toEqual(['record', 'change', 'counted']);
  });

  it('passes each approval of a call that waits in a sub-agent down, and takes the next once one is counted', () => {
    const parent = new ApprovalLedger('run-1');
    parent.childStarted('call-0');
    const quorum = { required: 2, approvals: [] };
    const inner = { toolCallId: 'x', toolName: 'transfer', args: {}, fingerprint: 'fp-x', path: [], askedAt: AT };
    const pending = [{ ...inner, kind: 'approval' as const, requiresApproval: true, quorum }];
    const report = { viaToolCallId: 'call-0', runId: 'run-1::call-0', agentId: 'sub', paused: true };
    parent.childReport({ ...report, seq: 0, pending, verdicts: [] });
    const down = (id: string, principal: object) =>
      parent.decide('approve', { decisionId: id, toolCallId: 'call-0/x', principal }, AT);
    expect(types(down('a1', ann))).toEqual(['forward']);
    // While the first is on its way down, a second waits for its verdict.
    expect(types(down('b0', bob))).toEqual(['refused']);
    const verdict = { decisionId: 'a1', kind: 'approve' as const, toolCallId: 'x', toolName: 'transfer' };
    const counted = {
      ...verdict,
      by: null,
      reason: null,
      at: AT,
      accepted: true,
      principal: ann,
      quorum: { count: 1, of: 2 },
    };
    const approvals = [{ principal: 'ann', decisionId: 'a1', at: AT }];
    parent.childReport({
      ...report,
      seq: 1,
      pending: [{ ...pending[0]!, quorum: { ...quorum, approvals } }],
      verdicts: [counted],
    });
    expect(types(down('a2', ann))).toEqual(['refused']);
    expect(parent.verdict('a2')?.refusal?.type).toBe('AlreadyDecided');
    expect(types(down('b1', bob))).toEqual(['forward']);
  });

  it('counts no approval given before an escalation: only the escalation’s approvers decide from then on', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern(policy, { resourceId: undefined, startedBy: tina });
    const escalation = { at: '2026-12-06T10:30:00.000Z', decide: ['role:lead'] };
    const call = { toolCallId: 'c1', toolName: 'transfer', args: {}, fingerprint: 'fp-1' };
    ledger.ask(call, { kind: 'approval', askedAt: AT, expiresAt: '2026-12-06T11:00:00.000Z', escalation });
    approve(ledger, 'a1', ann);
    ledger.escalate('c1', escalation.at);
    expect(ledger.pending()[0]!.quorum).toEqual({ required: 2, approvals: [] });
    const lead = (id: string) => ({ id, roles: ['lead'] });
    expect(types(approve(ledger, 'l1', lead('lou')))).toEqual(['record', 'change', 'counted']);
    expect(types(approve(ledger, 'l2', lead('lea')))).toEqual(['record', 'resolve', 'change', 'notify']);
  });

  it('ends the call on one decline, whatever approvals it had', () => {
    const ledger = waiting();
    approve(ledger, 'a1', ann);
    const declined = ledger.decide('decline', { decisionId: 'd1', toolCallId: 'c1', principal: bob, reason: 'no' }, AT);
    expect(declined).toContainEqual(
      expect.objectContaining({ type: 'resolve', resolution: expect.objectContaining({ kind: 'decline' }) }),
    );
    expect(ledger.pending()).toEqual([]);
    expect(types(approve(ledger, 'b1', bob))).toEqual(['refused']);
  });
});
