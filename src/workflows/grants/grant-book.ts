/**
 * The grant book of an agent on a resource, as one long-lived Temporal workflow (id: `grantBookId`): the
 * standing grants its approvers made, kept durably like a thread. Grants are made and revoked by updates
 * (each checked by a validator, so a refused one leaves nothing in the history), and runs ask for one
 * that covers a call through an activity, which counts the use. The book decides nothing about who may
 * grant: the run checks the grant's creator against its own policy before it takes a grant.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { grantDecision } from '../../approvals/grants.js';
import { parseCondition } from '../../approvals/batch.js';
import { refusedUpdate } from '../../protocol/run-messages.js';
import { createGrantUpdate, grantsQuery, revokeGrantUpdate, useGrantUpdate } from '../../protocol/grant-messages.js';
import { safeParse } from '../../schemas/json.js';
import { canonicalJson } from '../../approvals/canonical-json.js';
import {
  GrantBookInputSchema,
  GrantRequestSchema,
  MAX_BOOK_BYTES,
  MAX_GRANT_HOURS,
  MAX_LIVE_GRANTS,
  RevokeGrantSchema,
  UseGrantSchema,
  type Grant,
  type GrantBookInput,
  type GrantRequest,
  type RevokeGrant,
  type UseGrant,
} from '../../schemas/grants.js';
import { clip, jsonBytes } from '../../schemas/limits.js';

/** Changes a book takes before it continues as new, whatever Temporal suggests. */
const CONTINUE_AS_NEW_EVERY = 500;

export async function agentGrants(raw: GrantBookInput): Promise<void> {
  const parsed = safeParse(GrantBookInputSchema, raw);
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(`Invalid grant book input: ${parsed.error}`, 'InvalidInput');
  const { agentId, resourceId } = parsed.data;
  const grants: Grant[] = parsed.data.grants ?? [];
  let changes = 0;
  const now = () => new Date().toISOString();
  const ended = (g: Grant, at: string) =>
    g.revoked !== undefined || Date.parse(at) >= Date.parse(g.expiresAt) || (g.maxUses ?? Infinity) <= g.uses;

  const refusal = (request: GrantRequest): string | undefined => {
    for (const condition of request.where) {
      try {
        parseCondition(condition);
      } catch (err) {
        return (err as Error).message;
      }
    }
    const at = Date.parse(now());
    const until = Date.parse(request.expiresAt);
    if (until <= at) return `it expires at ${request.expiresAt}, which has passed`;
    if (until - at > MAX_GRANT_HOURS * 3_600_000) return `it lives longer than ${MAX_GRANT_HOURS} hours`;
    const same = grants.find((g) => g.grantId === request.grantId);
    if (same) return canonicalJson(asRequest(same)) === canonicalJson(request) ? undefined : 'its id is taken';
    const live = grants.filter((g) => !ended(g, now()));
    if (live.length >= MAX_LIVE_GRANTS) return `the book holds ${live.length} live grants, its most; revoke some first`;
    if (jsonBytes(live) + jsonBytes(request) > MAX_BOOK_BYTES) {
      return `the book's live grants would take more than ${MAX_BOOK_BYTES} bytes; revoke some first`;
    }
    return undefined;
  };
  setHandler(
    createGrantUpdate,
    (request: GrantRequest): Grant => {
      const same = grants.find((g) => g.grantId === request.grantId);
      if (same) return same;
      const grant: Grant = { ...request, agentId, ...(resourceId ? { resourceId } : {}), createdAt: now(), uses: 0 };
      grants.push(grant);
      changes++;
      return grant;
    },
    {
      validator: (raw: GrantRequest) => {
        const parsed = safeParse(GrantRequestSchema, raw);
        if (!parsed.success) throw refusedUpdate(`createGrant refused: ${clip(String(parsed.error), 300)}`);
        const why = refusal(parsed.data);
        if (why) throw refusedUpdate(`createGrant refused: ${why}`);
      },
    },
  );

  setHandler(
    revokeGrantUpdate,
    ({ grantId, by }: RevokeGrant): Grant => {
      const grant = grants.find((g) => g.grantId === grantId)!;
      grant.revoked ??= { by, at: now() };
      changes++;
      return grant;
    },
    {
      validator: (raw: RevokeGrant) => {
        const parsed = safeParse(RevokeGrantSchema, raw);
        if (!parsed.success) throw refusedUpdate(`revokeGrant refused: ${clip(String(parsed.error), 300)}`);
        if (!grants.some((g) => g.grantId === parsed.data.grantId)) {
          throw ApplicationFailure.nonRetryable(`no grant ${clip(parsed.data.grantId)} in this book`, 'GrantNotFound');
        }
      },
    },
  );

  setHandler(
    useGrantUpdate,
    (use: UseGrant): Grant | null => {
      const { policy, startedBy, ...call } = use;
      const run = { resourceId, startedBy };
      const book = { agentId, resourceId };
      const at = now();
      const grant = grants.find((g) => grantDecision(g, call, book, policy, run, at, false).ok);
      if (!grant) return null;
      grant.uses++;
      changes++;
      return { ...grant };
    },
    {
      validator: (use: UseGrant) => {
        const parsed = safeParse(UseGrantSchema, use);
        if (!parsed.success) throw refusedUpdate(`useGrant refused: ${clip(String(parsed.error), 300)}`);
      },
    },
  );

  setHandler(grantsQuery, () => grants);

  await condition(() => changes >= CONTINUE_AS_NEW_EVERY || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  const continueAsNew = makeContinueAsNewFunc<typeof agentGrants>({});
  // Ended grants stay in the runs' trails that used them; the book carries only the live ones.
  return continueAsNew({
    agentId,
    ...(resourceId ? { resourceId } : {}),
    grants: grants.filter((g) => !ended(g, now())),
  });
}

/** The request a kept grant was made from, to tell a retried create from another grant with the same id. */
function asRequest(grant: Grant): GrantRequest {
  const { agentId: _a, resourceId: _r, createdAt: _c, uses: _u, revoked: _v, ...request } = grant;
  return request;
}
