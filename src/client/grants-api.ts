/**
 * `client.grants`: standing grants, "approve, and allow calls like this". Light: the work is in
 * grants.ts, loaded when a method is first called (the client's entry loads no schema library).
 */
import type { Grant } from '../schemas/grants.js';
import type { ClientActor, ClientContext } from './context.js';
import type {
  CreateGrantRequest,
  GrantBookRequest,
  RevokeGrantRequest,
  RevokedGrants,
  RevokeGrantsMadeByRequest,
} from './grant-requests.js';

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
  /**
   * Revokes every live grant one principal made (someone who left, or lost a role: a grant keeps its
   * maker as they were), in the grant books of the caller's tenant, found by visibility unless both
   * `agentId` and `resourceId` name one (a book made seconds ago may not be listed yet). Says how many it
   * may not revoke (`refused`) and which books did not answer (`failed`).
   */
  revokeMadeBy(request: RevokeGrantsMadeByRequest): Promise<RevokedGrants>;
}

export function grantsApi(ctx: ClientContext, actor: ClientActor): GrantsApi {
  const load = () => import('./grants.js');
  return {
    create: async (request) => (await load()).createGrant(ctx, actor, request),
    list: async (request) => (await load()).listGrants(ctx, actor, request),
    revoke: async (request) => (await load()).revokeGrant(ctx, actor, request),
    revokeMadeBy: async (request) => (await import('./grants-revoke.js')).revokeGrantsMadeBy(ctx, actor, request),
  };
}
