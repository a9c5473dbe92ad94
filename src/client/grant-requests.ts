/** What `client.grants` takes: plain types, shared by its light entry and the work it loads. */
import type { Grant } from '../schemas/grants.js';
import type { PrincipalInput } from './identity.js';

/** A grant made from a call that waits for approval: for calls of its tool, in its agent's book. */
export interface CreateGrantRequest {
  runId: string;
  toolCallId: string;
  /** The call's fingerprint, as you were shown it: the grant is made only if you could approve that call now. */
  fingerprint: string;
  /** Which calls it holds for: this run's, its thread's, or every run's of the agent on the run's resource. */
  scope: 'run' | 'thread' | 'resource';
  /** Conditions on the arguments, all of which must hold, as batch decisions write them: `['amount<=50']`. */
  where: string[];
  /** How long it holds, in hours (default 24; the agent's `access.grants.maxHours` bounds what runs take). */
  hours?: number;
  /** How many calls it may approve (default: any number until it expires). */
  maxUses?: number;
  reason?: string;
  /** Who makes it (default: the client's principal). */
  principal?: PrincipalInput;
}

/** The grant book of an agent on a resource (none: runs without one). */
export interface GrantBookRequest {
  agentId: string;
  resourceId?: string;
  principal?: PrincipalInput;
}

export interface RevokeGrantRequest extends GrantBookRequest {
  grantId: string;
}

/** Every live grant one principal made, in the books the caller's tenant reaches (a leaver's, say). */
export interface RevokeGrantsMadeByRequest {
  /** The id of the principal whose grants are revoked. */
  createdBy: string;
  /** Only this agent's books (default: every agent's). */
  agentId?: string;
  /**
   * Only this resource's books (default: the caller's tenant; for a caller of no tenant, every resource,
   * and the maker's id in every tenant).
   */
  resourceId?: string;
  /** Who revokes them (default: the client's principal): their maker, or who decides their tool. */
  principal?: PrincipalInput;
}

/** What a revocation by maker did. */
export interface RevokedGrants {
  /** The grants revoked, each as its book now keeps it. */
  revoked: Grant[];
  /** How many live grants of that maker the caller may not revoke (only a count: it may not list them). */
  refused: number;
  /** Books that did not answer (a worker retired, say): nothing in them is known to be revoked. */
  failed: { agentId: string; resourceId?: string; reason: string }[];
  /** How many grant books were walked. */
  books: number;
}
