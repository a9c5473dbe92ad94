/**
 * Revoking every live grant one principal made: a grant keeps its maker as they were when they made it
 * (as an approval they gave does), so this is what takes a leaver's, or a lost role's, grants away. It
 * walks the grant books of the caller's tenant, one at a time, and says what it could not do.
 */
import { tenantCheck, confinedTenant } from '../approvals/access.js';
import { InvalidInputError } from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import type { Principal } from '../schemas/access.js';
import { bookIdParts, type Grant } from '../schemas/grants.js';
import { IdSchema } from '../schemas/limits.js';
import type { ClientActor, ClientContext } from './context.js';
import type { RevokedGrants, RevokeGrantsMadeByRequest } from './grant-requests.js';
import { bookGrants, bookOf, mayManage, revokeIn } from './grants.js';
import { principalOf } from './identity.js';

/** The most grant books one revocation walks; past it, name the agent (and resource). */
export const MAX_BOOKS_WALKED = 1000;
/** How long a book may take to answer before it counts as failed (its worker gone, say). */
const BOOK_DEADLINE_MS = 5_000;

type Book = { agentId: string; resourceId: string | undefined };

export async function revokeGrantsMadeBy(
  ctx: ClientContext,
  actor: ClientActor,
  request: RevokeGrantsMadeByRequest,
): Promise<RevokedGrants> {
  rejectUnknownKeys('grants.revokeMadeBy', request, ['createdBy', 'agentId', 'resourceId', 'principal']);
  const principal = principalOf(request.principal ?? actor.principal, ctx.temporal.options.identity);
  if (!principal) throw new InvalidInputError('principal', 'grants are revoked by a principal: name one');
  checkId('createdBy', request.createdBy, 'the id of the principal who made them');
  if (request.agentId !== undefined) checkId('agentId', request.agentId);
  if (request.resourceId !== undefined) checkId('resourceId', request.resourceId);
  // A resource of another tenant is refused, as for one grant: not an empty answer that looks like "none".
  const resourceId = request.resourceId ?? confinedTenant(principal);
  if (!tenantCheck(principal, resourceId).allowed) {
    throw new InvalidInputError('resourceId', `"${principal.id}" is of another tenant than "${resourceId}"`);
  }
  const books = await grantBooks(ctx, request.agentId, resourceId);
  const result: RevokedGrants = { revoked: [], refused: 0, failed: [], books: books.length };
  for (const book of books) {
    if (!tenantCheck(principal, book.resourceId).allowed) continue;
    try {
      await revokeInBook(ctx, actor, book, principal, request.createdBy, result);
    } catch (err) {
      // One book out of reach (its worker retired) stops nothing else; the caller learns which.
      const reason = err instanceof Error ? err.message : String(err);
      result.failed.push({ agentId: book.agentId, ...resourceOf(book), reason });
    }
  }
  return result;
}

async function revokeInBook(
  ctx: ClientContext,
  actor: ClientActor,
  book: Book,
  principal: Principal,
  createdBy: string,
  result: RevokedGrants,
): Promise<void> {
  const at = Date.now();
  const request = { agentId: book.agentId, ...resourceOf(book) };
  const grants = await ctx.temporal.withDeadline(at + BOOK_DEADLINE_MS, () =>
    bookGrants(ctx, actor, request, principal),
  );
  const handle = bookOf(ctx, actor, book.agentId, book.resourceId, principal);
  for (const grant of grants.filter((g) => live(g, at) && madeBy(g, createdBy, principal))) {
    // Only a count: a grant the caller may not revoke is one it may not list either.
    if (!mayManage(grant, principal)) result.refused++;
    else result.revoked.push(await revokeIn(handle, grant.grantId, principal));
  }
}

function live(grant: Grant, at: number): boolean {
  const usedUp = grant.maxUses !== undefined && grant.uses >= grant.maxUses;
  return !grant.revoked && !usedUp && Date.parse(grant.expiresAt) > at;
}

/** A principal is an id in a tenant: a caller of a tenant revokes what that tenant's principal made. */
function madeBy(grant: Grant, createdBy: string, caller: Principal): boolean {
  const tenant = confinedTenant(caller);
  return grant.createdBy.id === createdBy && (tenant === undefined || grant.createdBy.tenant === tenant);
}

/** The grant books to walk: the one named, or those visibility lists (a book made seconds ago may be missing). */
async function grantBooks(ctx: ClientContext, agentId: string | undefined, resourceId: string | undefined) {
  if (agentId !== undefined && resourceId !== undefined) return [{ agentId, resourceId }];
  const books: Book[] = [];
  const query = "WorkflowType = 'agentGrants' AND ExecutionStatus = 'Running'";
  for await (const run of ctx.temporal.workflow.list({ query })) {
    const book = bookIdParts(run.workflowId);
    if (!book || (agentId !== undefined && book.agentId !== agentId)) continue;
    if (resourceId !== undefined && book.resourceId !== resourceId) continue;
    if (books.length === MAX_BOOKS_WALKED) {
      throw new InvalidInputError(
        agentId === undefined ? 'agentId' : 'resourceId',
        `more than ${MAX_BOOKS_WALKED} grant books match: name the agent (and the resource)`,
      );
    }
    books.push(book);
  }
  return books;
}

function resourceOf(book: Book): { resourceId?: string } {
  return book.resourceId !== undefined ? { resourceId: book.resourceId } : {};
}

function checkId(name: string, value: unknown, what = 'an id'): void {
  if (!IdSchema.safeParse(value).success) throw new InvalidInputError(name, `${what}, not ${JSON.stringify(value)}`);
}
