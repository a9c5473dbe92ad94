/**
 * The model judge's rules: it approves only where its owner let it and the agent's own policy asks for
 * the approval, anything but a clear verdict hands the call to a person, its verdict is recorded with
 * its version and model (a receipt binds them), and an agent that lets it approve for a quorum is refused.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkApprovalJudge, judgeApplies, judgeRecord, judgeVerdict } from '../../src/approvals/judge.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import { createTool, defineAgent } from '../../src/index.js';
import type { ApprovalJudge } from '../../src/schemas/access.js';

const AT = '2026-12-06T10:00:00.000Z';
const judge: ApprovalJudge = { version: 'j1', model: 'openai/judge', instructions: 'refunds up to 50', allow: true };
const call = { toolCallId: 'c1', toolName: 'refund', args: { amount: 20 }, fingerprint: 'f'.repeat(64) };

describe('judgeVerdict', () => {
  it('takes an approval only where the owner lets the judge approve and the agent asks for the approval', () => {
    const allow = { verdict: 'allow' as const, reason: 'small' };
    expect(judgeVerdict(judge, allow, true)).toEqual({ verdict: 'allow', reason: 'small' });
    expect(judgeVerdict({ ...judge, allow: undefined }, allow, true)).toEqual({
      verdict: 'ask',
      reason: 'the judge would approve, and may not: small',
    });
    // The run asked for the approval itself (it tightened the policy): no judge loosens that.
    expect(judgeVerdict(judge, allow, false)).toMatchObject({ verdict: 'ask' });
    // Nor stands for the approvers a quorum needs.
    expect(judgeVerdict(judge, allow, true, true)).toMatchObject({
      verdict: 'ask',
      reason: 'the judge would approve, and the call needs several approvers: small',
    });
  });

  it('takes a denial as it is, and hands a failure to a person with why', () => {
    expect(judgeVerdict({ ...judge, allow: false }, { verdict: 'deny', reason: 'too much' }, true)).toEqual({
      verdict: 'deny',
      reason: 'too much',
    });
    expect(judgeVerdict(judge, { failed: 'timed out' }, true)).toEqual({
      verdict: 'ask',
      reason: 'the judge could not judge: timed out',
    });
    expect(judgeVerdict(judge, { verdict: 'deny', reason: '  ' }, true).reason).toBe('(no reason given)');
  });

  it('judges the tools it names, or every one', () => {
    expect(judgeApplies(judge, 'refund')).toBe(true);
    expect(judgeApplies({ ...judge, tools: ['transfer'] }, 'refund')).toBe(false);
  });
});

describe('the trail', () => {
  it("records the judge's verdict with its version and model, and the call counts as decided", () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern({ judge }, { resourceId: undefined, startedBy: undefined });
    const record = judgeRecord(judge, { verdict: 'deny', reason: 'too much' }, call, AT);
    expect(record).toMatchObject({
      kind: 'decline',
      by: 'approval judge j1 (openai/judge)',
      ruling: { version: 'j1', rule: -1, judge: 'openai/judge' },
    });
    ledger.settled(call, record);
    expect(ledger.trail.receipts.view().receipts).toMatchObject([
      {
        kind: 'decline',
        fingerprint: call.fingerprint,
        principal: null,
        ruling: { version: 'j1', rule: -1, judge: 'openai/judge' },
      },
    ]);
    // A decision that names the call afterwards hears it was decided (by the judge), not that it is unknown.
    const later = ledger.decide('approve', { decisionId: 'd1', toolCallId: 'c1', fingerprint: call.fingerprint }, AT);
    expect(later).toMatchObject([{ type: 'refused', record: { refusal: { type: 'AlreadyDecided' } } }]);
  });
});

describe('defineAgent', () => {
  const refund = createTool({
    id: 'refund',
    inputSchema: z.object({ amount: z.number() }),
    requireApproval: true,
    execute: async () => 'ok',
  });
  const base = { id: 'judged', name: 'Judged', instructions: '', model: 'scripted', tools: { refund } };

  it('refuses a judge that may approve a tool that needs a quorum, and one that names no tool of the agent', () => {
    expect(() => defineAgent({ ...base, access: { quorum: 2, judge } })).toThrow(
      /access.judge: a judge that may allow may not stand for the 2 approvers the agent needs/,
    );
    expect(() =>
      defineAgent({ ...base, access: { tools: { refund: { quorum: 2 } }, judge: { ...judge, tools: ['refund'] } } }),
    ).toThrow(/access.judge: a judge that may allow may not stand for the approvers refund need \(a quorum\)/);
    // An agent whose tools come from MCP servers has none here: its quorum still holds for them.
    expect(() => checkApprovalJudge('x', { quorum: 2, judge }, {})).toThrow(/may not stand for the 2 approvers/);
    expect(() => defineAgent({ ...base, access: { judge: { ...judge, tools: ['refnud'] } } })).toThrow(
      /access.judge.tools: refnud are not tools of the agent/,
    );
    // One that may only deny or ask may judge such a tool.
    expect(() => defineAgent({ ...base, access: { quorum: 2, judge: { ...judge, allow: false } } })).not.toThrow();
  });

  it('refuses a key the judge does not take', () => {
    expect(() => defineAgent({ ...base, access: { judge: { ...judge, allowAll: true } as ApprovalJudge } })).toThrow(
      /invalid access/,
    );
  });
});
