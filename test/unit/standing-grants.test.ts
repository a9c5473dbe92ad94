/**
 * Standing grants' rules: what a grant covers (scope, tool, conditions, time, uses, revocation), and
 * that the run takes one only where its creator could approve the call now, the agent lets grants cover
 * the tool, and it lives no longer than the agent allows.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkGrantPolicy, grantCovers, grantDecision } from '../../src/approvals/grants.js';
import { createTool, defineAgent } from '../../src/index.js';
import type { AccessPolicy } from '../../src/schemas/access.js';
import { bookIdParts, grantBookId, type Grant } from '../../src/schemas/grants.js';
import { canRead, readers } from '../../src/approvals/access.js';

const AT = '2026-12-06T10:00:00.000Z';
const ann = { id: 'ann', roles: ['approver'], tenant: 'acme' };
const tina = { id: 'tina', roles: ['approver'], tenant: 'acme' };
const policy: AccessPolicy = { decide: ['role:approver'], grants: { tools: ['transfer'], maxHours: 48 } };
const grant: Grant = {
  grantId: 'g1',
  toolName: 'transfer',
  scope: { kind: 'thread', threadId: 't1' },
  where: ['amount<=50', 'to$=@example.com'],
  expiresAt: '2026-12-07T10:00:00.000Z',
  maxUses: 2,
  createdBy: ann,
  agentId: 'bank',
  resourceId: 'acme',
  createdAt: '2026-12-06T09:00:00.000Z',
  uses: 0,
};
const call = {
  runId: 'run-1',
  threadId: 't1',
  toolCallId: 'c1',
  toolName: 'transfer',
  args: { to: 'bob@example.com', amount: 20 },
  fingerprint: 'f'.repeat(64),
};
const book = { agentId: 'bank', resourceId: 'acme' };
const run = { resourceId: 'acme', startedBy: tina };
const decided = (g: Grant, c = call, p = policy, r: typeof run = run) => grantDecision(g, c, book, p, r, AT, false);

describe('what a grant covers', () => {
  it('calls of its tool in its scope whose arguments meet every condition, while it lives and has uses', () => {
    expect(grantCovers(grant, call, AT)).toBe(true);
    expect(grantCovers(grant, { ...call, args: { to: 'bob@example.com', amount: 51 } }, AT)).toBe(false);
    expect(grantCovers(grant, { ...call, args: { to: 'bob@evil.com', amount: 20 } }, AT)).toBe(false);
    // A value of another type, or missing, never holds: nothing is coerced.
    expect(grantCovers(grant, { ...call, args: { to: 'bob@example.com', amount: '20' } }, AT)).toBe(false);
    expect(grantCovers(grant, { ...call, args: { to: 'bob@example.com' } }, AT)).toBe(false);
    expect(grantCovers(grant, { ...call, threadId: 't2' }, AT)).toBe(false);
    expect(grantCovers(grant, { ...call, toolName: 'wire' }, AT)).toBe(false);
    expect(grantCovers(grant, call, '2026-12-07T10:00:00.000Z')).toBe(false);
    expect(grantCovers({ ...grant, uses: 2 }, call, AT)).toBe(false);
    expect(grantCovers({ ...grant, revoked: { by: ann, at: AT } }, call, AT)).toBe(false);
    expect(grantCovers({ ...grant, scope: { kind: 'run', runId: 'run-2' } }, call, AT)).toBe(false);
    expect(grantCovers({ ...grant, scope: { kind: 'resource' } }, { ...call, threadId: undefined }, AT)).toBe(true);
    // A grant only narrows: one without a condition (no book takes it) covers nothing.
    expect(grantCovers({ ...grant, where: [] }, call, AT)).toBe(false);
  });
});

describe('what the run takes', () => {
  it("a grant whose creator could approve the call: recorded as the creator's approval, with the grant", () => {
    expect(decided(grant)).toMatchObject({
      ok: true,
      record: { kind: 'approve', principal: ann, by: 'grant g1', grant: { id: 'g1' }, decisionId: 'grant:g1:c1' },
    });
    // As the run sees it after the book counted the use.
    expect(grantDecision({ ...grant, uses: 2 }, call, book, policy, run, AT)).toMatchObject({ ok: true });
    expect(grantDecision({ ...grant, uses: 3 }, call, book, policy, run, AT)).toMatchObject({ ok: false });
  });

  it('nothing its creator could not approve, nor what the agent does not let grants cover', () => {
    const nora = { id: 'nora', tenant: 'acme' };
    expect(decided({ ...grant, createdBy: nora })).toMatchObject({ ok: false, reason: /may not approve/ });
    // The run's starter, where the approval must be someone else's.
    expect(decided({ ...grant, createdBy: tina })).toMatchObject({ ok: false, reason: /may not approve/ });
    expect(decided({ ...grant, createdBy: { ...ann, tenant: 'globex' } })).toMatchObject({ ok: false });
    expect(decided(grant, call, { ...policy, grants: undefined })).toMatchObject({ ok: false, reason: /no grant/ });
    expect(decided(grant, call, { ...policy, tools: { transfer: { quorum: 2 } } })).toMatchObject({
      ok: false,
      reason: /needs 2 approvers/,
    });
    expect(decided({ ...grant, expiresAt: '2026-12-09T10:00:00.000Z' })).toMatchObject({
      ok: false,
      reason: /lives longer/,
    });
    expect(grantDecision(grant, call, { agentId: 'other', resourceId: 'acme' }, policy, run, AT, false)).toMatchObject({
      ok: false,
    });
  });
});

describe('defineAgent', () => {
  const transfer = createTool({
    id: 'transfer',
    inputSchema: z.object({ amount: z.number() }),
    requireApproval: true,
    execute: async () => 'ok',
  });
  const base = { id: 'g', name: 'G', instructions: '', model: 'scripted', tools: { transfer } };
  it('refuses grants of a tool the agent lacks, of one that needs a quorum, and keys it does not take', () => {
    expect(() => defineAgent({ ...base, access: { grants: { tools: ['wire'] } } })).toThrow(
      /access.grants.tools: "wire" is not a tool of the agent/,
    );
    expect(() => checkGrantPolicy('x', { quorum: 2, grants: { tools: ['transfer'] } }, { transfer })).toThrow(
      /needs 2 approvers; a grant is one person's word/,
    );
    expect(() => defineAgent({ ...base, access: { grants: { tools: ['transfer'], forever: true } as never } })).toThrow(
      /invalid access/,
    );
  });
});

describe('what a grant can tell its creator', () => {
  // Conditions read the raw arguments. Whether a grant approved a call says something about them, so its
  // creator must be someone who may read that run anyway: every decider of a tool reads the agent's runs.
  it('a grant the run takes has a creator who may read the run, whatever the read rule', () => {
    const narrowRead: AccessPolicy = {
      read: ['role:auditor'],
      decide: ['role:manager'],
      tools: { transfer: { decide: ['role:approver'] } },
      grants: { tools: ['transfer'], maxHours: 48 },
    };
    const rules = [policy, narrowRead, { ...narrowRead, decide: ['role:approver'], tools: {} }];
    for (const p of rules) {
      expect(decided(grant, call, p).ok).toBe(true);
      const target = { runId: call.runId, resourceId: run.resourceId, startedBy: run.startedBy };
      expect(canRead(readers(p), target, grant.createdBy).allowed).toBe(true);
    }
  });
});

describe('where a book is', () => {
  it("reads an agent and a resource back from a book's id, and nothing from another id", () => {
    expect(bookIdParts(grantBookId('bank', 'acme'))).toEqual({ agentId: 'bank', resourceId: 'acme' });
    expect(bookIdParts(grantBookId('a:b', 'c/d'))).toEqual({ agentId: 'a:b', resourceId: 'c/d' });
    expect(bookIdParts(grantBookId('bank', undefined))).toEqual({ agentId: 'bank', resourceId: undefined });
    for (const id of ['grants:bank', 'grants::acme', 'thread:bank:acme', 'grants:a:b:c', 'grants:%E0%A4%A:x']) {
      expect(bookIdParts(id)).toBeUndefined();
    }
  });
});
