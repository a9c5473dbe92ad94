/**
 * Standing grants, as pure rules: which grant of a book covers a call (the book's side), and what the run
 * makes of the grant its book returned. The run checks everything again in the workflow, from the agent's
 * policy it recorded: the grant covers the call, the agent lets grants cover the tool, and its creator is
 * someone who could approve this very call now (the tool's rule, the tenant, not the run's starter where
 * self-approval is off, never where a quorum is needed). So a grant can never approve a call its creator
 * could not have approved, whoever wrote it into the book.
 */
import type { AccessPolicy } from '../schemas/access.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';
import type { Grant } from '../schemas/grants.js';
import type { JsonValue } from '../schemas/json.js';
import { MAX_GRANT_HOURS } from '../schemas/grants.js';
import { callAccess } from './access.js';
import { argsMeet, storedConditions } from './batch.js';
import { judgeDecision, type RunAccess } from './rules.js';

/** The call a grant may cover, and the run it is in. */
export interface GrantedCall {
  runId: string;
  threadId?: string | undefined;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
}

/** How long grants of an agent may live, in hours (its policy's, within {@link MAX_GRANT_HOURS}). */
export function grantHours(policy: AccessPolicy | undefined): number {
  return Math.min(policy?.grants?.maxHours ?? 24, MAX_GRANT_HOURS);
}

/**
 * Whether a grant covers a call at `at`: not revoked, not expired, uses left, its tool, its scope, and
 * every condition on the raw arguments (a value that is missing or of another type never holds).
 */
export function grantCovers(grant: Grant, call: GrantedCall, at: string): boolean {
  if (grant.revoked || Date.parse(at) >= Date.parse(grant.expiresAt)) return false;
  if (grant.maxUses !== undefined && grant.uses >= grant.maxUses) return false;
  if (grant.toolName !== call.toolName) return false;
  const { scope } = grant;
  if (scope.kind === 'run' && scope.runId !== call.runId) return false;
  if (scope.kind === 'thread' && scope.threadId !== call.threadId) return false;
  // A grant only narrows: one with no condition (which no book takes) covers nothing.
  const where = storedConditions(grant.where);
  return where !== undefined && where.length > 0 && argsMeet(call.args, where);
}

/**
 * What the run makes of a grant for a call: its trail entry, or why it does not approve the call (a
 * person is asked then). The book asks the same, with the policy the run sends, to find the grant it
 * returns; the run asks again of what it got (`counted`: the book counted this use already).
 */
export function grantDecision(
  grant: Grant,
  call: GrantedCall & { fingerprint: string },
  book: { agentId: string; resourceId: string | undefined },
  policy: AccessPolicy | undefined,
  run: RunAccess,
  at: string,
  counted = true,
): { ok: true; record: DecisionRecord } | { ok: false; reason: string } {
  if (grant.agentId !== book.agentId || grant.resourceId !== book.resourceId) {
    return { ok: false, reason: `grant ${grant.grantId} is of another agent or resource` };
  }
  if (!policy?.grants?.tools.includes(call.toolName)) {
    return { ok: false, reason: `the agent lets no grant approve calls of ${call.toolName}` };
  }
  const lives = Date.parse(grant.expiresAt) - Date.parse(grant.createdAt);
  if (!(lives <= grantHours(policy) * 3_600_000)) {
    return { ok: false, reason: `grant ${grant.grantId} lives longer than the agent allows` };
  }
  // Counted: the use is one of those it may have.
  const before = counted ? { ...grant, uses: grant.uses - 1 } : grant;
  if (!grantCovers(before, call, at)) return { ok: false, reason: `grant ${grant.grantId} does not cover the call` };
  // The call as it would wait for a person, under the agent's rule for the tool: the creator must pass it.
  const pending: PendingToolCall = {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    fingerprint: call.fingerprint,
    kind: 'approval',
    requiresApproval: true,
    path: [],
    askedAt: at,
    ...callAccess(policy, call.toolName, 'approval'),
  };
  if (pending.quorum) return { ok: false, reason: `${call.toolName} needs ${pending.quorum.required} approvers` };
  const decision = { toolCallId: call.toolCallId, fingerprint: call.fingerprint, principal: grant.createdBy };
  const check = judgeDecision('approve', decision, [pending], new Map(), run);
  if (!check.accepted) return { ok: false, reason: `its creator may not approve the call: ${check.message}` };
  return { ok: true, record: grantRecord(grant, call, at) };
}

/** The part of the agent's policy a book needs to pick a grant for a call of one tool (the run sends it). */
export function grantPolicy(policy: AccessPolicy | undefined, toolName: string): AccessPolicy {
  const tool = policy?.tools?.[toolName];
  return {
    ...(policy?.decide ? { decide: policy.decide } : {}),
    ...(policy?.selfApproval !== undefined ? { selfApproval: policy.selfApproval } : {}),
    ...(policy?.quorum ? { quorum: policy.quorum } : {}),
    ...(policy?.grants ? { grants: policy.grants } : {}),
    ...(tool ? { tools: { [toolName]: tool } } : {}),
  };
}

/** The trail entry of a call a grant approved: its creator's approval, with `grant`, which only the run sets. */
function grantRecord(grant: Grant, call: GrantedCall, at: string): DecisionRecord {
  return {
    decisionId: `grant:${grant.grantId}:${call.toolCallId}`,
    kind: 'approve',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    principal: grant.createdBy,
    by: `grant ${grant.grantId}`,
    reason: grant.reason ?? null,
    at,
    accepted: true,
    grant: { id: grant.grantId },
  };
}

/** The grants policy names tools of the agent, none of which needs a quorum (a grant is one person's word). */
export function checkGrantPolicy(
  where: string,
  policy: Pick<AccessPolicy, 'grants' | 'quorum' | 'tools'>,
  tools: Record<string, unknown>,
): void {
  for (const name of policy.grants?.tools ?? []) {
    if (!Object.hasOwn(tools, name)) throw new TypeError(`${where}.tools: "${name}" is not a tool of the agent`);
    // A grant stands in for an approval the agent asks for: a tool that asks for none has nothing to grant.
    if ((tools[name] as { requireApproval?: boolean }).requireApproval !== true) {
      throw new TypeError(`${where}.tools: "${name}" does not require approval, so no grant would stand for one`);
    }
    const quorum = policy.tools?.[name]?.quorum ?? policy.quorum;
    if (quorum)
      throw new TypeError(`${where}.tools: "${name}" needs ${quorum} approvers; a grant is one person's word`);
  }
}
