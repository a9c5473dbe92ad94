/**
 * Who may use a thread over HTTP: read it, list it, start runs on it (their model is shown it) and, by
 * a message, resume the calls its runs wait on. A thread holds its runs' conversations, so whoever uses
 * it must be allowed to read every run that took part. Where the server knows who is calling, a thread
 * is its owner's (who started the run that began it) unless the server keeps threads tenant-wide.
 */
import { admits, canRead, readers, tenantCheck } from '../../approvals/access.js';
import type { ThreadInfo } from '../../client/threads.js';
import type { AccessPolicy, Principal } from '../../schemas/access.js';

/**
 * `user` (the default): a thread started by a known principal is theirs; others of the tenant may use it
 * only where every agent on it has read rules that let them in (auditors, approvers). `tenant`: every
 * principal of the tenant may use every thread their agents' read rules allow, as before threads had owners.
 */
export const THREAD_PRIVACY = ['user', 'tenant'] as const;
export type ThreadPrivacy = (typeof THREAD_PRIVACY)[number];

/** The server option checked: a value we do not know is an error, never a quiet fallback. */
export function threadPrivacyOption(value: unknown): ThreadPrivacy {
  if (value === undefined) return 'user';
  if (THREAD_PRIVACY.includes(value as ThreadPrivacy)) return value as ThreadPrivacy;
  throw new TypeError(
    `createServerApp: threadPrivacy is "user" (each thread its owner's, the default) or "tenant" (threads ` +
      `shared within a tenant), not ${JSON.stringify(value)}`,
  );
}

/** Whether the principal may use the thread, or why not (a clause naming nothing of the thread's content). */
export type ThreadAccess = { allowed: true } | { allowed: false; why: string };

/** What a thread's access depends on: its tenant, owner, and the agents and starters of its runs. */
export type ThreadAccessInfo = Pick<ThreadInfo, 'resourceId' | 'participants' | 'owner'>;

/**
 * The access of `principal` to a thread. Another tenant's thread is refused before anything else (the
 * routes answer it as not found). Every run on it must be readable to the principal (as its starter or
 * by its agent's read rule). Under `user` privacy, a principal must also be the owner (for a thread from
 * before owners: a starter of one of its runs), or be let in by the read rules of every agent on it; a
 * thread that no known principal began is the tenant's.
 */
export function threadAccess(
  thread: ThreadAccessInfo,
  principal: Principal | undefined,
  policyOf: (agentId: string) => AccessPolicy | undefined,
  privacy: ThreadPrivacy,
): ThreadAccess {
  if (!tenantCheck(principal, thread.resourceId).allowed) return { allowed: false, why: 'it is of another tenant' };
  const everyRun = thread.participants.every(({ agentId, startedBy }) => {
    const run = { runId: '', resourceId: thread.resourceId, startedBy: startedBy ? { id: startedBy } : undefined };
    return canRead(readers(policyOf(agentId)), run, principal).allowed;
  });
  if (!everyRun) return { allowed: false, why: 'it holds runs of agents you may not read' };
  // With no authentication (loopback only) nobody in particular calls: there is no user to keep it to.
  if (privacy === 'tenant' || !principal) return { allowed: true };
  // A thread from before owners is its known starters'; one nobody known began (the library or agentctl
  // without a principal) has no user to keep it to, and stays the tenant's.
  const starters = thread.owner ? [thread.owner] : thread.participants.flatMap((p) => p.startedBy ?? []);
  if (starters.length === 0 || starters.includes(principal.id)) return { allowed: true };
  // An agent without read rules leaves its runs to their starters here; with them, those rules decide.
  const reader =
    thread.participants.length > 0 &&
    thread.participants.every(({ agentId }) => {
      const rule = readers(policyOf(agentId));
      return rule !== undefined && admits(rule, principal);
    });
  if (reader) return { allowed: true };
  return {
    allowed: false,
    why: "it is another user's (this server keeps each thread to the user who started it: threadPrivacy 'user')",
  };
}
