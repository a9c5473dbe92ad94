/**
 * Deciding a waiting tool call from any process: the decision is checked against the run as
 * Temporal shows it (memo; no worker needed) and sent as a signal, which the server accepts while no
 * worker runs. The workflow checks it again and records its verdict in the run's decision trail.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { canRead, tenantCheck } from '../../approvals/access.js';
import { judgeDecision, resumeAsApproval } from '../../approvals/rules.js';
import {
  AccessDeniedError,
  decisionRefused,
  RequestRefusedError,
  RunNotFoundError,
  RunNotWaitingError,
} from '../../errors.js';
import type { Principal } from '../../schemas/access.js';
import {
  DecisionSignalSchema,
  type DecisionKind,
  type DecisionSignal,
  type PendingToolCall,
} from '../../schemas/decisions.js';
import { oneLine, zodFromJsonSchema, type JsonValue } from '../../schemas/json.js';
import { clip } from '../../schemas/limits.js';
import { rejectUnknownKeys } from '../../options.js';
import { checkInput } from '../checks.js';
import { decisionSignals } from '../../protocol/run-messages.js';
import type { ClientContext } from '../context.js';
import type { PrincipalInput } from '../identity.js';
import { getRun } from '../runs/runs.js';
import { signDecision, type SigningKey } from './signing.js';

/** Which call a decision is about, and who makes it. */
export interface DecisionTarget {
  runId: string;
  /** Default: the most recent pending call of the fitting kind. */
  toolCallId?: string;
  /** When given, it must equal the pending call's fingerprint. */
  fingerprint?: string;
  /** Who decides (default: the client's principal): the trail records it, and the agent's policy is checked. */
  principal?: PrincipalInput;
  /** A free-text note for the trail (a ticket, who the caller says they are); not an identity. */
  by?: string;
}

/** A decision of any kind: the target, and what the kind takes. */
export interface Decision extends DecisionTarget {
  /** Why (declines; the model sees it). */
  reason?: string;
  /** Data for a suspended call's `resumeSchema` (resume). */
  resumeData?: JsonValue;
  /** A client tool's result (result). */
  result?: JsonValue;
  /** Approve with changed arguments (approve): they must fit the tool's input schema; the model is told. */
  args?: JsonValue;
  /** How an uncertain call is resolved (resolve); `result` is the output of a skipped one. */
  resolution?: 'retry' | 'skip' | 'fail';
  /** Keep the run readable this long after it finishes, for a caller that streams it from here. */
  streamGraceMs?: number;
}

const TARGET_KEYS = ['runId', 'toolCallId', 'fingerprint', 'principal', 'by', 'streamGraceMs'] as const;

/**
 * The keys a decision of each kind takes. Any other is refused by name, never dropped: a misspelt
 * `toolCallID` would otherwise decide the run's latest call, and `resumeData` on an approval would be
 * lost while the tool ran without it.
 */
export const DECISION_KEYS: Record<DecisionKind, readonly string[]> = {
  approve: [...TARGET_KEYS, 'args'],
  decline: [...TARGET_KEYS, 'reason'],
  // Mastra's `resume({ approved, reason })` decides an approval (see resumeAsApproval).
  resume: [...TARGET_KEYS, 'resumeData', 'reason'],
  result: [...TARGET_KEYS, 'result'],
  resolve: [...TARGET_KEYS, 'resolution', 'result', 'reason'],
};

/** A decision as sent: its id (to find it in the trail) and the call it is about. */
export interface SentDecision {
  decisionId: string;
  runId: string;
  kind: DecisionKind;
  call: PendingToolCall;
}

/**
 * Checks a decision against the run and sends it as a signal, without waiting for the run to go on.
 * A refusal throws a `DecisionRefusedError` subclass and sends nothing: a refusal decided here never
 * writes into the run. Whoever may not read the run learns nothing about it first: another tenant's run
 * is not found, one the caller may not read is refused before anything about its calls is said.
 */
export async function sendDecision(
  ctx: ClientContext,
  kind: DecisionKind,
  given: DecisionInput,
  signingKey?: SigningKey,
): Promise<SentDecision> {
  const checked = await checkedDecision(ctx, kind, given, signingKey);
  kind = checked.kind;
  const { call, ...target } = checked.target;
  // A signed decision names the call and its fingerprint as the signer saw them.
  const fingerprint = target.fingerprint ?? (signingKey ? call.fingerprint : undefined);
  const unsigned: DecisionSignal = {
    decisionId: randomUUID(),
    ...signalFields({ ...target, toolCallId: call.toolCallId, fingerprint }, kind),
    sentAt: new Date().toISOString(),
  };
  const decision = signingKey
    ? signDecision(signingKey, kind, unsigned, { runId: target.runId, toolCallId: call.toolCallId })
    : unsigned;
  try {
    await ctx.temporal.workflow.getHandle(target.runId).signal(decisionSignals[kind], decision);
  } catch (err) {
    // The run closed between the check and the signal.
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    throw new RunNotWaitingError(target.runId, (await getRun(ctx, target.runId)).workflowStatus.toLowerCase());
  }
  return { decisionId: decision.decisionId, runId: target.runId, kind, call };
}

type DecisionInput = Omit<Decision, 'principal'> & { principal: Principal | undefined };
type CheckedTarget = DecisionInput & { call: PendingToolCall };

/**
 * Every check a decision passes before it is sent, against the run as Temporal shows it: its form, who
 * may read the run, whether it waits, the call and its rules, a deadline, resume data. Throws the
 * refusal; sends nothing. A batch's dry run asks this for each call, so it refuses what a decision would.
 */
export async function checkedDecision(
  ctx: ClientContext,
  kind: DecisionKind,
  target: DecisionInput,
  signingKey?: SigningKey,
): Promise<{ kind: DecisionKind; target: CheckedTarget }> {
  // A key given as undefined carries nothing; any other this kind does not take is refused by name.
  const given = Object.fromEntries(Object.entries(target).filter(([, value]) => value !== undefined));
  rejectUnknownKeys(`${kind} decision`, given, DECISION_KEYS[kind]);
  // What the run would refuse for its form or size is refused here, before anything is sent.
  checkInput('decision', DecisionSignalSchema, { ...signalFields(target, 'all'), decisionId: 'check' });
  const info = await readableRun(ctx, target.runId, target.principal);
  // A finished run may stay open a while (a stream's grace period); it takes no decisions either.
  if (info.closeTime || info.status === 'completed' || info.status === 'failed') {
    throw new RunNotWaitingError(target.runId, info.closeTime ? info.workflowStatus.toLowerCase() : info.status);
  }
  const decided = new Map(info.decisions.filter((d) => d.accepted && d.toolCallId).map((d) => [d.toolCallId!, d]));
  const run = { resourceId: info.resourceId, startedBy: info.startedBy };
  // Mastra's `resume({ approved })` on an approval is that approval (or decline).
  const asApproval = resumeAsApproval(kind, target, info.pendingToolCalls);
  if ('refusal' in asApproval) throw decisionRefused(target.runId, 'WrongPauseKind', asApproval.refusal);
  ({ kind, target } = asApproval);
  const check = judgeDecision(kind, target, info.pendingToolCalls, decided, run);
  if (!check.accepted) throw decisionRefused(target.runId, check.type, check.message);
  const { call } = check;
  if (call.expiresAt && Date.parse(call.expiresAt) <= Date.now()) {
    const message = `tool call ${call.toolCallId} (${call.toolName}) expired at ${call.expiresAt}: it does not run`;
    throw decisionRefused(target.runId, 'AlreadyDecided', message);
  }
  if (kind === 'resume') checkResumeData(target.runId, call, target.resumeData);
  if (signingKey && !target.principal) {
    throw new RequestRefusedError('IdentityRequired', 'a signed decision names who decides: give a principal');
  }
  return { kind, target: { ...target, call } };
}

/**
 * The run, when the principal may read it. Another tenant's run is not found (the same error as a
 * run that does not exist); a run the agent's read rule keeps from the principal is refused, naming
 * nothing of it.
 */
export async function readableRun(ctx: ClientContext, runId: string, principal: Principal | undefined) {
  const info = await getRun(ctx, runId);
  if (!tenantCheck(principal, info.resourceId).allowed) throw new RunNotFoundError(runId, ctx.namespace);
  if (!canRead(info.read, info, principal).allowed) {
    throw new AccessDeniedError(`${principal ? `"${principal.id}"` : 'an unknown caller'} may not read run "${runId}"`);
  }
  return info;
}

/**
 * The fields of a decision signal that the target gives. `carries` says which data goes with it: the
 * data of its kind, or `all` everything given (to check its form and size before anything is sent).
 */
function signalFields(
  target: Omit<Decision, 'principal' | 'runId'> & { principal: Principal | undefined },
  carries: DecisionKind | 'all',
): Omit<DecisionSignal, 'decisionId'> {
  const { toolCallId, fingerprint, principal, by, reason, streamGraceMs, resumeData, result, args, resolution } =
    target;
  const all = carries === 'all';
  const carriesResult = carries === 'result' || (carries === 'resolve' && resolution === 'skip');
  return {
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    ...(fingerprint !== undefined ? { fingerprint } : {}),
    ...(principal ? { principal } : {}),
    ...(by !== undefined ? { by } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(streamGraceMs !== undefined ? { streamGraceMs } : {}),
    ...(carries === 'resume' || (all && resumeData !== undefined) ? { resumeData: resumeData ?? null } : {}),
    ...(carriesResult || (all && result !== undefined) ? { result: result ?? null } : {}),
    ...(resolution !== undefined ? { resolution } : {}),
    ...(args !== undefined ? { args } : {}),
  };
}

function checkResumeData(runId: string, call: PendingToolCall, data: JsonValue | undefined): void {
  if (!call.resumeSchema) return;
  const parsed = zodFromJsonSchema(call.resumeSchema).safeParse(data);
  if (parsed.success) return;
  throw decisionRefused(
    runId,
    'InvalidResumeData',
    `resume data ${clip(JSON.stringify(data) ?? 'undefined', 200)} does not fit the resumeSchema of tool call ` +
      `${call.toolCallId} (${call.toolName}): ${oneLine(parsed.error.issues, true)}`,
  );
}
/** How an uncertain call is resolved. */
export interface Resolving {
  action: 'retry' | 'skip' | 'fail';
  /** With `skip`: what the tool returned, as the model will see it (default null). */
  output?: JsonValue;
  /** With `fail`: why (the model sees it). */
  reason?: string;
}

export function resolvingDecision({ action, output, ...target }: DecisionTarget & Resolving): Decision {
  return { ...target, resolution: action, ...(action === 'skip' ? { result: output ?? null } : {}) };
}
