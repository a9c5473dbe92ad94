import { describe, expect, it } from 'vitest';
import type { LedgerEffect } from '../../src/approvals/ledger-effects.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import type { ChildReport, DecisionRecord, PendingToolCall } from '../../src/schemas/decisions.js';
import { StreamSegments } from '../../src/workflows/stream/stream-segments.js';

const AT = '2026-01-01T00:00:00.000Z';
const call = (id: string, toolName = 'deleteRecord') => ({
  toolCallId: id,
  toolName,
  args: { id },
  fingerprint: `fp-${id}`,
});
const approval = { kind: 'approval' as const, askedAt: AT };
const suspension = { kind: 'suspend' as const, askedAt: AT, suspendPayload: { question: '?' } };
const types = (effects: LedgerEffect[]) => effects.map((e) => e.type);

/** A child's pending call as the child itself lists it. */
const childCall = (id: string): PendingToolCall => ({
  ...call(id),
  kind: 'approval',
  requiresApproval: true,
  path: [],
  askedAt: AT,
});

function report(parentRunId: string, via: string, seq: number, fields: Partial<ChildReport> = {}): ChildReport {
  return {
    viaToolCallId: via,
    runId: `${parentRunId}::${via}`,
    agentId: 'sub-agent',
    seq,
    pending: [],
    paused: false,
    verdicts: [],
    ...fields,
  };
}

describe('the approval ledger: own calls', () => {
  it('lists a call that asks, and says the pending set changed and the call waits', () => {
    const ledger = new ApprovalLedger('run-1');
    const effects = ledger.ask(call('a'), approval);
    expect(types(effects)).toEqual(['change', 'waits', 'notify']);
    expect(ledger.pending()).toMatchObject([{ toolCallId: 'a', kind: 'approval', requiresApproval: true, path: [] }]);
  });

  it('resolves an approved call: recorded first, then resolved, then the change', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    const effects = ledger.decide('approve', { decisionId: 'd1', by: 'alice', fingerprint: 'fp-a' }, AT);
    expect(types(effects)).toEqual(['record', 'resolve', 'change', 'notify']);
    expect(effects[1]).toMatchObject({ toolCallId: 'a', resolution: { kind: 'approve', record: { accepted: true } } });
    expect(ledger.pending()).toEqual([]);
    expect(ledger.verdict('d1')).toMatchObject({
      accepted: true,
      by: 'alice',
      toolCallId: 'a',
      toolName: 'deleteRecord',
    });
  });

  it('decides the calls of one step one by one, in any order, and a decision without id takes the latest', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    ledger.ask(call('b'), approval);
    ledger.ask(call('c'), suspension);
    const first = ledger.decide('approve', { decisionId: 'd1' }, AT);
    expect(first).toContainEqual(expect.objectContaining({ type: 'resolve', toolCallId: 'b' }));
    const second = ledger.decide('decline', { decisionId: 'd2', toolCallId: 'a', reason: 'no' }, AT);
    expect(second).toContainEqual(expect.objectContaining({ type: 'resolve', toolCallId: 'a' }));
    expect(ledger.pending().map((p) => p.toolCallId)).toEqual(['c']);
    const third = ledger.decide('approve', { decisionId: 'd3' }, AT);
    expect(third).toEqual([{ type: 'refused', record: expect.objectContaining({ accepted: false }) }]);
    expect(ledger.verdict('d3')?.refusal?.type).toBe('WrongPauseKind');
  });

  it('records a resume only once the tool has checked the data, refused when it did not fit', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('s', 'ask'), suspension);
    const effects = ledger.decide('resume', { decisionId: 'r1', resumeData: { answer: 1 } }, AT);
    expect(types(effects)).toEqual(['resolve', 'change', 'notify']);
    expect(ledger.verdict('r1')).toBeUndefined();
    const resolve = effects[0] as Extract<LedgerEffect, { type: 'resolve' }>;
    ledger.resumeChecked(resolve.resolution, 'answer: expected string');
    expect(ledger.verdict('r1')).toMatchObject({ accepted: false, refusal: { type: 'InvalidResumeData' } });
  });

  it('refuses, and only records, every decision that breaks a rule; the call stays pending', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    const refusals: Array<[string, unknown, string]> = [
      ['m', { decisionId: 'm', fingerprint: 'stale' }, 'FingerprintMismatch'],
      ['u', { decisionId: 'u', toolCallId: 'nope' }, 'UnknownToolCall'],
      ['w', { decisionId: 'w', toolCallId: 'a', resumeData: 1 }, 'WrongPauseKind'],
      [
        'c',
        { decisionId: 'c', toolCallId: 'a', clientRefusal: { type: 'AlreadyDecided', message: 'forged text' } },
        'InvalidDecision',
      ],
      ['invalid', { decisionId: 'x'.repeat(500), by: 7 }, 'InvalidDecision'],
    ];
    for (const [, signal, type] of refusals) {
      const kind = type === 'WrongPauseKind' ? 'resume' : 'approve';
      expect(types(ledger.decide(kind, signal, AT))).toEqual(['refused']);
    }
    // Refusals are counted and the last few kept, never in the trail of decisions.
    expect(ledger.trail.all()).toEqual([]);
    const { count, recent } = ledger.trail.refused();
    expect(count).toBe(5);
    expect(recent.map((d) => d.refusal?.type)).toEqual(refusals.map(([, , type]) => type));
    // A signal's own claim that it was refused is not the system's word: none of its text is kept.
    expect(JSON.stringify(recent[3])).not.toContain('forged text');
    // A decision id that does not fit is kept short.
    expect(recent[4]!.decisionId.length).toBeLessThanOrEqual(100);
    expect(ledger.pending().map((p) => p.toolCallId)).toEqual(['a']);
    // The rightful decision still goes through.
    expect(types(ledger.decide('approve', { decisionId: 'ok', fingerprint: 'fp-a' }, AT))).toEqual([
      'record',
      'resolve',
      'change',
      'notify',
    ]);
  });

  it('uses a decision once, also across continue-as-new (the trail carried over)', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    ledger.decide('approve', { decisionId: 'd1', toolCallId: 'a' }, AT);
    ledger.decide('decline', { decisionId: 'd2', toolCallId: 'a' }, AT);
    expect(ledger.verdict('d2')?.refusal?.type).toBe('AlreadyDecided');

    const continued = new ApprovalLedger('run-1', { trail: ledger.trail.all(), refusals: ledger.trail.refused() });
    continued.decide('approve', { decisionId: 'd3', toolCallId: 'a' }, AT);
    expect(continued.verdict('d3')?.refusal).toMatchObject({ type: 'AlreadyDecided' });
  });

  it('refuses every decision once the run ended, saying how it ended', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    expect(types(ledger.end('cancelled'))).toEqual(['change']);
    expect(ledger.pending()).toEqual([]);
    ledger.decide('approve', { decisionId: 'late' }, AT);
    expect(ledger.verdict('late')?.refusal).toEqual({ type: 'NothingPending', message: 'the run has cancelled' });
  });
});

describe('the approval ledger: what refusals cost and tell', () => {
  // The probe: 250 refused requests at the bounds of `by` and `reason` re-saved the whole trail each
  // time (233 KB a request) until the run reached Temporal's history limit and was terminated.
  it('keeps a count and the last few refusals, each clipped, however many arrive', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    const long = 'x'.repeat(2000);
    for (let i = 0; i < 1000; i++) {
      const effects = ledger.decide(
        'approve',
        { decisionId: `d${i}`, fingerprint: 'stale', by: long, reason: long },
        AT,
      );
      expect(types(effects)).toEqual(['refused']);
    }
    const summary = ledger.trail.refused();
    expect(summary.count).toBe(1000);
    expect(summary.recent.map((d) => d.decisionId)).toEqual(['d995', 'd996', 'd997', 'd998', 'd999']);
    expect(JSON.stringify(summary).length).toBeLessThan(6000);
    expect(ledger.trail.all()).toEqual([]);
    // The senders of the latest ones still hear their verdict; the run still takes the right decision.
    expect(ledger.verdict('d999')?.refusal?.type).toBe('FingerprintMismatch');
    expect(types(ledger.decide('approve', { decisionId: 'ok', fingerprint: 'fp-a' }, AT))).toContain('resolve');
  });

  it('tells another tenant nothing of the run: no call, no arguments, no fingerprint', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.govern(undefined, { resourceId: 'acme', startedBy: { id: 'tina', tenant: 'acme' } });
    ledger.ask({ ...call('a'), args: { account: 'DE89370400440532013000' } }, approval);
    const bert = { id: 'bert', tenant: 'globex' };
    for (const [id, signal] of [
      ['x1', { fingerprint: 'wrong' }],
      ['x2', { toolCallId: 'nope' }],
      ['x3', { toolCallId: 'a' }],
    ] as const) {
      ledger.decide('resume', { decisionId: id, principal: bert, ...signal }, AT);
      const refusal = ledger.verdict(id)!.refusal!;
      expect(refusal.type).toBe('NotAllowed');
      expect(refusal.message).not.toMatch(/DE89|fp-a|deleteRecord|tool call/);
    }
  });

  it('names neither the arguments nor the fingerprint of the call a wrong fingerprint missed', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask({ ...call('a'), args: { account: 'DE89370400440532013000' } }, approval);
    ledger.decide('approve', { decisionId: 'm', fingerprint: 'stale' }, AT);
    const { message } = ledger.verdict('m')!.refusal!;
    expect(message).toContain('does not match tool call a (deleteRecord)');
    expect(message).not.toContain('DE89');
    expect(message).not.toContain('fp-a');
  });

  it('hands each verdict to the parent once', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), approval);
    ledger.decide('approve', { decisionId: 'bad', fingerprint: 'stale' }, AT);
    ledger.decide('approve', { decisionId: 'good' }, AT);
    expect(ledger.trail.drainVerdicts().map((v) => v.decisionId)).toEqual(['bad', 'good']);
    expect(ledger.trail.drainVerdicts()).toEqual([]);
  });
});

describe('the approval ledger: calls that wait in sub-agents', () => {
  it('lists a child’s call qualified by the delegating call, and tells when the child pauses', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    const effects = ledger.childReport(report('run-1', 'call-0', 0, { pending: [childCall('x')], paused: true }));
    expect(effects).toEqual([
      { type: 'child', change: 'paused' },
      { type: 'waits', call: expect.objectContaining({ toolCallId: 'call-0/x' }) },
      { type: 'change' },
    ]);
    expect(ledger.pending()[0]!.path).toEqual([
      { runId: 'run-1::call-0', agentId: 'sub-agent', viaToolCallId: 'call-0' },
    ]);
  });

  it('forwards a decision down with the inner id, without the stream grace period, and takes no second one meanwhile', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    ledger.childReport(report('run-1', 'call-0', 0, { pending: [childCall('x')], paused: true }));
    const signal = {
      decisionId: 'd1',
      toolCallId: 'call-0/x',
      fingerprint: 'fp-x',
      by: 'alice',
      streamGraceMs: 10_000,
    };
    const effects = ledger.decide('approve', signal, AT);
    expect(effects).toEqual([
      {
        type: 'forward',
        childRunId: 'run-1::call-0',
        kind: 'approve',
        decision: { decisionId: 'd1', toolCallId: 'x', fingerprint: 'fp-x', by: 'alice' },
        streamGraceMs: 10_000,
      },
    ]);
    ledger.decide('decline', { decisionId: 'd2', toolCallId: 'call-0/x' }, AT);
    expect(ledger.verdict('d2')?.refusal?.type).toBe('AlreadyDecided');

    // The child's verdict comes back up in its next report and goes into this run's trail.
    const verdict: DecisionRecord = { ...ledger.verdict('d2')!, decisionId: 'd1', toolCallId: 'x', accepted: true };
    delete verdict.refusal;
    const back = ledger.childReport(report('run-1', 'call-0', 1, { verdicts: [verdict], paused: false }));
    expect(back[0]).toEqual({
      type: 'record',
      record: expect.objectContaining({ decisionId: 'd1', toolCallId: 'call-0/x' }),
    });
    expect(back).toContainEqual({ type: 'child', change: 'resumed' });
    expect(ledger.pending()).toEqual([]);
  });

  it('lets a call be decided again when the child refused the decision passed down', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    ledger.childReport(report('run-1', 'call-0', 0, { pending: [childCall('x')], paused: true }));
    ledger.decide('approve', { decisionId: 'd1', toolCallId: 'call-0/x' }, AT);
    const refused: DecisionRecord = {
      decisionId: 'd1',
      kind: 'approve',
      toolCallId: 'x',
      toolName: 'deleteRecord',
      by: null,
      reason: null,
      at: AT,
      accepted: false,
      refusal: { type: 'FingerprintMismatch', message: 'changed below' },
    };
    ledger.childReport(report('run-1', 'call-0', 1, { pending: [childCall('x')], paused: true, verdicts: [refused] }));
    expect(ledger.verdict('d1')).toMatchObject({ accepted: false, toolCallId: 'call-0/x' });
    expect(types(ledger.decide('approve', { decisionId: 'd2', toolCallId: 'call-0/x' }, AT))).toEqual(['forward']);
  });

  it('drops reports that are malformed, stale, from a run that is not its child, or for a child not running', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    ledger.childReport(report('run-1', 'call-0', 5, { pending: [childCall('x')], paused: true }));
    expect(ledger.childReport({ nonsense: true })).toEqual([]);
    expect(ledger.childReport(report('run-1', 'call-0', 5))).toEqual([]);
    expect(ledger.childReport(report('run-1', 'call-0', 4))).toEqual([]);
    expect(ledger.childReport({ ...report('run-1', 'call-0', 9), runId: 'run-2::call-0' })).toEqual([]);
    expect(ledger.childReport(report('run-1', 'call-9', 0))).toEqual([]);
    expect(ledger.pending().map((p) => p.toolCallId)).toEqual(['call-0/x']);
  });

  it('refuses a decision passed down to a child that ended before taking it, so the call can be decided again', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    ledger.childReport(report('run-1', 'call-0', 0, { pending: [childCall('x')], paused: true }));
    ledger.decide('approve', { decisionId: 'd1', toolCallId: 'call-0/x' }, AT);
    const effects = ledger.childFinished('call-0', []);
    expect(types(effects)).toEqual(['child', 'refused', 'change']);
    expect(effects[0]).toEqual({ type: 'child', change: 'ended-paused' });
    expect(ledger.verdict('d1')?.refusal).toEqual({
      type: 'UnknownToolCall',
      message: 'the sub-agent run run-1::call-0 ended before it took the decision',
    });
    expect(ledger.pending()).toEqual([]);
  });

  it('lists a call two levels down with both hops, and passes a decision one hop down', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    const deep: PendingToolCall = {
      ...childCall('call-0/y'),
      path: [{ runId: 'run-1::call-0::call-0', agentId: 'leaf', viaToolCallId: 'call-0' }],
    };
    ledger.childReport(report('run-1', 'call-0', 0, { pending: [deep], paused: true }));
    expect(ledger.pending()[0]).toMatchObject({
      toolCallId: 'call-0/call-0/y',
      path: [
        { runId: 'run-1::call-0', viaToolCallId: 'call-0' },
        { runId: 'run-1::call-0::call-0', viaToolCallId: 'call-0' },
      ],
    });
    const [forward] = ledger.decide('approve', { decisionId: 'd1', toolCallId: 'call-0/call-0/y' }, AT);
    expect(forward).toMatchObject({ childRunId: 'run-1::call-0', decision: { toolCallId: 'call-0/y' } });
  });
});

describe('stream segments', () => {
  it('pause once every call of the step finished or waits while something waits, and resume once', () => {
    const segments = new StreamSegments();
    segments.callsStart(2);
    segments.callStops(); // one call waits
    expect(segments.pauseNow(1)).toBe(false); // the other still runs
    segments.callStops(); // and finishes
    expect(segments.pauseNow(1)).toBe(true);
    expect(segments.pauseNow(1)).toBe(false); // a pause is published once
    expect(segments.paused).toBe(true);
    segments.callGoesOn();
    expect(segments.resumeNow()).toBe(true);
    expect(segments.resumeNow()).toBe(false);
    expect(segments.pauseNow(0)).toBe(false);
  });

  it('do not pause when nothing waits', () => {
    const segments = new StreamSegments();
    segments.callsStart(1);
    segments.callStops();
    expect(segments.pauseNow(0)).toBe(false);
  });
});
