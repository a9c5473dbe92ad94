/**
 * The one decision verb: a request names its kind (approve, decline, resume, a client tool's result, a
 * resolution of an uncertain call) and the call, by run or by thread; {@link decisionOf} is the one
 * place a request becomes what the decision signal carries, for the client, the HTTP routes and
 * agentctl alike.
 */
import { rejectUnknownKeys } from '../../options.js';
import type { DecisionKind } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import type { PrincipalInput } from '../identity.js';
import type { Decision } from './decisions.js';

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
