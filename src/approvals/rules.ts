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
import { readJsonSchema, safeParse, truncate, type JsonValue } from '../schemas/json.js';
import { checkWorkProblem } from '../schemas/schema-cost.js';
import { clip } from '../schemas/limits.js';
import { MODEL_STEP_TOOL } from '../schemas/model-step.js';
import { canDecide, tenantCheck } from './access.js';
import { decidedBy } from './decision-messages.js';
import { quorumProblem } from './quorum.js';

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
    const found = callById(pending, decision.toolCallId);
    if (Array.isArray(found)) {
      return {
        accepted: false,
        type: 'UnknownToolCall',
        message:
          `${found.length} calls wait beneath the delegation ${clip(decision.toolCallId)}; ` +
          `name one by its own id: ${pendingList(found)}`,
      };
    }
    call = found;
    if (!call) {
      const earlier = decided.get(decision.toolCallId);
      if (earlier) return alreadyDecided(earlier, `tool call ${clip(decision.toolCallId)}`);
      return {
        accepted: false,
        type: 'UnknownToolCall',
        message: `the run waits on no tool call ${clip(decision.toolCallId)}; pending: ${pendingList(pending)}`,
      };
    }
  } else {
    const fitting = pending.filter((c) => fits(kind, c));
    call = fitting[fitting.length - 1];
    if (!call) {
      // One of two deciders racing for the same call ("the latest") must hear that it was decided.
      const last = [...decided.values()].at(-1);
      if (pending.length === 0 && last) return alreadyDecided(last, 'the run waits on no tool call; its last one');
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
      // Neither the call's arguments nor its fingerprint: the caller reads the call again to see them,
      // through whatever shows it to them (a display transform may hide arguments).
      message:
        `fingerprint ${clip(decision.fingerprint)} does not match tool call ${call.toolCallId} (${call.toolName}): ` +
        'the call you decided on is not the one waiting; read the call again and decide on what it shows',
    };
  }
  // A preview binds only an approver who names what they saw: an approval of it that names nothing is no approval.
  if (kind === 'approve' && call.preview && decision.fingerprint === undefined) {
    return {
      accepted: false,
      type: 'FingerprintMismatch',
      call,
      message:
        `tool call ${call.toolCallId} (${call.toolName}) is approved on its preview: send the fingerprint of the ` +
        'call as you were shown it (with its preview), so that the approval holds for that preview only',
    };
  }
  return { accepted: true, call };
}

/**
 * The pending call a decision names: by its own id, or (Mastra's form) by the id of the delegation it
 * waits beneath (`call-0` for `call-0/call-1-0`) when exactly one call waits there; several are returned
 * as a list, for the refusal to name.
 */
export function callById(
  pending: PendingToolCall[],
  toolCallId: string,
): PendingToolCall | PendingToolCall[] | undefined {
  const own = pending.find((c) => c.toolCallId === toolCallId);
  if (own) return own;
  const beneath = pending.filter((c) => c.toolCallId.startsWith(`${toolCallId}/`));
  return beneath.length > 1 ? beneath : beneath[0];
}

/**
 * Mastra decides an approval with `resume({ approved: true | false })`. Resume data of that shape, for
 * a call (the one named, else the most recent) that waits for approval, is an approval or a decline
 * (with the data's `reason`, if any); anything else stays a resume. Mastra's tools may also receive
 * further keys of that data; ours cannot (an approval carries no data to the tool), so such data is
 * refused with the reason rather than dropped.
 */
export function resumeAsApproval<T extends { toolCallId?: string; resumeData?: JsonValue; reason?: string }>(
  kind: DecisionKind,
  target: T,
  pending: PendingToolCall[],
): { kind: DecisionKind; target: T } | { refusal: string } {
  const data = target.resumeData;
  if (kind !== 'resume' || typeof data !== 'object' || data === null || Array.isArray(data)) return { kind, target };
  if (typeof data.approved !== 'boolean') return { kind, target };
  const found = target.toolCallId ? callById(pending, target.toolCallId) : mostRecentPending(pending);
  if (!found || Array.isArray(found) || found.kind !== 'approval') return { kind, target };
  const extra = Object.keys(data).filter((k) => k !== 'approved' && k !== 'reason');
  if (extra.length > 0) {
    return {
      refusal:
        `resume({ approved }) decides the approval of ${found.toolCallId} (${found.toolName}), but an approval ` +
        `carries no data to the tool, and this one has ${extra.map((k) => `"${clip(k)}"`).join(', ')}; ` +
        'send { approved } (and a reason) alone, or approve with changed arguments (`args`) that fit its input schema',
    };
  }
  const { resumeData: _data, ...rest } = target;
  if (data.approved) return { kind: 'approve', target: rest as T };
  const reason = typeof data.reason === 'string' ? data.reason : target.reason;
  return { kind: 'decline', target: { ...rest, ...(reason !== undefined ? { reason } : {}) } as T };
}

function alreadyDecided(earlier: DecisionRecord, what: string): DecisionCheck {
  const how =
    earlier.kind === 'expire'
      ? `its deadline passed at ${earlier.at}: it expired`
      : `${earlier.kind} by ${decidedBy(earlier) ?? 'no principal'} at ${earlier.at}`;
  const call = earlier.toolCallId && !what.includes(earlier.toolCallId) ? `, ${earlier.toolCallId},` : '';
  return {
    accepted: false,
    type: 'AlreadyDecided',
    message: `${what}${call} was already decided (${how}); a decision is used once`,
  };
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
  /** Whether the run takes the `bounded-schema-checks` patch; the client always does. */
  boundedChecks: () => boolean = () => true,
): DecisionCheck {
  // Another tenant learns nothing about the run: this comes before anything names a call.
  const tenant = tenantCheck(decision.principal, run.resourceId);
  if (!tenant.allowed) return { accepted: false, type: tenant.type, message: tenant.message };
  const check = checkDecision(kind, decision, pending, decided);
  if (!check.accepted) return check;
  const { call } = check;
  const access = canDecide(call, run, decision.principal);
  if (!access.allowed) return { accepted: false, type: access.type, message: access.message, call };
  if (kind === 'resolve' && !decision.resolution) {
    return { accepted: false, type: 'InvalidDecision', call, message: 'a resolution is retry, skip or fail' };
  }
  // Nothing stands in for a model's answer: its step is tried again, or the run fails.
  if (kind === 'resolve' && call.toolName === MODEL_STEP_TOOL && decision.resolution === 'skip') {
    const message = `${call.toolCallId} is a model step that waits: resolve it with retry or fail, not skip`;
    return { accepted: false, type: 'InvalidDecision', call, message };
  }
  const quorum = kind === 'approve' ? quorumProblem(call, decision) : undefined;
  if (quorum) return { ...quorum, call };
  if (decision.args === undefined) return check;
  if (kind !== 'approve') {
    return { accepted: false, type: 'InvalidDecision', call, message: `only an approval can change the arguments` };
  }
  if (!call.inputSchema) {
    const message = `tool call ${call.toolCallId} (${call.toolName}) has no input schema for new arguments`;
    return { accepted: false, type: 'InvalidArguments', call, message };
  }
  // A check that would hold the workflow task past its deadline (a schema whose references fan out,
  // against many values) fails the task again at every retry: it is refused instead.
  const costly = checkWorkProblem(call.inputSchema, decision.args);
  if (costly !== undefined && boundedChecks()) {
    const what = `the changed arguments of tool call ${call.toolCallId} (${call.toolName})`;
    return { accepted: false, type: 'InvalidArguments', call, message: `${what} are not checked: ${costly}` };
  }
  // A schema zod cannot rebuild here (an MCP server's may use any keyword) is checked where the tool
  // runs, as the model's own arguments are: by the worker against the tool's schema, or by the server.
  // An outside tool's schema comes without its patterns (see schemas/schema-patterns.ts).
  const read = readJsonSchema(call.inputSchema);
  if ('unreadable' in read) return check;
  const parsed = safeParse(read.schema, decision.args);
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

/** The most recent pending call (the one a decision without a tool-call id is about, kinds aside). */
export function mostRecentPending(pending: PendingToolCall[]): PendingToolCall | undefined {
  return pending[pending.length - 1];
}
