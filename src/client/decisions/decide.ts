/**
 * The one decision verb: a request names its kind (approve, decline, resume, a client tool's result, a
 * resolution of an uncertain call) and the call, by run or by thread; {@link decisionOf} is the one
 * place a request becomes what the decision signal carries, for the client, the HTTP routes and
 * agentctl alike; {@link decide} carries it out for `AgentClient.decide`.
 */
import { decisionRefused } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import type { DecisionKind } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RunResult } from '../../schemas/run-result.js';
import type { ClientActor, ClientContext } from '../context.js';
import { principalOf, type PrincipalInput } from '../identity.js';
import { DEFAULT_STREAM_GRACE_MS } from '../runs/run-input.js';
import { listSuspendedRuns } from '../runs/runs.js';
import { streamOffset } from '../stream/read-stream.js';
import { RunStream } from '../stream/run-stream.js';
import { readableRun, sendDecision, type Decision, type SentDecision } from './decisions.js';
import { pickThreadCall } from './thread-decisions.js';
import { decisionTaken, nextResult } from './waiting.js';

/** Which call a decision is about: on a run (the run's latest call of the kind, unless `toolCallId` names one). */
export interface RunCall {
  runId: string;
  /** Default: the run's most recent pending call of the fitting kind. */
  toolCallId?: string;
  /** When given, it must equal the pending call's fingerprint. */
  fingerprint?: string;
}

/**
 * Or on a thread (Mastra's `sendToolApproval`): the one call its runs wait on for approval (`toolCallId`
 * or `fingerprint` names one where several do); approvals and declines only.
 */
export interface ThreadCall {
  threadId: string;
  resourceId?: string;
  /** Only runs of this agent. */
  agentId?: string;
  toolCallId?: string;
  fingerprint?: string;
}

/** Who decides, and a note for the trail. */
export interface DecidedBy {
  /** Who decides (default: the client's principal): the trail records it, and the agent's policy is checked. */
  principal?: PrincipalInput;
  /** A free-text note for the trail (a ticket, who the caller says they are); not an identity. */
  by?: string;
}

/** A decision on a waiting tool call, of any kind: what `AgentClient.decide` takes. */
export type DecisionRequest = DecidedBy &
  (
    | ((RunCall | ThreadCall) & { kind: 'approve'; args?: JsonValue })
    | ((RunCall | ThreadCall) & { kind: 'decline'; reason?: string })
    | (RunCall & { kind: 'resume'; resumeData: JsonValue; reason?: string })
    | (RunCall & { kind: 'result'; result: JsonValue })
    | (RunCall & { kind: 'resolve'; action: 'retry' | 'skip' | 'fail'; output?: JsonValue; reason?: string })
  );

/** What `decide` returns: the run's stream from there (default), its next result, or the decision as sent. */
export type DecideThen = 'stream' | 'result' | 'sent';

const TARGET = ['kind', 'runId', 'toolCallId', 'fingerprint', 'principal', 'by'];
const THREAD_TARGET = ['kind', 'threadId', 'resourceId', 'agentId', 'toolCallId', 'fingerprint', 'principal', 'by'];
const KEYS: Record<DecisionKind, string[]> = {
  approve: [...TARGET, 'args'],
  decline: [...TARGET, 'reason'],
  resume: [...TARGET, 'resumeData', 'reason'],
  result: [...TARGET, 'result'],
  resolve: [...TARGET, 'action', 'output', 'reason'],
};
const KINDS = Object.keys(KEYS) as DecisionKind[];

/**
 * A request as the decision the client checks and signals: its kind, and the fields of that kind (a
 * skipped uncertain call's output as its `result`). Unknown keys are refused by name, never dropped, and
 * a request with no kind, or a kind with a field it does not take, is refused.
 */
export function decisionOf(request: DecisionRequest): { kind: DecisionKind; decision: Decision; thread?: ThreadCall } {
  const kind = request.kind as DecisionKind;
  if (!KINDS.includes(kind)) {
    throw new TypeError(`decide: kind ${JSON.stringify(request.kind)} is none of ${KINDS.join(', ')}`);
  }
  const given = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const onThread = 'threadId' in given;
  if (onThread && kind !== 'approve' && kind !== 'decline') {
    throw new TypeError(`decide: a ${kind} names its run (runId); only approvals and declines may name a thread`);
  }
  const known = onThread ? [...THREAD_TARGET, ...KEYS[kind].slice(TARGET.length)] : KEYS[kind];
  rejectUnknownKeys(`decide (${kind})`, given, known);
  const { kind: _kind, action, output, threadId, resourceId, agentId, ...fields } = given as Record<string, unknown>;
  const decision = {
    ...fields,
    ...(kind === 'resolve' ? { resolution: action, ...(action === 'skip' ? { result: output ?? null } : {}) } : {}),
  } as Decision;
  if (!onThread) return { kind, decision };
  const thread = {
    threadId: threadId as string,
    ...(resourceId !== undefined ? { resourceId: resourceId as string } : {}),
    ...(agentId !== undefined ? { agentId: agentId as string } : {}),
    ...(given.toolCallId !== undefined ? { toolCallId: given.toolCallId as string } : {}),
    ...(given.fingerprint !== undefined ? { fingerprint: given.fingerprint as string } : {}),
  };
  return { kind, decision, thread };
}

/**
 * Checks the decision and sends it, then follows the run as `then` asks: its stream from the decision
 * on, its next result, or nothing more (the decision as sent).
 */
export async function decide(
  ctx: ClientContext,
  actor: ClientActor,
  request: DecisionRequest,
  then: DecideThen,
): Promise<RunStream | RunResult | SentDecision> {
  const { kind, decision: given, thread } = decisionOf(request);
  const decision = thread ? await onThread(ctx, given, thread) : given;
  if (then === 'sent') return send(ctx, actor, kind, decision);
  if (then === 'result') {
    const sent = await send(ctx, actor, kind, decision);
    return nextResult(ctx, decision.runId, { decisionId: sent.decisionId });
  }
  // A missing run (or another tenant's) is RunNotFoundError; nothing is read of one the caller may not read.
  const principal = principalOf(decision.principal ?? actor.principal, ctx.temporal.options.identity);
  await readableRun(ctx, decision.runId, principal);
  const offset = await streamOffset(ctx, decision.runId);
  // The run may finish right after this decision: it stays readable for the stream's grace period.
  const sent = await send(ctx, actor, kind, { ...decision, streamGraceMs: DEFAULT_STREAM_GRACE_MS });
  // A decider who lost a race hears so (AlreadyDecided), not the winner's stream.
  await decisionTaken(ctx, decision.runId, sent.decisionId);
  return new RunStream(ctx, decision.runId, offset);
}

/** Checks a decision and sends it, in the name of its principal (else the client's). */
async function send(
  ctx: ClientContext,
  actor: ClientActor,
  kind: DecisionKind,
  decision: Decision,
): Promise<SentDecision> {
  const principal = principalOf(decision.principal ?? actor.principal, ctx.temporal.options.identity);
  return sendDecision(ctx, kind, { ...decision, principal }, actor.signingKey);
}

/** The call a thread's runs wait on for approval, found through visibility, as a decision on its run. */
async function onThread(ctx: ClientContext, decision: Decision, thread: ThreadCall): Promise<Decision> {
  const { threadId, resourceId, agentId, toolCallId, fingerprint } = thread;
  const runs = await listSuspendedRuns(ctx, { threadId, resourceId, agentId });
  const picked = pickThreadCall(threadId, runs, { toolCallId, fingerprint });
  if ('refusal' in picked) throw decisionRefused(`thread:${threadId}`, picked.refusal.type, picked.refusal.message);
  return { ...decision, runId: picked.runId, toolCallId: picked.call.toolCallId };
}
