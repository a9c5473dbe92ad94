/**
 * Receipts: the hash chain a run keeps of its decisions, and the offline check of an exported file. Each
 * attack (a changed, dropped, reordered, repeated or foreign receipt, a rewritten chain, a forged or
 * misattributed signature) must be named at its line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/approvals/fingerprint.js';
import { ApprovalLedger } from '../../src/approvals/ledger.js';
import type { LedgerEffect } from '../../src/approvals/ledger-effects.js';
import { receiptHash, receiptLine } from '../../src/approvals/receipts.js';
import { verifyReceipts } from '../../src/approvals/receipt-verify.js';
import { signatureCheck } from '../../src/cli/audit.js';
import { signDecision } from '../../src/client/decisions/signing.js';
import type { DecisionKind, DecisionSignal } from '../../src/schemas/decisions.js';
import type { Receipt } from '../../src/schemas/receipts.js';

const AT = '2026-12-06T10:00:00.000Z';
const ann = generateKeyPairSync('ed25519');
const annPem = ann.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const key = { keyId: 'ops-ann', privateKey: ann.privateKey };
const alice = { id: 'alice', name: 'Alice' };

const call = (id: string, toolName = 'refund') => ({
  toolCallId: id,
  toolName,
  args: { id },
  fingerprint: sha256Hex(`run-1/${id}`),
});

/** A ledger that asked for three calls and took three signed decisions (and refused a fourth). */
function decidedLedger() {
  const ledger = new ApprovalLedger('run-1');
  ledger.ask(call('a'), { kind: 'approval', askedAt: AT });
  ledger.ask(call('b', 'ask'), { kind: 'suspend', askedAt: AT, suspendPayload: { q: 1 } });
  ledger.ask(call('c'), { kind: 'approval', askedAt: AT });
  const signed = sign('approve', { decisionId: 'd1', toolCallId: 'a', fingerprint: call('a').fingerprint });
  ledger.decide('approve', signed, AT, { signatureChecked: true });
  ledger.decide('approve', { decisionId: 'nope', toolCallId: 'zzz', principal: alice }, AT);
  const checked = { signatureChecked: true };
  const resume = sign('resume', { decisionId: 'd2', toolCallId: 'b', resumeData: { answer: 'yes' } });
  ledger.resumeChecked(resolution(ledger.decide('resume', resume, AT, checked)), undefined);
  ledger.decide('decline', sign('decline', { decisionId: 'd3', toolCallId: 'c', reason: 'too much' }), AT, checked);
  return ledger;
}

function sign(kind: DecisionKind, decision: DecisionSignal): DecisionSignal {
  return signDecision(
    key,
    kind,
    { ...decision, principal: alice },
    { runId: 'run-1', toolCallId: decision.toolCallId! },
  );
}

function resolution(effects: LedgerEffect[]) {
  return (effects.find((e) => e.type === 'resolve') as Extract<LedgerEffect, { type: 'resolve' }>).resolution;
}

const lines = (receipts: Receipt[]) => receipts.map(receiptLine);
const rehash = (r: Omit<Receipt, 'hash'> & { hash?: string }): Receipt => ({ ...r, hash: receiptHash(r as Receipt) });

describe('receipts: the chain a run keeps', () => {
  it('has a receipt for each accepted decision, none for a refusal, chained by hash', () => {
    const { receipts, from } = decidedLedger().trail.receipts.view();
    expect(from).toEqual({ next: 0, hash: null });
    expect(receipts.map((r) => [r.seq, r.decisionId, r.kind])).toEqual([
      [0, 'd1', 'approve'],
      [1, 'd2', 'resume'],
      [2, 'd3', 'decline'],
    ]);
    expect(receipts[0]).toMatchObject({
      runId: 'run-1',
      prev: null,
      fingerprint: call('a').fingerprint,
      principal: alice,
      signature: { keyId: 'ops-ann', runId: 'run-1', toolCallId: 'a', fingerprint: call('a').fingerprint },
    });
    expect(receipts[1]!.prev).toBe(receipts[0]!.hash);
    expect(receipts[2]!.prev).toBe(receipts[1]!.hash);
    // The data is bound by its hash, never held: a receipt does not show what was resumed with.
    expect(JSON.stringify(receipts[1])).not.toContain('yes');
    expect(receipts[2]!.reason).toBe('too much');
    expect(verifyReceipts(lines(receipts))).toMatchObject({
      ok: true,
      runs: [{ runId: 'run-1', receipts: 3, from: 0 }],
    });
  });

  it('keeps no signature the worker did not check, and bounds what a forged sub-agent verdict holds', () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.ask(call('a'), { kind: 'approval', askedAt: AT });
    ledger.decide('approve', sign('approve', { decisionId: 'd1', toolCallId: 'a' }), AT);
    expect(ledger.trail.receipts.view().receipts).toMatchObject([{ decisionId: 'd1', signature: null }]);

    const parent = new ApprovalLedger('run-1');
    parent.childStarted('call-0');
    const forged = { ...call('x'), fingerprint: 'not a hash', kind: 'approval' as const, requiresApproval: true };
    const report = { viaToolCallId: 'call-0', runId: 'run-1::call-0', agentId: 'sub', paused: true, verdicts: [] };
    parent.childReport({ ...report, seq: 0, pending: [{ ...forged, path: [], askedAt: AT }] });
    parent.decide('approve', { decisionId: 'd1', toolCallId: 'call-0/x' }, AT);
    const verdict = { decisionId: 'd1', kind: 'approve' as const, toolCallId: 'x', toolName: 'y'.repeat(100_000) };
    const back = { ...verdict, by: 'z'.repeat(100_000), reason: null, at: AT, accepted: true };
    parent.childReport({ ...report, seq: 1, pending: [], paused: false, verdicts: [back] });
    const [receipt] = parent.trail.receipts.view().receipts;
    expect(receipt).toMatchObject({ fingerprint: null });
    expect(receipt!.toolName!.length).toBeLessThanOrEqual(256);
    expect(receipt!.by!.length).toBeLessThanOrEqual(2000);
    expect(verifyReceipts([receiptLine(receipt!)]).ok).toBe(true);
  });

  it('goes on counting in a run that continued as new, from the head it carried', () => {
    const first = decidedLedger();
    const head = first.trail.receipts.carried();
    const continued = new ApprovalLedger('run-1', { trail: first.trail.all(), receipts: head });
    continued.ask(call('e'), { kind: 'approval', askedAt: AT });
    continued.decide('approve', { decisionId: 'd4', toolCallId: 'e', principal: alice }, AT);
    const next = continued.trail.receipts.view();
    expect(next.from).toEqual(head);
    expect(next.receipts).toMatchObject([{ seq: 3, prev: head.hash }]);
    const all = [...first.trail.receipts.view().receipts, ...next.receipts];
    expect(verifyReceipts(lines(all))).toMatchObject({ ok: true, runs: [{ receipts: 4 }] });
  });

  it('records an escalation and an expiry the run did itself, with the rule it escalated to', () => {
    const ledger = new ApprovalLedger('run-1');
    const escalation = { at: '2026-12-06T10:01:00.000Z', decide: ['role:lead'] };
    ledger.ask(call('a'), { kind: 'approval', askedAt: AT, expiresAt: '2026-12-06T10:02:00.000Z', escalation });
    ledger.escalate('a', escalation.at);
    ledger.expire('a', '2026-12-06T10:02:00.000Z');
    const { receipts } = ledger.trail.receipts.view();
    expect(receipts).toMatchObject([
      { kind: 'escalate', rule: ['role:lead'], principal: null, fingerprint: call('a').fingerprint },
      { kind: 'expire', rule: null, principal: null },
    ]);
  });

  it("keeps a decision passed down to a sub-agent, with the signature this run took, when the child's verdict comes back", () => {
    const ledger = new ApprovalLedger('run-1');
    ledger.childStarted('call-0');
    const inner = { ...call('x'), kind: 'approval' as const, requiresApproval: true, path: [], askedAt: AT };
    const report = { viaToolCallId: 'call-0', runId: 'run-1::call-0', agentId: 'sub', paused: true, verdicts: [] };
    ledger.childReport({ ...report, seq: 0, pending: [inner] });
    const signed = sign('approve', { decisionId: 'd1', toolCallId: 'call-0/x' });
    ledger.decide('approve', signed, AT, { signatureChecked: true });
    expect(ledger.trail.receipts.view().receipts).toEqual([]);
    const verdict = { decisionId: 'd1', kind: 'approve' as const, toolCallId: 'x', toolName: 'refund' };
    const back = { ...verdict, by: null, reason: null, at: AT, accepted: true, principal: alice };
    ledger.childReport({ ...report, seq: 1, pending: [], paused: false, verdicts: [back] });
    expect(ledger.trail.receipts.view().receipts).toMatchObject([
      { decisionId: 'd1', toolCallId: 'call-0/x', signature: { runId: 'run-1', toolCallId: 'call-0/x' } },
    ]);
  });
});

describe('receipts: verifying an exported file', () => {
  const receipts = decidedLedger().trail.receipts.view().receipts;
  let annKeys: Awaited<ReturnType<typeof signatureCheck>>;
  beforeAll(async () => {
    annKeys = await signatureCheck(JSON.stringify({ 'ops-ann': annPem }));
  });
  const check = () => annKeys;
  const failure = (file: string[], options = {}) => {
    const result = verifyReceipts(file, options);
    if (result.ok) throw new Error('verified, but it should not have');
    return { line: result.line, reason: result.reason };
  };

  it('names a receipt that was changed', () => {
    const changed = lines(receipts);
    changed[1] = JSON.stringify({ ...receipts[1], principal: { id: 'mallory' } });
    expect(failure(changed)).toEqual({ line: 2, reason: expect.stringMatching(/hash is not the hash of its content/) });
  });

  it('names the next receipt when a changed one was hashed again, and every later one was not', () => {
    const changed = lines(receipts);
    changed[1] = receiptLine(rehash({ ...receipts[1]!, principal: { id: 'mallory' } }));
    expect(failure(changed)).toEqual({ line: 3, reason: 'its prev is not the hash of seq 1' });
  });

  it('names a gap, a reordering and a receipt given twice', () => {
    const [a, b, c] = lines(receipts);
    expect(failure([a!, c!])).toEqual({
      line: 2,
      reason: expect.stringMatching(/^seq 2 follows seq 0: receipts are missing/),
    });
    expect(failure([a!, c!, b!]).line).toBe(2);
    expect(failure([a!, b!, b!])).toEqual({ line: 3, reason: 'it repeats a receipt given before in the file' });
  });

  it("refuses a chain that starts after its first receipt unless told it is a time range's", () => {
    const [, b, c] = lines(receipts);
    expect(failure([b!, c!])).toEqual({ line: 1, reason: expect.stringMatching(/before seq 1 are not in the file/) });
    expect(verifyReceipts([b!, c!], { partial: true })).toMatchObject({ ok: true, runs: [{ from: 1, receipts: 2 }] });
  });

  it("names another run's receipt made to look like this run's", () => {
    const other = new ApprovalLedger('run-2');
    other.ask(call('a'), { kind: 'approval', askedAt: AT });
    other.decide('approve', { decisionId: 'd9', toolCallId: 'a', principal: alice }, AT);
    const foreign = other.trail.receipts.view().receipts[0]!;
    const claimed = rehash({ ...foreign, runId: 'run-1', seq: 3, prev: receipts[2]!.hash });
    // Hashed again to fit the chain, it verifies as a receipt: only a signature binds a decision to its run.
    expect(verifyReceipts([...lines(receipts), receiptLine(claimed)]).ok).toBe(true);
    const signedForeign = rehash({ ...receipts[0]!, runId: 'run-2', seq: 0, prev: null });
    expect(failure([receiptLine(signedForeign)], { checkSignature: check() })).toEqual({
      line: 1,
      reason: "its signature was made for run run-1, call a, not for this receipt's run and call",
    });
  });

  it("checks each signature with the approvers' keys, and a rewritten chain does not survive it", async () => {
    expect(verifyReceipts(lines(receipts), { checkSignature: check() })).toMatchObject({
      ok: true,
      runs: [{ signed: 3, signaturesChecked: 3 }],
    });
    // The whole chain hashed again after a change: the hashes fit, the signature does not.
    const forged = rehash({ ...receipts[0]!, principal: { id: 'mallory' } });
    const rest = receipts
      .slice(1)
      .reduce<Receipt[]>((chain, r) => [...chain, rehash({ ...r, prev: chain.at(-1)!.hash })], [forged]);
    expect(verifyReceipts(lines(rest)).ok).toBe(true);
    expect(failure(lines(rest), { checkSignature: check() })).toEqual({
      line: 1,
      reason: expect.stringMatching(/signature \(key "ops-ann"\) does not hold/),
    });
  });

  it("refuses a signature by a key the file does not have, or by another principal's bound key", async () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const unknown = await signatureCheck(JSON.stringify({ someone: other }));
    expect(failure(lines(receipts), { checkSignature: unknown }).reason).toMatch(/a key the keys file does not have/);
    const bob = await signatureCheck(JSON.stringify({ 'ops-ann': { publicKey: annPem, principal: { id: 'bob' } } }));
    expect(failure(lines(receipts), { checkSignature: bob }).reason).toMatch(
      /is by bob's key, but the receipt names alice/,
    );
  });

  it('refuses a decision without a signature when keys are given, and a signature for another fingerprint', () => {
    const unsigned = rehash({ ...receipts[0]!, signature: null });
    expect(verifyReceipts([receiptLine(unsigned)]).ok).toBe(true);
    expect(failure([receiptLine(unsigned)], { checkSignature: check() }).reason).toMatch(
      /^it has no signature; with --keys every decision must be signed/,
    );
    const moved = rehash({ ...receipts[0]!, fingerprint: sha256Hex('another call') });
    expect(failure([receiptLine(moved)]).reason).toBe(
      "its signature names another call's fingerprint than the receipt",
    );
  });

  it('names a decision that is in a run twice, and a line that is not in the canonical form', () => {
    const [a] = receipts;
    const again = rehash({ ...receipts[1]!, decisionId: a!.decisionId });
    expect(failure([receiptLine(a!), receiptLine(again)])).toEqual({
      line: 2,
      reason: 'decision "d1" is in this run\'s receipts already',
    });
    // A key given twice: JSON.parse keeps the last, a person may read the first.
    const twice = receiptLine(a!).replace('"by":null', '"by":"the CFO","by":null');
    expect(failure([twice]).reason).toMatch(/^it is not in the form export writes/);
    expect(failure([JSON.stringify(a)]).reason).toMatch(/^it is not in the form export writes/);
  });

  it('names a line that is not a receipt', () => {
    expect(failure(['{"v":1}']).reason).toMatch(/^not a receipt: /);
    expect(failure(['', 'nope'])).toEqual({ line: 2, reason: 'not JSON' });
    expect(failure([JSON.stringify({ ...receipts[0], extra: 1 })]).reason).toMatch(/^not a receipt: /);
  });
});
