/**
 * Approvers' keys bound to who holds them: the keys file the workers and `agentctl --identity` read, and
 * what a decision signed with a bound key may claim.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { boundPrincipalProblem, decisionKeyObjects } from '../../src/worker/activities/approvals/verify-decision.js';
import { decisionKeysFromEnv, readDecisionKeys } from '../../src/connection/decision-keys.js';

const ann = generateKeyPairSync('ed25519');
const publicPem = ann.publicKey.export({ format: 'pem', type: 'spki' }).toString();

describe('bound decision keys', () => {
  it('reads a keys file of plain and bound keys, and says what is wrong without quoting a key', () => {
    const file = {
      plain: publicPem,
      'ops-ann': { publicKey: publicPem, principal: { id: 'ann', roles: ['approver'] } },
    };
    expect(readDecisionKeys(JSON.stringify(file))).toEqual({ keys: file });
    expect(decisionKeysFromEnv({ DECISION_PUBLIC_KEYS: JSON.stringify(file) })).toEqual(file);
    const bad = { 'ops-ann': { publicKey: publicPem, principal: { id: 'ann', role: 'approver' } } };
    const read = readDecisionKeys(JSON.stringify(bad));
    expect(read).toEqual({ problem: expect.stringMatching(/: ops-ann\.principal: Unrecognized key: "role"$/) });
    expect(JSON.stringify(read)).not.toContain('BEGIN PUBLIC KEY');
    expect(readDecisionKeys('{nope')).toEqual({ problem: expect.stringMatching(/^not JSON; give /) });
    expect(() => decisionKeysFromEnv({ DECISION_PUBLIC_KEYS: '{"k": 1}' })).toThrow(/^DECISION_PUBLIC_KEYS: give /);
  });

  it('refuses a bound principal that is not one when the worker starts', () => {
    expect(() => decisionKeyObjects({ k: { publicKey: publicPem, principal: { id: '' } } })).toThrow(
      /^decision key "k": principal: id: /,
    );
    expect(decisionKeyObjects({ k: { publicKey: publicPem, principal: { id: 'ann' } } }).get('k')).toMatchObject({
      principal: { id: 'ann' },
    });
  });

  it('lets a decision signed with a bound key claim its principal, or less, never more', () => {
    const bound = { id: 'ann', roles: ['approver'], groups: ['ops'], tenant: 'acme' };
    const problem = (claimed: Parameters<typeof boundPrincipalProblem>[2]) =>
      boundPrincipalProblem('k', bound, claimed);
    expect(problem({ id: 'ann', roles: ['approver'], groups: ['ops'], tenant: 'acme' })).toBeUndefined();
    expect(problem({ id: 'ann', tenant: 'acme', via: 'operator' })).toBeUndefined();
    expect(problem(undefined)).toBe(`key "k" is ann's; a decision signed with it names no principal`);
    expect(problem({ id: 'bob', tenant: 'acme' })).toBe(`key "k" is ann's, not bob's`);
    expect(problem({ id: 'ann', roles: ['admin'], tenant: 'acme' })).toBe(`key "k" is ann's, who has no role admin`);
    expect(problem({ id: 'ann', groups: ['root'], tenant: 'acme' })).toBe(`key "k" is ann's, who has no group root`);
    expect(problem({ id: 'ann' })).toBe(`key "k" is ann's, of tenant acme, not of no tenant`);
    expect(problem({ id: 'ann', tenant: 'other' })).toBe(`key "k" is ann's, of tenant acme, not of tenant other`);
  });
});
