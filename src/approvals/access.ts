/**
 * The access rules, as pure functions: whether a principal may start an agent's runs, read a run,
 * or decide a tool call. The server and the client check them before they act; the workflow checks
 * decisions again, since anyone with signal rights in the namespace can send one.
 */
import { ALL_TENANTS, type AccessPolicy, type AccessRule, type Principal } from '../schemas/access.js';
import type { PendingToolCall } from '../schemas/decisions.js';

export type AccessCheck = { allowed: true } | { allowed: false; type: 'NotAllowed' | 'SelfApproval'; message: string };

const ALLOWED: AccessCheck = { allowed: true };

/** How a pending call may be decided: the owning run's rule for its tool, resolved when it starts to wait. */
export type CallAccess = Pick<PendingToolCall, 'decide' | 'selfApproval' | 'quorum'>;

/** Whether the principal is let in by the rule. An unset rule lets anyone in, a principal that is not known too. */
export function admits(rule: AccessRule | undefined, principal: Principal | undefined): boolean {
  if (rule === undefined) return true;
  if (!principal) return false;
  return rule.some(
    (entry) =>
      entry === '*' ||
      entry === `user:${principal.id}` ||
      (entry.startsWith('role:') && (principal.roles ?? []).includes(entry.slice(5))) ||
      (entry.startsWith('group:') && (principal.groups ?? []).includes(entry.slice(6))),
  );
}

function who(principal: Principal | undefined): string {
  return principal ? `"${principal.id}"` : 'a caller who did not say who they are';
}

function denied(message: string): AccessCheck {
  return { allowed: false, type: 'NotAllowed', message };
}

/**
 * The one tenant a principal works within, or `undefined` when it is confined to none: an all-tenants
 * operator ({@link ALL_TENANTS}), or a principal without a tenant (an operator of the library or
 * `agentctl`, whose Temporal access spans the namespace; any principal of an HTTP server without
 * tenants). An HTTP server with tenants lets no principal without one through.
 */
export function confinedTenant(principal: Principal | undefined): string | undefined {
  return principal?.tenant === ALL_TENANTS ? undefined : principal?.tenant;
}

/** A principal confined to a tenant sees only the runs of that tenant (their `resourceId`). */
export function tenantCheck(principal: Principal | undefined, resourceId: string | undefined): AccessCheck {
  const tenant = confinedTenant(principal);
  if (tenant === undefined || tenant === resourceId) return ALLOWED;
  return denied(`${who(principal)} of tenant "${tenant}" may not act on a run of another tenant`);
}

export function canStart(
  policy: AccessPolicy | undefined,
  agentId: string,
  principal: Principal | undefined,
): AccessCheck {
  if (admits(policy?.start, principal)) return ALLOWED;
  return denied(`${who(principal)} may not start runs of agent "${agentId}" (allowed: ${policy?.start?.join(', ')})`);
}

/**
 * Who may read a run of the agent: its readers, and those who may decide its calls (they must see
 * what they decide; `escalations` too: those its approval deadlines escalate to). Unset (anyone)
 * when the agent leaves reading open, or lets anyone decide.
 */
export function readers(policy: AccessPolicy | undefined, escalations: AccessRule = []): AccessRule | undefined {
  const { read, decide } = policy ?? {};
  if (!read || !decide) return undefined;
  const toolDeciders = Object.values(policy?.tools ?? {}).flatMap((tool) => tool.decide ?? decide);
  // Approvers a deadline escalates to decide too, so they read the run.
  return [...new Set([...read, ...decide, ...toolDeciders, ...escalations])];
}

export function canRead(
  read: AccessRule | undefined,
  run: { runId: string; resourceId: string | undefined; startedBy: Principal | undefined },
  principal: Principal | undefined,
): AccessCheck {
  const tenant = tenantCheck(principal, run.resourceId);
  if (!tenant.allowed) return tenant;
  if (principal && run.startedBy?.id === principal.id) return ALLOWED;
  if (admits(read, principal)) return ALLOWED;
  return denied(`${who(principal)} may not read run "${run.runId}" (allowed: ${read?.join(', ')}, and its starter)`);
}

/** The rule for one tool's calls, as the owning run resolves it when the call starts to wait. */
export function callAccess(
  policy: AccessPolicy | undefined,
  toolName: string,
  kind: PendingToolCall['kind'],
): CallAccess {
  const tool = policy?.tools?.[toolName];
  const decide = tool?.decide ?? policy?.decide;
  // An approval is a second pair of eyes: by default the run's starter may not give it, nor retry or
  // skip a side effect that may have happened.
  const selfApproval = tool?.selfApproval ?? policy?.selfApproval ?? (kind !== 'approval' && kind !== 'uncertain');
  // Several approvers for an approval only: a resume or a result is one person's answer.
  const required = kind === 'approval' ? (tool?.quorum ?? policy?.quorum) : undefined;
  return { ...(decide ? { decide } : {}), selfApproval, ...(required ? { quorum: { required, approvals: [] } } : {}) };
}

/**
 * Whether the principal may decide this call of a run. The starter of the run may decide only where
 * the call's rule allows self-approval; an unknown starter or decider cannot be told apart, and is not
 * refused as the same person.
 */
export function canDecide(
  call: Pick<PendingToolCall, 'toolCallId' | 'toolName' | 'decide' | 'selfApproval'>,
  run: { resourceId: string | undefined; startedBy: Principal | undefined },
  principal: Principal | undefined,
): AccessCheck {
  const tenant = tenantCheck(principal, run.resourceId);
  if (!tenant.allowed) return tenant;
  if (!admits(call.decide, principal)) {
    return denied(
      `${who(principal)} may not decide tool call ${call.toolCallId} (${call.toolName}); ` +
        `allowed: ${call.decide?.join(', ') || 'nobody'}`,
    );
  }
  if (call.selfApproval === false && principal && run.startedBy?.id === principal.id) {
    return {
      allowed: false,
      type: 'SelfApproval',
      message:
        `"${principal.id}" started this run and may not decide its call ${call.toolCallId} (${call.toolName}) ` +
        'too; someone else must',
    };
  }
  return ALLOWED;
}
