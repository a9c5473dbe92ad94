/** Batch decisions by predicate: the conditions people write, and which waiting calls a batch takes. */
import { describe, expect, it } from 'vitest';
import { checkCondition, inBatch, parseCondition, type BatchFilter } from '../../src/approvals/batch.js';
import type { PendingToolCall } from '../../src/schemas/decisions.js';

const call = (args: unknown, extra: Partial<PendingToolCall> = {}) =>
  ({
    toolCallId: 'call-0-0',
    toolName: 'refund',
    args,
    fingerprint: 'fp',
    requiresApproval: true,
    kind: 'approval',
    path: [],
    ...extra,
  }) as PendingToolCall;
const acme = { agentId: 'refunds', resourceId: 'acme' };

describe('batch conditions', () => {
  it('reads what people write, with JSON values where the text is JSON', () => {
    expect(parseCondition('amount<=50')).toEqual({ path: 'amount', op: 'lte', value: 50 });
    expect(parseCondition('currency=EUR')).toEqual({ path: 'currency', op: 'eq', value: 'EUR' });
    expect(parseCondition('to$=@example.com')).toEqual({ path: 'to', op: 'suffix', value: '@example.com' });
    expect(parseCondition('order.id^=o-')).toEqual({ path: 'order.id', op: 'prefix', value: 'o-' });
    expect(parseCondition('urgent!=true')).toEqual({ path: 'urgent', op: 'ne', value: true });
    expect(parseCondition('code="50"')).toEqual({ path: 'code', op: 'eq', value: '50' });
    expect(parseCondition('note=a<b')).toEqual({ path: 'note', op: 'eq', value: 'a<b' });
  });

  it('refuses a condition that could not mean what it seems to', () => {
    expect(() => parseCondition('amount 50')).toThrow(/has no operator/);
    expect(() => parseCondition('amount<=lots')).toThrow(/lte compares numbers, not "lots"/);
    expect(parseCondition('zip^=75')).toEqual({ path: 'zip', op: 'prefix', value: '75' });
    expect(() => checkCondition({ path: 'to', op: 'suffix', value: 5 })).toThrow(/suffix compares text/);
    expect(() => parseCondition('__proto__.x=1')).not.toThrow(); // a name like any other, read with hasOwn
    expect(() => parseCondition('a b=1')).toThrow(/not a dotted name/);
    expect(() => checkCondition({ path: 'a', op: 'like' as never, value: 1 })).toThrow(/unknown operator "like"/);
  });
});

describe('which calls a batch takes', () => {
  const filter: BatchFilter = {
    toolName: 'refund',
    resourceId: 'acme',
    where: [parseCondition('amount<=50'), parseCondition('to$=@example.com')],
  };

  it('takes approvals of the tool, agent and tenant whose arguments meet every condition', () => {
    expect(inBatch(acme, call({ amount: 50, to: 'ann@example.com' }), filter)).toBe(true);
    expect(inBatch(acme, call({ amount: 51, to: 'ann@example.com' }), filter)).toBe(false);
    expect(inBatch(acme, call({ amount: 5, to: 'eve@example.com.evil' }), filter)).toBe(false);
    expect(inBatch({ ...acme, resourceId: 'globex' }, call({ amount: 5, to: 'a@example.com' }), filter)).toBe(false);
    expect(inBatch(acme, call({ amount: 5, to: 'a@example.com' }, { toolName: 'payout' }), filter)).toBe(false);
    expect(inBatch(acme, call({ amount: 5, to: 'a@example.com' }), { ...filter, agentId: 'other' })).toBe(false);
  });

  it('never coerces: a missing value, a string number or a suspension is not taken', () => {
    expect(inBatch(acme, call({ amount: '5', to: 'a@example.com' }), filter)).toBe(false);
    expect(inBatch(acme, call({ to: 'a@example.com' }), filter)).toBe(false);
    const notThat: BatchFilter = { toolName: 'refund', where: [parseCondition('account!=12345')] };
    expect(inBatch(acme, call({ account: '12345' }), notThat)).toBe(false);
    expect(inBatch(acme, call({ account: 12345 }), notThat)).toBe(false);
    expect(inBatch(acme, call({ account: 54321 }), notThat)).toBe(true);
    expect(inBatch(acme, call({ amount: 5, to: 'a@example.com' }, { kind: 'suspend' }), filter)).toBe(false);
    const inherited = call(Object.create({ amount: 1, to: 'a@example.com' }) as object);
    expect(inBatch(acme, inherited, filter)).toBe(false);
  });
});
