/** Who may use a thread over HTTP (src/server/thread-access.ts): the owner, the agents' readers, the tenant. */
import { describe, expect, it } from 'vitest';
import type { AccessPolicy, Principal } from '../../src/schemas/access.js';
import { threadAccess, threadPrivacyOption, type ThreadAccessInfo } from '../../src/server/auth/thread-access.js';

const policies: Record<string, AccessPolicy> = {
  audited: { read: ['role:auditor'], decide: ['role:approver'] },
};
const policyOf = (agentId: string) => policies[agentId];
const ada: Principal = { id: 'ada', tenant: 'acme' };
const bob: Principal = { id: 'bob', tenant: 'acme' };
const auditor: Principal = { id: 'aud', roles: ['auditor'], tenant: 'acme' };
const eve: Principal = { id: 'eve', tenant: 'globex' };

const thread = (over: Partial<ThreadAccessInfo> = {}): ThreadAccessInfo => ({
  resourceId: 'acme',
  owner: 'ada',
  participants: [{ agentId: 'open', startedBy: 'ada' }],
  ...over,
});
const allowed = (t: ThreadAccessInfo, p: Principal | undefined, privacy: 'user' | 'tenant' = 'user') =>
  threadAccess(t, p, policyOf, privacy).allowed;

describe('threadAccess', () => {
  it("keeps a thread to its owner under 'user' privacy, and shares it in the tenant under 'tenant'", () => {
    expect(allowed(thread(), ada)).toBe(true);
    expect(threadAccess(thread(), bob, policyOf, 'user')).toEqual({
      allowed: false,
      why: "it is another user's (this server keeps each thread to the user who started it: threadPrivacy 'user')",
    });
    expect(allowed(thread(), bob, 'tenant')).toBe(true);
    expect(allowed(thread(), eve, 'tenant')).toBe(false);
    // No authentication (loopback): nobody in particular, no user to keep it to.
    expect(allowed(thread(), undefined)).toBe(true);
  });

  it("lets in those every agent's read rules admit, and only where every agent has some", () => {
    const audited = thread({ participants: [{ agentId: 'audited', startedBy: 'ada' }] });
    expect(allowed(audited, auditor)).toBe(true);
    expect(allowed(audited, bob)).toBe(false);
    const mixed = thread({ participants: [...audited.participants, { agentId: 'open', startedBy: 'ada' }] });
    expect(allowed(mixed, auditor)).toBe(false);
    // An owner who may not read another starter's run of a guarded agent may not read the thread either.
    const joined = thread({ participants: [{ agentId: 'audited', startedBy: 'bob' }] });
    expect(threadAccess(joined, ada, policyOf, 'tenant')).toEqual({
      allowed: false,
      why: 'it holds runs of agents you may not read',
    });
  });

  it('gives a thread from before owners to its known starters, and one nobody known began to the tenant', () => {
    const before = thread({
      owner: undefined,
      participants: [{ agentId: 'open', startedBy: 'bob' }, { agentId: 'open' }],
    });
    expect(allowed(before, bob)).toBe(true);
    expect(allowed(before, ada)).toBe(false);
    expect(allowed(thread({ owner: undefined, participants: [{ agentId: 'open' }] }), ada)).toBe(true);
  });

  it('takes only the privacy settings it knows', () => {
    expect(threadPrivacyOption(undefined)).toBe('user');
    expect(threadPrivacyOption('tenant')).toBe('tenant');
    expect(() => threadPrivacyOption('users')).toThrow(/threadPrivacy is "user" .* not "users"/);
  });
});
