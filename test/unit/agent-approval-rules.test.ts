/**
 * Approval rules: the first rule that matches a call (tool, arguments, who started the run, the hour)
 * gives the verdict; none matching asks a person. A deny fails closed, an allow never loosens what the
 * run or the policy asks for, and a verdict is recorded as the rules' own, which no signal can carry.
 */
import { describe, expect, it } from 'vitest';
import { checkApprovalRules, evaluateRules } from '../../src/approvals/approval-rules.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import type { AccessPolicy, ApprovalRules } from '../../src/schemas/access.js';

const rules: ApprovalRules = {
  version: 'v7',
  rules: [
    { tool: 'refund', where: ['amount>1000'], verdict: 'deny', reason: 'over the limit' },
    { tool: 'refund', startedBy: ['role:intern'], hours: { from: 0, to: 9 }, verdict: 'deny', reason: 'office hours' },
    { tool: 'refund', where: ['amount<=50', 'currency=EUR'], verdict: 'allow', reason: 'small refund' },
    { tool: '*', where: ['to$=@example.com'], verdict: 'ask' },
  ],
};
const AT = '2026-12-06T10:00:00.000Z';
const EARLY = '2026-12-06T07:00:00.000Z';
const refund = (args: object) => ({ toolName: 'refund', args: args as never });
const small = { amount: 20, currency: 'EUR' };

describe('approval rules', () => {
  it('gives the first matching rule’s verdict, and asks a person when none matches', () => {
    expect(evaluateRules(rules, refund({ amount: 5000 }), undefined, AT)).toEqual({
      verdict: 'deny',
      rule: 0,
      version: 'v7',
      reason: 'over the limit',
    });
    expect(evaluateRules(rules, refund(small), undefined, AT)).toMatchObject({ verdict: 'allow', rule: 2 });
    expect(evaluateRules(rules, refund({ amount: 200 }), undefined, AT)).toMatchObject({ verdict: 'ask' });
    expect(evaluateRules(rules, { toolName: 'wire', args: { to: 'eve@evil.test' } }, undefined, AT)).toEqual({
      verdict: 'ask',
      rule: null,
      version: 'v7',
      reason: undefined,
    });
  });

  it('denies what it cannot tell (a missing value, another type), and allows only what it can', () => {
    // "5000" is no number: the deny takes it rather than letting a later allow or a person see it as small.
    expect(evaluateRules(rules, refund({ amount: '5000', currency: 'EUR' }), undefined, AT)).toMatchObject({
      verdict: 'deny',
      rule: 0,
    });
    expect(evaluateRules(rules, refund({ currency: 'EUR' }), undefined, AT)).toMatchObject({ verdict: 'deny' });
    // The allow needs each condition to hold: "20" is not a number at most 50.
    const lax: ApprovalRules = { version: '1', rules: [rules.rules[2]!] };
    expect(evaluateRules(lax, refund({ amount: '20', currency: 'EUR' }), undefined, AT).verdict).toBe('ask');
  });

  it('matches who started the run and the hour (UTC), and allows nothing the run itself asked a person for', () => {
    const intern = { id: 'ivy', roles: ['intern'] };
    expect(evaluateRules(rules, refund({ amount: 200 }), intern, EARLY)).toMatchObject({ verdict: 'deny', rule: 1 });
    expect(evaluateRules(rules, refund({ amount: 200 }), intern, AT)).toMatchObject({ verdict: 'ask' });
    expect(evaluateRules(rules, refund(small), undefined, AT, false)).toMatchObject({ verdict: 'ask' });
    expect(evaluateRules(rules, refund({ amount: 5000 }), undefined, AT, false)).toMatchObject({ verdict: 'deny' });
  });

  it('is checked where the agent is defined: tools, conditions, hours, and what an allow may not do', () => {
    const tools = { refund: {} };
    const check = (policy: AccessPolicy) => () => checkApprovalRules('access.rules', policy, tools);
    const one = (rule: ApprovalRules['rules'][number], extra: AccessPolicy = {}) =>
      check({ ...extra, rules: { version: '1', rules: [rule] } });
    expect(check({ rules })).not.toThrow();
    expect(one({ tool: 'wire', verdict: 'deny' })).toThrow('access.rules[0]: tool "wire" is not one of the agent\'s');
    expect(one({ tool: '*', where: ['amount'], verdict: 'deny' })).toThrow(
      /^access.rules\[0\]: condition "amount" has no operator/,
    );
    expect(one({ tool: '*', hours: { from: 22, to: 6 }, verdict: 'deny' })).toThrow(/hours from 22 to 6 is no span/);
    expect(one({ tool: '*', verdict: 'allow' })).toThrow(/an allow of every call of every tool is no approval/);
    expect(one({ tool: 'refund', startedBy: ['role:vip'], verdict: 'allow' })).toThrow(/may not rest on startedBy/);
    expect(
      one({ tool: 'refund', where: ['amount<5'], verdict: 'allow' }, { tools: { refund: { quorum: 2 } } }),
    ).toThrow(/may not stand for the 2 approvers its tool needs/);
  });

  it('records a verdict as the rules’ own, and refuses changed arguments the rules deny', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern({ rules }, { resourceId: undefined, startedBy: undefined });
    const call = { toolCallId: 'c1', toolName: 'refund', args: small, fingerprint: 'f'.repeat(64) };
    expect(ledger.ruled(call, AT, true)).toMatchObject({ verdict: 'allow', effects: [{ type: 'record' }] });
    expect(ledger.verdict('rules:c1')).toMatchObject({
      kind: 'approve',
      by: 'approval rules v7, rule 2',
      reason: 'small refund',
      accepted: true,
      ruling: { version: 'v7', rule: 2 },
    });
    expect(ledger.verdict('rules:c1')!.principal).toBeUndefined();
    expect(ledger.trail.receipts.view().receipts).toMatchObject([
      { ruling: { version: 'v7', rule: 2 }, principal: null },
    ]);

    const medium = { ...call, toolCallId: 'c2', args: { amount: 200 } };
    expect(ledger.ruled(medium, AT, true)).toEqual({ verdict: 'ask', asked: true, effects: [] });
    const inputSchema = { type: 'object', properties: { amount: { type: 'number' } } };
    ledger.ask(medium, { kind: 'approval', askedAt: AT, inputSchema });
    // A signal cannot pass for the rules: it has no field for it.
    ledger.decide('approve', { decisionId: 'forged', toolCallId: 'c2', ruling: { version: 'v7', rule: 2 } }, AT);
    expect(ledger.verdict('forged')?.refusal?.type).toBe('InvalidDecision');
    // A person may change the arguments, never into a call the rules deny.
    ledger.decide('approve', { decisionId: 'bigger', toolCallId: 'c2', args: { amount: 5000 } }, AT);
    expect(ledger.verdict('bigger')?.refusal).toEqual({
      type: 'InvalidArguments',
      message: 'the changed arguments are denied by approval rule 0 (rules v7): over the limit',
    });
    expect(ledger.pending().map((c) => c.toolCallId)).toEqual(['c2']);
  });
});
