import { describe, expect, it } from 'vitest';
import { deadlineFields, escalationDeciders, msUntil } from '../../src/approvals/deadline.js';
import type { LedgerEffect } from '../../src/approvals/ledger-effects.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import { createTool, defineAgent } from '../../src/index.js';
import { approvalDeadlineSpec, durationMs, shownDuration } from '../../src/schemas/deadline.js';
import { z } from 'zod';
import { suspendWorkflowTool } from '../../src/workflows/workflow-tool-suspend.js';

const AT = '2026-01-01T00:00:00.000Z';
const call = { toolCallId: 'a', toolName: 'refund', args: { amount: 5 }, fingerprint: 'fp-a' };
const types = (effects: LedgerEffect[]) => effects.map((e) => e.type);

describe('approval deadlines: durations and definitions', () => {
  it('reads ms and the durations people write, and refuses the rest', () => {
    expect(durationMs(90_000)).toEqual({ ms: 90_000 });
    expect(durationMs('30m')).toEqual({ ms: 1_800_000 });
    expect(durationMs('2 hours')).toEqual({ ms: 7_200_000 });
    expect(durationMs('1.5s')).toEqual({ ms: 1500 });
    expect(durationMs('1d')).toEqual({ ms: 86_400_000 });
    expect(durationMs('soon')).toEqual({ problem: expect.stringContaining('"soon" is not a duration') });
    expect(durationMs('5ms')).toEqual({ problem: expect.stringContaining('between 1 second and 365 days') });
    expect(durationMs('400d')).toEqual({ problem: expect.stringContaining('between 1 second and 365 days') });
    expect(shownDuration(1_800_000)).toBe('30m');
    expect(shownDuration(1500)).toBe('1500ms');
  });

  it("takes a workflow tool's suspension deadline as ms, and refuses one that is not a duration", () => {
    expect(suspendWorkflowTool({ orderId: 'o-1' }, { deadline: '2 days' })).toMatchObject({ deadlineMs: 172_800_000 });
    expect(suspendWorkflowTool(null)).not.toHaveProperty('deadlineMs');
    expect(() => suspendWorkflowTool(null, { deadline: 'soon' })).toThrow(
      /suspendWorkflowTool: deadline: "soon" is not a duration/,
    );
    expect(() => suspendWorkflowTool(null, { deadline: { after: '1h' } } as never)).toThrow(/not object/);
  });

  it('normalises a deadline to ms, and refuses one that could not work, naming where', () => {
    expect(approvalDeadlineSpec('x', { after: '30m', escalate: { after: '1h', decide: ['group:leads'] } })).toEqual({
      afterMs: 1_800_000,
      escalate: { afterMs: 3_600_000, decide: ['group:leads'] },
    });
    expect(() => approvalDeadlineSpec('x', { after: '30m', escalate: { after: '1h', decide: [] } })).toThrow(
      /x: approvalDeadline\.escalate\.decide names who decides/,
    );
    expect(() => approvalDeadlineSpec('x', { after: '30m', expire: true })).toThrow(/takes after and escalate/);
    const input = z.object({ amount: z.number() });
    expect(() => createTool({ id: 't', inputSchema: input, approvalDeadline: { after: 'never' } })).toThrow(
      /createTool\("t"\): approvalDeadline\.after: "never" is not a duration/,
    );
    expect(() => defineAgent({ id: 'a', name: 'a', model: 'scripted', approvalDeadline: { after: 0 } })).toThrow(
      /defineAgent\("a"\): approvalDeadline\.after/,
    );
    expect(createTool({ id: 't', inputSchema: input, approvalDeadline: { after: '30m' } }).approvalDeadline).toEqual({
      after: '30m',
    });
  });

  it('shows when a call escalates and expires, from when it was asked; a tool without one shows nothing', () => {
    expect(deadlineFields(AT, undefined)).toEqual({});
    expect(deadlineFields(AT, { afterMs: 60_000 })).toEqual({ expiresAt: '2026-01-01T00:01:00.000Z' });
    expect(deadlineFields(AT, { afterMs: 60_000, escalate: { afterMs: 120_000, decide: ['group:leads'] } })).toEqual({
      expiresAt: '2026-01-01T00:03:00.000Z',
      escalation: { at: '2026-01-01T00:01:00.000Z', decide: ['group:leads'] },
    });
    expect(msUntil('2026-01-01T00:01:00.000Z', Date.parse(AT))).toBe(60_000);
    expect(msUntil(AT, Date.parse(AT) + 5000)).toBe(1);
    const escalate = { afterMs: 1000, decide: ['group:leads'] };
    expect(
      escalationDeciders({
        approvalDeadline: { afterMs: 1000, escalate },
        tools: [{}, { approvalDeadline: { afterMs: 5000 } }],
      }),
    ).toEqual(['group:leads']);
  });
});

describe('approval deadlines: the ledger', () => {
  const waiting = {
    kind: 'approval' as const,
    askedAt: AT,
    ...deadlineFields(AT, { afterMs: 60_000, escalate: { afterMs: 60_000, decide: ['group:leads'] } }),
  };

  it('escalates: only the escalation group may decide from then on, and the trail says so', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern({ decide: ['role:approver'] }, { resourceId: undefined, startedBy: undefined });
    ledger.ask(call, waiting);
    const effects = ledger.escalate('a', '2026-01-01T00:01:00.000Z');
    expect(types(effects)).toEqual(['record', 'change', 'notify']);
    expect(ledger.pending()[0]).toMatchObject({ decide: ['group:leads'], escalation: { escalated: true } });
    const trail = ledger.trail.all();
    expect(trail[0]).toMatchObject({ kind: 'escalate', toolCallId: 'a', accepted: true });
    expect(trail[0]!.reason).toContain('only group:leads may decide it now');

    const approver = { id: 'ann', roles: ['approver'] };
    expect(types(ledger.decide('approve', { decisionId: 'd1', principal: approver }, AT))).toEqual(['refused']);
    expect(ledger.verdict('d1')).toMatchObject({ accepted: false, refusal: { type: 'NotAllowed' } });
    const lead = { id: 'lee', groups: ['leads'] };
    expect(types(ledger.decide('approve', { decisionId: 'd2', principal: lead }, AT))).toEqual([
      'record',
      'resolve',
      'change',
      'notify',
    ]);
    // Escalating a call decided meanwhile changes nothing.
    expect(ledger.escalate('a', AT)).toEqual([]);
  });

  it('expires: recorded as expired (not declined), resolved as such, and no decision is taken after', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call, waiting);
    const effects = ledger.expire('a', '2026-01-01T00:02:00.000Z');
    expect(types(effects)).toEqual(['record', 'resolve', 'change', 'notify']);
    const resolve = effects.find((e) => e.type === 'resolve');
    expect(resolve).toMatchObject({ resolution: { kind: 'expire', record: { kind: 'expire', accepted: true } } });
    const notice = effects.find((e) => e.type === 'notify');
    expect(notice).toMatchObject({ notice: { event: 'expired', call: { toolCallId: 'a' } } });
    expect(ledger.pending()).toEqual([]);
    expect(ledger.trail.all().map((d) => d.kind)).toEqual(['expire']);
    ledger.decide('approve', { decisionId: 'late', toolCallId: 'a' }, AT);
    const late = ledger.verdict('late')!;
    expect(late.refusal).toMatchObject({ type: 'AlreadyDecided' });
    expect(late.refusal!.message).toContain('its deadline passed at 2026-01-01T00:02:00.000Z: it expired');
    // Expiring a call that was decided first changes nothing.
    const decidedFirst = new ApprovalLedger('run-2');
    decidedFirst.ask(call, waiting);
    decidedFirst.decide('decline', { decisionId: 'no' }, AT);
    expect(decidedFirst.expire('a', AT)).toEqual([]);
  });

  it('a continued run does not take an escalation for a decision', () => {
    const escalated = { decisionId: 'escalate:a', kind: 'escalate' as const };
    const ledger = new ApprovalLedger('run-1', {
      trail: [{ ...escalated, toolCallId: 'a', toolName: 'refund', by: null, reason: null, at: AT, accepted: true }],
    });
    ledger.ask(call, { kind: 'approval', askedAt: AT });
    expect(types(ledger.decide('approve', { decisionId: 'ok', toolCallId: 'a' }, AT))).toContain('resolve');
  });

  // The probe: with the worker down, the deadline's timer fired on the server and an approval came 7 s
  // later; both reached the run in one activation, the decision was applied first, and the tool ran.
  it('refuses a decision the run takes after the deadline passed, however the events were batched', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call, waiting);
    const late = '2026-01-01T00:02:07.000Z'; // past the escalation (1 min) and the expiry (2 min)
    const effects = ledger.decide('approve', { decisionId: 'late', toolCallId: 'a' }, late);
    expect(types(effects)).toEqual([
      ...['record', 'change', 'notify'], // escalated
      ...['record', 'resolve', 'change', 'notify'], // expired
      'refused',
    ]);
    expect(effects.find((e) => e.type === 'resolve')).toMatchObject({ resolution: { kind: 'expire' } });
    expect(ledger.trail.all().map((d) => d.kind)).toEqual(['escalate', 'expire']);
    expect(ledger.verdict('late')?.refusal?.message).toContain('its deadline passed');
    // The timers, when their activation comes, change nothing.
    expect(ledger.escalate('a', late)).toEqual([]);
    expect(ledger.expire('a', late)).toEqual([]);
  });

  // A workflow tool's suspension with a deadline (suspendWorkflowTool): a late resume is refused likewise.
  it('refuses a resume the run takes after a suspension expired, in the same activation', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call, {
      kind: 'suspend',
      askedAt: AT,
      suspendPayload: null,
      ...deadlineFields(AT, { afterMs: 60_000 }),
    });
    const late = '2026-01-01T00:01:07.000Z';
    const effects = ledger.decide('resume', { decisionId: 'late', toolCallId: 'a', resumeData: {} }, late);
    expect(types(effects)).toEqual(['record', 'resolve', 'change', 'notify', 'refused']);
    expect(effects.find((e) => e.type === 'resolve')).toMatchObject({ resolution: { kind: 'expire' } });
    expect(ledger.verdict('late')?.refusal?.message).toContain('its deadline passed');
  });

  it('judges a decision taken after the escalation against the escalated rule', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern({ decide: ['role:approver'] }, { resourceId: undefined, startedBy: undefined });
    ledger.ask(call, waiting);
    const afterEscalation = '2026-01-01T00:01:30.000Z';
    const approver = { id: 'ann', roles: ['approver'] };
    const effects = ledger.decide('approve', { decisionId: 'd1', principal: approver }, afterEscalation);
    expect(types(effects)).toEqual(['record', 'change', 'notify', 'refused']);
    expect(ledger.verdict('d1')?.refusal?.type).toBe('NotAllowed');
    expect(ledger.pending()).toHaveLength(1);
  });

  it('takes a late decision as runs from before did where the run says so (the patch is absent)', () => {
    const ledger = new ApprovalLedger('run-1', {}, { deadlinesFirst: () => false });
    ledger.ask(call, waiting);
    const effects = ledger.decide('approve', { decisionId: 'late' }, '2026-01-01T00:05:00.000Z');
    expect(types(effects)).toEqual(['record', 'resolve', 'change', 'notify']);
  });

  it('asks whether deadlines come first only when a deadline has passed', () => {
    let asked = 0;
    const ledger = new ApprovalLedger('run-1', {}, { deadlinesFirst: () => (asked++, true) });
    ledger.ask(call, waiting);
    ledger.decide('approve', { decisionId: 'early', fingerprint: 'stale' }, AT);
    expect(asked).toBe(0);
  });
});
