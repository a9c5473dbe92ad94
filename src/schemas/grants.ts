/**
 * Standing grants: "approve, and allow calls like this". A grant is kept in the grant book of an agent
 * and a resource (one Temporal workflow each, like a thread), made by a principal who could approve such a
 * call, narrowed by a scope (one run, one thread, the resource), conditions on the arguments, a time to
 * live and a use count. Sandbox-safe: the book, the run, the client and agentctl share these.
 */
import { z } from 'zod';
import { AccessPolicySchema, AccessRuleSchema, PrincipalSchema } from './access.js';
import { boundedJson, IdSchema, MAX_INPUT_BYTES, MAX_QUALIFIED_ID, MAX_TEXT, RunRefSchema } from './limits.js';

/** The longest time to live a grant may have, whatever its agent allows: 90 days. */
export const MAX_GRANT_HOURS = 90 * 24;
/** The live grants one book keeps; creating one more is refused until some expire or are revoked. */
export const MAX_LIVE_GRANTS = 200;
/** Bytes of JSON a book's live grants may take: what it carries on when it continues as new, and answers. */
export const MAX_BOOK_BYTES = 1024 * 1024;

/** Where a grant holds: one run, the runs of one thread, or every run of its agent on its resource. */
export const GrantScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('run'), runId: RunRefSchema }).strict(),
  z.object({ kind: z.literal('thread'), threadId: IdSchema }).strict(),
  z.object({ kind: z.literal('resource') }).strict(),
]);
export type GrantScope = z.infer<typeof GrantScopeSchema>;

/** A grant as its creator asks for it, checked by the book (the creator's right to it is checked by the run). */
export const GrantRequestSchema = z
  .object({
    /** Chosen by the client: the grant's id in its book. */
    grantId: IdSchema,
    /** The tool, by its name on the agent. */
    toolName: IdSchema,
    scope: GrantScopeSchema,
    /** Conditions on the arguments, all of which must hold (as batch decisions write them): `amount<=50`. */
    where: z.array(z.string().min(1).max(512)).min(1).max(20),
    /** When it ends, ISO 8601. */
    expiresAt: z.iso.datetime(),
    /** How many calls it may approve (unset: as many as come before it expires). */
    maxUses: z.number().int().min(1).max(10_000).optional(),
    /** Who made it: the principal the client or the server authenticated. */
    createdBy: PrincipalSchema,
    reason: z.string().max(MAX_TEXT).optional(),
    /** Who may decide the tool's calls, as the call showed it when the grant was made: who may list and revoke it. */
    decide: AccessRuleSchema.optional(),
  })
  .strict();
export type GrantRequest = z.infer<typeof GrantRequestSchema>;

/** A grant as its book keeps it. */
export const GrantSchema = GrantRequestSchema.extend({
  agentId: IdSchema,
  resourceId: IdSchema.optional(),
  createdAt: z.string(),
  uses: z.number().int().min(0),
  revoked: z.object({ by: PrincipalSchema, at: z.string() }).strict().optional(),
}).strict();
export type Grant = z.infer<typeof GrantSchema>;

/** A revocation: which grant, by whom. */
export const RevokeGrantSchema = z.object({ grantId: IdSchema, by: PrincipalSchema }).strict();
export type RevokeGrant = z.infer<typeof RevokeGrantSchema>;

/** A run asks its book for a grant that covers a call (through an activity); the book counts the use. */
export const UseGrantSchema = z
  .object({
    runId: RunRefSchema,
    threadId: IdSchema.optional(),
    toolName: IdSchema,
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
    fingerprint: z.string().min(1).max(128),
    args: boundedJson(MAX_INPUT_BYTES),
    /** The agent's policy for the tool, and who started the run: the book returns a grant its creator passes. */
    policy: AccessPolicySchema,
    startedBy: PrincipalSchema.optional(),
  })
  .strict();
export type UseGrant = z.infer<typeof UseGrantSchema>;

/** What a book is started with: its agent and resource, and what it carries over when it continues as new. */
export const GrantBookInputSchema = z
  .object({
    agentId: IdSchema,
    resourceId: IdSchema.optional(),
    grants: z.array(GrantSchema).max(MAX_LIVE_GRANTS).optional(),
  })
  .strict();
export type GrantBookInput = z.infer<typeof GrantBookInputSchema>;

/** The grant book of an agent on a resource (none: the runs without one). */
export function grantBookId(agentId: string, resourceId: string | undefined): string {
  return `grants:${encodeURIComponent(agentId)}:${encodeURIComponent(resourceId ?? '')}`;
}

/** The agent and resource of a grant book's workflow id; undefined for an id {@link grantBookId} never gives. */
export function bookIdParts(workflowId: string): { agentId: string; resourceId: string | undefined } | undefined {
  const parts = workflowId.split(':');
  if (parts.length !== 3 || parts[0] !== 'grants' || !parts[1]) return undefined;
  try {
    const agentId = decodeURIComponent(parts[1]);
    const resourceId = parts[2] ? decodeURIComponent(parts[2]) : undefined;
    return grantBookId(agentId, resourceId) === workflowId ? { agentId, resourceId } : undefined;
  } catch {
    return undefined; // not percent-encoding: no book of ours
  }
}
