import { describe, expect, it } from 'vitest';
import { admits, callAccess, canDecide, canRead, canStart, readers } from '../../src/approvals/access.js';
import type { AccessPolicy, Principal } from '../../src/schemas/access.js';

const alice: Principal = { id: 'alice', roles: ['approver'], groups: ['ops'], tenant: 'acme' };
const bob: Principal = { id: 'bob', tenant: 'acme' };
const eve: Principal = { id: 'eve', roles: ['approver'], tenant: 'globex' };

describe('access rules', () => {
  it('admit by *, user, role and group; an unset rule admits anyone, an empty one nobody', () => {
    expect(admits(undefined, undefined)).toBe(true);
    expect(admits(['*'], bob)).toBe(true);
    expect(admits(['*'], undefined)).toBe(false); // a rule needs someone who says who they are
    expect(admits(['user:bob'], bob)).toBe(true);
    expect(admits(['role:approver'], alice)).toBe(true);
    expect(admits(['group:ops'], alice)).toBe(true);
    expect(admits(['role:approver', 'group:ops'], bob)).toBe(false);
    expect(admits([], alice)).toBe(false);
  });

  it('let an agent say who starts its runs', () => {
    const policy: AccessPolicy = { start: ['role:approver'] };
    expect(canStart(policy, 'bank', alice).allowed).toBe(true);
    expect(canStart(policy, 'bank', bob)).toMatchObject({ allowed: false, type: 'NotAllowed' });
    expect(canStart(undefined, 'bank', undefined).allowed).toBe(true);
  });

  it('let readers, deciders and the starter read a run, within its tenant only', () => {
    const policy: AccessPolicy = { read: ['role:auditor'], decide: ['role:approver'] };
    const run = { runId: 'r', resourceId: 'acme', startedBy: bob };
    expect(readers(policy)).toEqual(['role:auditor', 'role:approver']);
    expect(canRead(readers(policy), run, alice).allowed).toBe(true); // may decide, so may read
    expect(canRead(readers(policy), run, bob).allowed).toBe(true); // the starter
    expect(canRead(readers(policy), run, { id: 'carol', tenant: 'acme' }).allowed).toBe(false);
    expect(canRead(readers(policy), run, eve)).toMatchObject({ allowed: false, type: 'NotAllowed' }); // another tenant
    expect(readers({ read: ['role:auditor'] })).toBeUndefined(); // anyone may decide, so anyone may read
  });

  it('resolve a tool’s rule when its call starts to wait: approvals are not for the starter by default', () => {
    const policy: AccessPolicy = {
      decide: ['role:approver'],
      tools: { refund: { decide: ['user:bob'], selfApproval: true } },
    };
    expect(callAccess(policy, 'transfer', 'approval')).toEqual({ decide: ['role:approver'], selfApproval: false });
    expect(callAccess(policy, 'transfer', 'suspend')).toEqual({ decide: ['role:approver'], selfApproval: true });
    expect(callAccess(policy, 'refund', 'approval')).toEqual({ decide: ['user:bob'], selfApproval: true });
    expect(callAccess(undefined, 'x', 'approval')).toEqual({ selfApproval: false });
  });

  it('refuse the starter’s own approval, other tenants and those the rule does not name', () => {
    const call = { toolCallId: 'c', toolName: 'transfer', decide: ['role:approver'], selfApproval: false };
    const run = { resourceId: 'acme', startedBy: alice };
    expect(canDecide(call, run, alice)).toMatchObject({ allowed: false, type: 'SelfApproval' });
    expect(canDecide(call, run, bob)).toMatchObject({ allowed: false, type: 'NotAllowed' });
    expect(canDecide(call, run, eve)).toMatchObject({ allowed: false, type: 'NotAllowed' });
    expect(canDecide(call, { resourceId: 'acme', startedBy: bob }, alice).allowed).toBe(true);
    // Nobody known on either side cannot be told apart, so it is not refused as the same person.
    expect(
      canDecide({ ...call, decide: undefined }, { resourceId: undefined, startedBy: undefined }, undefined).allowed,
    ).toBe(true);
  });
});
