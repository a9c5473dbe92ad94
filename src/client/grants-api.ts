/**
 * `client.grants`: standing grants, "approve, and allow calls like this". Light: the work is in
 * grants.ts, loaded when a method is first called (the client's entry loads no schema library).
 */
import type { Grant } from '../schemas/grants.js';
import type { ClientActor, ClientContext } from './context.js';
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

/** Standing grants, from the client. */
export interface GrantsApi {
  /**
   * Makes a grant from a call that waits, for a principal who could approve that call now (else the
   * refusal the run would give: `NotAllowedError`, `SelfApprovalError`, ...). It does not approve the
   * call itself: approve it as usual. Later calls of the tool in its scope whose arguments meet every
   * condition run without waiting, recorded as approved by the grant's creator, while the run finds
   * that the creator could approve them.
   */
  create(request: CreateGrantRequest): Promise<Grant>;
  /** The grants of a book (live, expired, used up and revoked), for a principal of its tenant. */
  list(request: GrantBookRequest): Promise<Grant[]>;
  /** Revokes a grant: it approves nothing from then on. */
  revoke(request: RevokeGrantRequest): Promise<Grant>;
}

export function grantsApi(ctx: ClientContext, actor: ClientActor): GrantsApi {
  const load = () => import('./grants.js');
  return {
    create: async (request) => (await load()).createGrant(ctx, actor, request),
    list: async (request) => (await load()).listGrants(ctx, actor, request),
    revoke: async (request) => (await load()).revokeGrant(ctx, actor, request),
  };
}
