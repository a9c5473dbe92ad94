/**
 * Standing grants from the client: made from a call that waits (by someone who may approve it now),
 * listed and revoked, in the grant book of the call's agent and resource. The client refuses at once what
 * the run would refuse; the run checks every grant again before it takes one.
 */
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { admits, tenantCheck } from '../approvals/access.js';
import { parseCondition } from '../approvals/batch.js';
import { judgeDecision } from '../approvals/rules.js';
import { AccessDeniedError, InvalidInputError, decisionRefused } from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import { createGrantUpdate, grantsQuery, revokeGrantUpdate } from '../protocol/grant-messages.js';
import { MAX_GRANT_HOURS, grantBookId, type Grant, type GrantScope } from '../schemas/grants.js';
import { MAX_TEXT } from '../schemas/limits.js';
import type { Principal } from '../schemas/access.js';
import type { agentGrants } from '../workflows/grants/grant-book.js';
import type { ClientActor, ClientContext } from './context.js';
import { readableRun } from './decisions/decisions.js';
import { principalOf, type PrincipalInput } from './identity.js';
import type { CreateGrantRequest, GrantBookRequest, RevokeGrantRequest } from './grant-requests.js';

const CREATE_KEYS = ['runId', 'toolCallId', 'fingerprint', 'scope', 'where', 'hours', 'maxUses', 'reason', 'principal'];

export async function createGrant(ctx: ClientContext, actor: ClientActor, request: CreateGrantRequest): Promise<Grant> {
  rejectUnknownKeys('grants.create', request, CREATE_KEYS);
  const principal = principalOf(request.principal ?? actor.principal, ctx.temporal.options.identity);
  if (!principal) throw new InvalidInputError('principal', 'a grant is made by a principal: name one');
  const hours = request.hours ?? 24;
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_GRANT_HOURS) {
    throw new InvalidInputError('hours', `a whole number of hours from 1 to ${MAX_GRANT_HOURS}, not ${String(hours)}`);
  }
  if (!Array.isArray(request.where) || request.where.length === 0) {
    throw new InvalidInputError('where', 'at least one condition on the arguments (a grant only narrows): amount<=50');
  }
  for (const condition of request.where) {
    try {
      parseCondition(condition);
    } catch (err) {
      throw new InvalidInputError('where', (err as Error).message);
    }
  }
  if (request.reason !== undefined && request.reason.length > MAX_TEXT) {
    throw new InvalidInputError('reason', `at most ${MAX_TEXT} characters`);
  }
  const info = await readableRun(ctx, request.runId, principal);
  const call = info.pendingToolCalls.find((c) => c.toolCallId === request.toolCallId);
  if (!call || call.kind !== 'approval' || call.path.length > 0) {
    throw new InvalidInputError(
      'toolCallId',
      `run "${request.runId}" has no call ${request.toolCallId} of its own waiting for approval`,
    );
  }
  // Whoever makes a grant could approve the call it is made from, now: the rules the run applies.
  const run = { resourceId: info.resourceId, startedBy: info.startedBy };
  const decision = { toolCallId: call.toolCallId, fingerprint: request.fingerprint, principal };
  const check = judgeDecision('approve', decision, info.pendingToolCalls, new Map(), run);
  if (!check.accepted) throw decisionRefused(request.runId, check.type, check.message);
  if (call.quorum) {
    throw decisionRefused(
      request.runId,
      'NotAllowed',
      `${call.toolName} needs ${call.quorum.required} approvers; a grant is one person's word`,
    );
  }
  if (call.preview)
    throw decisionRefused(request.runId, 'NotAllowed', `${call.toolName} shows a preview, which a grant never saw`);
  // The run says whether its agent lets grants cover the tool, and for how long: a grant no run would take is refused.
  if (!call.grantable) {
    throw decisionRefused(request.runId, 'NotAllowed', `agent "${info.agentId}" lets no grant cover ${call.toolName}`);
  }
  if (hours > call.grantable.maxHours) {
    throw new InvalidInputError(
      'hours',
      `at most ${call.grantable.maxHours}: the longest a grant of ${call.toolName} may live`,
    );
  }
  const scope = scopeOf(request.scope, info);
  const agentId = info.agentId;
  if (!agentId)
    throw new InvalidInputError('runId', `run "${request.runId}" names no agent: make grants from a run of one`);
  const grant = {
    grantId: `grant-${randomUUID()}`,
    toolName: call.toolName,
    scope,
    where: request.where,
    expiresAt: new Date(Date.now() + hours * 3_600_000).toISOString(),
    ...(request.maxUses !== undefined ? { maxUses: request.maxUses } : {}),
    createdBy: principal,
    ...(request.reason !== undefined ? { reason: request.reason } : {}),
    ...(call.decide ? { decide: call.decide } : {}),
  };
  // The book runs where the run does: a worker that serves the agent serves its book.
  const { taskQueue } = await ctx.temporal.workflow.getHandle(request.runId).describe();
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof agentGrants>('agentGrants', {
    workflowId: grantBookId(agentId, info.resourceId),
    taskQueue,
    args: [{ agentId, ...(info.resourceId ? { resourceId: info.resourceId } : {}) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return refusedAsInput(() =>
    ctx.temporal.workflow.executeUpdateWithStart(createGrantUpdate, { args: [grant], startWorkflowOperation }),
  );
}

function scopeOf(
  scope: CreateGrantRequest['scope'],
  info: { runId: string; threadId: string | undefined },
): GrantScope {
  if (scope === 'run') return { kind: 'run', runId: info.runId };
  if (scope === 'resource') return { kind: 'resource' };
  if (scope === 'thread') {
    if (!info.threadId) throw new InvalidInputError('scope', `run "${info.runId}" is on no thread`);
    return { kind: 'thread', threadId: info.threadId };
  }
  throw new InvalidInputError('scope', `"run", "thread" or "resource", not ${JSON.stringify(scope)}`);
}

/**
 * The grants of a book a principal of its tenant may see: those it made, and those of tools it may decide
 * (as the call showed its rule when the grant was made). None where nobody made one yet.
 */
export async function listGrants(ctx: ClientContext, actor: ClientActor, request: GrantBookRequest): Promise<Grant[]> {
  rejectUnknownKeys('grants.list', request, ['agentId', 'resourceId', 'principal']);
  const principal = principalOf(request.principal ?? actor.principal, ctx.temporal.options.identity);
  return (await bookGrants(ctx, actor, request, principal)).filter((g) => mayManage(g, principal));
}

export async function bookGrants(
  ctx: ClientContext,
  actor: ClientActor,
  request: GrantBookRequest,
  who: Principal | undefined,
) {
  const book = bookOf(ctx, actor, request.agentId, request.resourceId, who);
  try {
    return await book.query(grantsQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return [];
    throw err;
  }
}

/** Whether a principal may see and revoke a grant: it made it, or may decide its tool's calls. */
export function mayManage(grant: Grant, principal: Principal | undefined): boolean {
  if (!principal) return grant.decide === undefined;
  const made = grant.createdBy.id === principal.id && grant.createdBy.tenant === principal.tenant;
  return made || grant.decide === undefined || admits(grant.decide, principal);
}

/** Revokes a grant: it approves nothing from then on. */
export async function revokeGrant(ctx: ClientContext, actor: ClientActor, request: RevokeGrantRequest): Promise<Grant> {
  rejectUnknownKeys('grants.revoke', request, ['agentId', 'resourceId', 'grantId', 'principal']);
  const principal = principalOf(request.principal ?? actor.principal, ctx.temporal.options.identity);
  if (!principal) throw new InvalidInputError('principal', 'a grant is revoked by a principal: name one');
  const book = bookOf(ctx, actor, request.agentId, request.resourceId, principal);
  const grant = (await bookGrants(ctx, actor, request, principal)).find((g) => g.grantId === request.grantId);
  if (grant && !mayManage(grant, principal)) {
    throw new AccessDeniedError(
      `"${principal.id}" may not revoke grant ${request.grantId}: only its maker and who decides its tool may`,
    );
  }
  return revokeIn(book, request.grantId, principal);
}

export function revokeIn(book: WorkflowHandle, grantId: string, principal: Principal): Promise<Grant> {
  return refusedAsInput(async () => {
    try {
      return await book.executeUpdate(revokeGrantUpdate, { args: [{ grantId, by: principal }] });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        throw new InvalidInputError('grantId', `no grant ${grantId} in this book`);
      throw err;
    }
  });
}

/** The book of an agent on a resource, for a principal of that resource's tenant only. */
export function bookOf(
  ctx: ClientContext,
  actor: ClientActor,
  agentId: string,
  resourceId: string | undefined,
  who?: PrincipalInput,
) {
  const principal = principalOf(who ?? actor.principal, ctx.temporal.options.identity);
  if (!tenantCheck(principal, resourceId).allowed) {
    throw new InvalidInputError(
      'resourceId',
      `${principal ? `"${principal.id}"` : 'an unknown caller'} is of another tenant`,
    );
  }
  return ctx.temporal.workflow.getHandle(grantBookId(agentId, resourceId));
}

/** An update the book refused (its validator's reason) as the caller's invalid input. */
async function refusedAsInput<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure) throw new InvalidInputError('grant', cause.message);
    throw err;
  }
}
