/**
 * The rules a decision must pass, as pure functions. The workflow's ledger applies them to every
 * signal; the client applies the same rules to the run's memo before it signals, so most refusals
 * reach the caller at once, even with no worker running.
 */
import type { Principal } from '../schemas/access.js';
import type {
  DecisionKind,
  DecisionRecord,
  DecisionSignal,
  PendingToolCall,
  RefusalType,
} from '../schemas/decisions.js';
import { safeParse, truncate, zodFromJsonSchema, type JsonValue } from '../schemas/json.js';
import { canDecide } from './access.js';

export type DecisionCheck =
  | { accepted: true; call: PendingToolCall }
  | { accepted: false; type: RefusalType; message: string; call?: PendingToolCall };

const kindWord: Record<DecisionKind, string> = {
  approve: 'approve',
  decline: 'decline',
  resume: 'resume',
  result: 'a tool result',
  resolve: 'a resolution',
};
const waitsFor: Record<PendingToolCall['kind'], string> = {
  approval: 'approve or decline',
  suspend: 'resume',
  client: 'a tool result',
  uncertain: 'a resolution (retry, skip or fail)',
};

/** The kind of wait each kind of decision ends. */
const ends: Record<DecisionKind, PendingToolCall['kind']> = {
  approve: 'approval',
  decline: 'approval',
  resume: 'suspend',
  result: 'client',
  resolve: 'uncertain',
};

function fits(kind: DecisionKind, call: PendingToolCall): boolean {
  return ends[kind] === call.kind;
}

function describeCall(call: PendingToolCall): string {
  return `${call.toolName} ${call.toolCallId}`;
}

function waitsLine(call: PendingToolCall): string {
  return `${describeCall(call)} waits for ${waitsFor[call.kind]}`;
}

function pendingList(pending: PendingToolCall[]): string {
  return pending.length ? pending.map(describeCall).join(', ') : 'none';
}

/**
 * Checks a decision against the calls the run waits on.
 * @param decided earlier accepted decisions by tool-call id, to tell "already decided" from "unknown"
 */
export function checkDecision(
  kind: DecisionKind,
  decision: Pick<DecisionSignal, 'toolCallId' | 'fingerprint'>,
  pending: PendingToolCall[],
  decided: ReadonlyMap<string, DecisionRecord>,
): DecisionCheck {
  let call: PendingToolCall | undefined;
  if (decision.toolCallId) {
    call = pending.find((c) => c.toolCallId === decision.toolCallId);
    if (!call) {
      const earlier = decided.get(decision.toolCallId);
      if (earlier) {
        return {
          accepted: false,
          type: 'AlreadyDecided',
          message:
            `tool call ${decision.toolCallId} was already decided ` +
            `(${earlier.kind} by ${earlier.by ?? 'unknown'} at ${earlier.at}); a decision is used once`,
        };
      }
      return {
        accepted: false,
        type: 'UnknownToolCall',
        message: `the run waits on no tool call ${decision.toolCallId}; pending: ${pendingList(pending)}`,
      };
    }
  } else {
    const fitting = pending.filter((c) => fits(kind, c));
    call = fitting[fitting.length - 1];
    if (!call) {
      if (pending.length === 0)
        return { accepted: false, type: 'NothingPending', message: 'the run waits on no tool call' };
      return {
        accepted: false,
        type: 'WrongPauseKind',
        message: `no pending call takes ${kindWord[kind]}: ${pending.map(waitsLine).join(', ')}`,
      };
    }
  }
  if (!fits(kind, call)) {
    return {
      accepted: false,
      type: 'WrongPauseKind',
      call,
      message:
        `tool call ${call.toolCallId} (${call.toolName}) waits for ${waitsFor[call.kind]}, ` + `not ${kindWord[kind]}`,
    };
  }
  if (decision.fingerprint !== undefined && decision.fingerprint !== call.fingerprint) {
    return {
      accepted: false,
      type: 'FingerprintMismatch',
      call,
      message:
        `fingerprint ${decision.fingerprint} does not match tool call ${call.toolCallId} ` +
        `(${call.toolName} ${JSON.stringify(call.args)}, fingerprint ${call.fingerprint}); ` +
        'the call you decided on is not the one waiting',
    };
  }
  return { accepted: true, call };
}

/** The run a decision is about, as the access rules need it: its tenant and who started it. */
export interface RunAccess {
  resourceId: string | undefined;
  startedBy: Principal | undefined;
}

/**
 * Checks a decision the whole way: the call it is about ({@link checkDecision}), who decides (the
 * call's rule, the tenant, self-approval), and changed arguments against the tool's input schema.
 */
export function judgeDecision(
  kind: DecisionKind,
  decision: Pick<DecisionSignal, 'toolCallId' | 'fingerprint' | 'principal' | 'args' | 'resolution'>,
  pending: PendingToolCall[],
  decided: ReadonlyMap<string, DecisionRecord>,
  run: RunAccess,
): DecisionCheck {
  const check = checkDecision(kind, decision, pending, decided);
  if (!check.accepted) return check;
  const { call } = check;
  const access = canDecide(call, run, decision.principal);
  if (!access.allowed) return { accepted: false, type: access.type, message: access.message, call };
  if (kind === 'resolve' && !decision.resolution) {
    return { accepted: false, type: 'InvalidDecision', call, message: 'a resolution is retry, skip or fail' };
  }
  if (decision.args === undefined) return check;
  if (kind !== 'approve') {
    return { accepted: false, type: 'InvalidDecision', call, message: `only an approval can change the arguments` };
  }
  if (!call.inputSchema) {
    const message = `tool call ${call.toolCallId} (${call.toolName}) has no input schema for new arguments`;
    return { accepted: false, type: 'InvalidArguments', call, message };
  }
  const parsed = safeParse(zodFromJsonSchema(call.inputSchema), decision.args);
  if (parsed.success) return check;
  return {
    accepted: false,
    type: 'InvalidArguments',
    call,
    message:
      `the changed arguments ${truncate(JSON.stringify(decision.args), 200)} do not fit the input schema of ` +
      `tool call ${call.toolCallId} (${call.toolName}): ${parsed.error}`,
  };
}

/** The trail entry for a decision; `approved` is set for an approval with changed arguments. */
export function decisionRecord(
  kind: DecisionKind,
  decision: DecisionSignal,
  at: string,
  check: DecisionCheck,
  approved?: { args: JsonValue; fingerprint: string },
): DecisionRecord {
  const call = check.call;
  return {
    decisionId: decision.decisionId,
    kind,
    toolCallId: call?.toolCallId ?? decision.toolCallId ?? null,
    toolName: call?.toolName ?? null,
    ...(decision.principal ? { principal: decision.principal } : {}),
    by: decision.by ?? null,
    reason: decision.reason ?? null,
    at,
    accepted: check.accepted,
    ...(check.accepted ? {} : { refusal: { type: check.type, message: truncate(check.message, MAX_REFUSAL_MESSAGE) } }),
    ...(check.accepted && approved ? { approved } : {}),
  };
}

/** Refusal messages are kept in the memo; a huge bad payload must not make them huge. */
const MAX_REFUSAL_MESSAGE = 1000;

/** The most recent pending call (the one a decision without a tool-call id is about, kinds aside). */
export function mostRecentPending(pending: PendingToolCall[]): PendingToolCall | undefined {
  return pending[pending.length - 1];
}

/** Who made a decision, for people and the model: the principal, else the free-text note. */
export function decidedBy(record: Pick<DecisionRecord, 'principal' | 'by'>): string | null {
  return record.principal?.name ?? record.principal?.id ?? record.by;
}

/** What a declined call tells the model. */
export function declineMessage(toolName: string, by: string | null, reason: string | null): string {
  const who = by ? ` by ${by}` : '';
  const why = reason ? `: ${reason}` : '';
  return `The call of tool "${toolName}" was declined${who}${why}. It did not run.`;
}
