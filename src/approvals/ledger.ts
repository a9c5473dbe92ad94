/**
 * The approval ledger of one run: the calls it waits on (its own, and those its sub-agents report),
 * the decisions taken on them, and the decision trail. Pure: it takes events (a call asks, a
 * decision arrives, a sub-agent reports or ends) and returns the effects for the workflow to carry
 * out, in order (see {@link LedgerEffect}). It never touches Temporal, so every rule has a unit test.
 */
import {
  ChildReportSchema,
  DecisionSignalSchema,
  type DecisionKind,
  type DecisionRecord,
  type DecisionSignal,
  type PendingToolCall,
  type RefusalType,
} from '../schemas/decisions.js';
import type { AccessPolicy } from '../schemas/access.js';
import { safeParse, truncate } from '../schemas/json.js';
import { callAccess } from './access.js';
import { toolCallFingerprint } from './fingerprint.js';
import type { LedgerEffect, Resolution } from './ledger-effects.js';
import { decisionRecord, judgeDecision, salvage, type DecisionCheck, type RunAccess } from './rules.js';

/** What a parent knows of one running sub-agent: the calls it waits on, as the parent lists them. */
interface ChildState {
  pending: PendingToolCall[];
  paused: boolean;
  seq: number;
}

/** The part of a pending call the waiting tool call gives; the rest comes from the model's call. */
export type Waiting = Pick<
  PendingToolCall,
  'kind' | 'askedAt' | 'suspendPayload' | 'resumeSchema' | 'inputSchema' | 'display' | 'expiresAt' | 'escalation'
>;

/** A sub-agent's call as its parent lists it: the id qualified by the delegating call, one hop added to the path. */
export function qualify(
  child: { viaToolCallId: string; runId: string; agentId: string },
  call: PendingToolCall,
): PendingToolCall {
  return {
    ...call,
    toolCallId: `${child.viaToolCallId}/${call.toolCallId}`,
    path: [{ runId: child.runId, agentId: child.agentId, viaToolCallId: child.viaToolCallId }, ...call.path],
  };
}

export class ApprovalLedger {
  private readonly own: PendingToolCall[] = [];
  /** Running sub-agents, by the tool call that started them. */
  private readonly children = new Map<string, ChildState>();
  private readonly decisions: DecisionRecord[] = [];
  /** Accepted decisions by tool-call id, to tell "already decided" from "unknown". */
  private readonly decided = new Map<string, DecisionRecord>();
  /** Decisions passed down to a sub-agent, by decision id: the qualified call they are about. */
  private readonly forwarded = new Map<string, PendingToolCall>();
  /** Set once the run has ended; decisions are then refused. */
  private ended: string | undefined;
  /** The agent's access policy, and who started the run in which tenant. */
  private access: AccessPolicy | undefined;
  private run: RunAccess = { resourceId: undefined, startedBy: undefined };

  /**
   * @param runId this run's id: a sub-agent's reports must come from `<runId>::<delegating call>`
   * @param trail the trail a run that continued as new carries over
   */
  constructor(
    private readonly runId: string,
    trail: DecisionRecord[] = [],
  ) {
    this.decisions.push(...trail);
    for (const d of trail) if (d.accepted && d.toolCallId && d.kind !== 'escalate') this.decided.set(d.toolCallId, d);
  }

  /** Every call the run waits on: its own, then its sub-agents' (qualified, with their path). */
  pending(): PendingToolCall[] {
    return [...this.own, ...[...this.children.values()].flatMap((c) => c.pending)];
  }

  /** The whole trail, oldest first. */
  trail(): DecisionRecord[] {
    return [...this.decisions];
  }

  /** The trail entries from the `from`-th on (what a parent has not been sent yet). */
  trailFrom(from: number): DecisionRecord[] {
    return this.decisions.slice(from);
  }

  get trailLength(): number {
    return this.decisions.length;
  }

  /** The verdict on this decision, once the trail has it. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.decisions.find((d) => d.decisionId === decisionId);
  }

  /** The policy decisions are checked against, once the agent's spec is known (before any call waits). */
  govern(access: AccessPolicy | undefined, run: RunAccess): void {
    this.access = access;
    this.run = run;
  }

  /** An own tool call starts to wait on a decision. */
  ask(
    call: Pick<PendingToolCall, 'toolCallId' | 'toolName' | 'args' | 'fingerprint'>,
    waiting: Waiting,
  ): LedgerEffect[] {
    const entry: PendingToolCall = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
      fingerprint: call.fingerprint,
      requiresApproval: waiting.kind === 'approval',
      path: [],
      ...waiting,
      ...callAccess(this.access, call.toolName, waiting.kind),
    };
    this.own.push(entry);
    return [
      { type: 'change' },
      { type: 'waits', call: entry },
      { type: 'notify', notice: { event: 'waiting', call: entry } },
    ];
  }

  /**
   * An own call's approval deadline passed its first period: from now on only the escalation's
   * approvers may decide it. Recorded in the trail; nothing happens to a call decided meanwhile.
   */
  escalate(toolCallId: string, at: string): LedgerEffect[] {
    const index = this.own.findIndex((c) => c.toolCallId === toolCallId && c.kind === 'approval');
    const call = this.own[index];
    if (!call?.escalation || call.escalation.escalated) return [];
    const escalated: PendingToolCall = {
      ...call,
      decide: call.escalation.decide,
      escalation: { ...call.escalation, escalated: true },
    };
    this.own[index] = escalated;
    const record: DecisionRecord = {
      ...this.ownRecord('escalate', call, at),
      reason:
        `no decision since ${call.askedAt}: only ${call.escalation.decide.join(', ')} may decide it now` +
        (call.expiresAt ? `, until ${call.expiresAt}` : ''),
    };
    return [
      ...this.record(record),
      { type: 'change' },
      { type: 'notify', notice: { event: 'escalated', call: escalated, record } },
    ];
  }

  /**
   * An own call's approval deadline passed: it is recorded as expired (not declined), never runs, and
   * takes no decision after. Nothing happens to a call decided meanwhile.
   */
  expire(toolCallId: string, at: string): LedgerEffect[] {
    const call = this.own.find((c) => c.toolCallId === toolCallId && c.kind === 'approval');
    if (!call) return [];
    const record: DecisionRecord = {
      ...this.ownRecord('expire', call, at),
      reason: `nobody decided between ${call.askedAt} and ${call.expiresAt ?? at}`,
    };
    this.decided.set(toolCallId, record);
    this.own.splice(this.own.indexOf(call), 1);
    const resolution: Resolution = { kind: 'expire', decision: { decisionId: record.decisionId }, record };
    return [
      ...this.record(record),
      { type: 'resolve', toolCallId, resolution },
      { type: 'change' },
      { type: 'notify', notice: { event: 'expired', call, record } },
    ];
  }

  /** A trail entry for what the run did itself about one of its calls (no principal decided it). */
  private ownRecord(kind: 'escalate' | 'expire', call: PendingToolCall, at: string): DecisionRecord {
    return {
      decisionId: `${kind}:${call.toolCallId}`,
      kind,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      by: null,
      reason: null,
      at,
      accepted: true,
    };
  }

  /**
   * An approve, decline, resume or result signal: accepted, it resolves the call (here, or in a
   * sub-agent by forwarding it); refused, it is only recorded. A resume is recorded only once the
   * tool has checked the data ({@link resumeChecked}).
   */
  decide(kind: DecisionKind, raw: unknown, at: string): LedgerEffect[] {
    const parsed = safeParse(DecisionSignalSchema, raw);
    if (!parsed.success) {
      const check: DecisionCheck = {
        accepted: false,
        type: 'InvalidDecision',
        message: `the ${kind} signal does not fit its schema (README, "Signals and updates"): ${parsed.error}`,
      };
      return this.record(decisionRecord(kind, salvage(raw), at, check));
    }
    const decision = parsed.data;
    if (this.verdict(decision.decisionId)) {
      const message = `decision ${decision.decisionId} was taken already; a decision is used once`;
      return this.refuse(kind, decision, at, 'AlreadyDecided', message);
    }
    // A call whose decision is on its way down to a sub-agent takes no second one meanwhile.
    const inFlight = new Set([...this.forwarded.values()].map((c) => c.toolCallId));
    const open = this.pending().filter((c) => !inFlight.has(c.toolCallId));
    if (decision.clientRefusal) {
      const call = open.find((c) => c.toolCallId === decision.toolCallId);
      return this.record(decisionRecord(kind, decision, at, { accepted: false, ...decision.clientRefusal, call }));
    }
    if (this.ended) {
      const check: DecisionCheck = { accepted: false, type: 'NothingPending', message: `the run has ${this.ended}` };
      return this.record(decisionRecord(kind, decision, at, check));
    }
    const check = judgeDecision(kind, decision, open, this.decided, this.run);
    if (!check.accepted) return this.record(decisionRecord(kind, decision, at, check));
    // Changed arguments get a fingerprint of their own where the call waits (a run below records its own).
    const args = check.call.path.length ? undefined : decision.args;
    const { toolCallId, toolName } = check.call;
    const approved =
      args === undefined
        ? undefined
        : { args, fingerprint: toolCallFingerprint({ runId: this.runId, toolCallId, toolName, args }) };
    const record = decisionRecord(kind, decision, at, check, approved);
    // Marked decided at once, so that a second decision while this one is under way is refused as such.
    this.decided.set(check.call.toolCallId, record);
    const hop = check.call.path[0];
    if (hop) {
      // The call waits in a sub-agent's run: pass the decision down; its verdict comes back in a report.
      // The stream grace period is the business of the run the caller reads, so it does not go down.
      this.forwarded.set(decision.decisionId, check.call);
      const { streamGraceMs, ...down } = decision;
      const inner = check.call.toolCallId.slice(hop.viaToolCallId.length + 1);
      const decisionDown = { ...down, toolCallId: inner };
      return [{ type: 'forward', childRunId: hop.runId, kind, decision: decisionDown, streamGraceMs }];
    }
    this.own.splice(this.own.indexOf(check.call), 1);
    return [
      ...(kind === 'resume' ? [] : this.record(record)),
      { type: 'resolve', toolCallId: check.call.toolCallId, resolution: { kind, decision, record } },
      { type: 'change' },
      { type: 'notify', notice: { event: 'decided', call: check.call, record } },
    ];
  }

  /** A decision refused before the rules were applied (a signature that does not hold): only recorded. */
  refuse(kind: DecisionKind, decision: DecisionSignal, at: string, type: RefusalType, message: string): LedgerEffect[] {
    const call = this.pending().find((c) => c.toolCallId === decision.toolCallId);
    return this.record(decisionRecord(kind, decision, at, { accepted: false, type, message, call }));
  }

  /** The verdict on resume data, once the tool has checked it against its resumeSchema. */
  resumeChecked(resolution: Resolution, rejection: string | undefined): LedgerEffect[] {
    const record: DecisionRecord = rejection
      ? {
          ...resolution.record,
          accepted: false,
          refusal: { type: 'InvalidResumeData', message: truncate(rejection, 1000) },
        }
      : resolution.record;
    return this.record(record);
  }

  /** A sub-agent starts: from now on its reports are taken. */
  childStarted(viaToolCallId: string): void {
    this.children.set(viaToolCallId, { pending: [], paused: false, seq: -1 });
  }

  /**
   * A sub-agent's report: the calls it now waits on, whether it paused, and its verdicts on
   * decisions passed down. Reports come only from this run's own running sub-agents, in order;
   * anything else (malformed, stale, forged) is dropped.
   */
  childReport(raw: unknown): LedgerEffect[] {
    const parsed = safeParse(ChildReportSchema, raw);
    if (!parsed.success) return [];
    const report = parsed.data;
    const child = this.children.get(report.viaToolCallId);
    if (!child || report.runId !== `${this.runId}::${report.viaToolCallId}` || report.seq <= child.seq) return [];
    const before = new Set(child.pending.map((p) => p.toolCallId));
    child.seq = report.seq;
    child.pending = report.pending.map((p) => qualify(report, p));
    const effects = report.verdicts.flatMap((v) => this.takeVerdict(v));
    if (!child.paused && report.paused) effects.push({ type: 'child', change: 'paused' });
    if (child.paused && !report.paused) effects.push({ type: 'child', change: 'resumed' });
    child.paused = report.paused;
    for (const entry of child.pending) if (!before.has(entry.toolCallId)) effects.push({ type: 'waits', call: entry });
    effects.push({ type: 'change' });
    return effects;
  }

  /**
   * A sub-agent's run ended: nothing waits there any more. Its trail (from its result; reports may
   * arrive after the end, and are then dropped) gives the verdicts on decisions passed down to it; one
   * it never took is refused.
   */
  childFinished(viaToolCallId: string, trail: DecisionRecord[]): LedgerEffect[] {
    const child = this.children.get(viaToolCallId);
    if (!child) return [];
    this.children.delete(viaToolCallId);
    const effects: LedgerEffect[] = child.paused ? [{ type: 'child', change: 'ended-paused' }] : [];
    effects.push(...trail.flatMap((v) => this.takeVerdict(v)));
    for (const [decisionId, call] of this.forwarded) {
      const hop = call.path[0];
      if (hop?.viaToolCallId === viaToolCallId) {
        effects.push(
          ...this.forwardFailed(decisionId, `the sub-agent run ${hop.runId} ended before it took the decision`),
        );
      }
    }
    effects.push({ type: 'change' });
    return effects;
  }

  /** A decision passed down could not be delivered: refused, and the call can be decided again. */
  forwardFailed(decisionId: string, message: string): LedgerEffect[] {
    const call = this.forwarded.get(decisionId);
    if (!call) return [];
    this.forwarded.delete(decisionId);
    const record = this.decided.get(call.toolCallId);
    if (record?.decisionId === decisionId) this.decided.delete(call.toolCallId);
    return record ? this.record({ ...record, accepted: false, refusal: { type: 'UnknownToolCall', message } }) : [];
  }

  /** The run ended (`completed`, `failed`, `cancelled`): nothing waits, and later decisions are refused. */
  end(status: string): LedgerEffect[] {
    this.ended = status;
    this.own.length = 0;
    this.children.clear();
    return [{ type: 'change' }];
  }

  /** A sub-agent's verdict on a decision this run passed down: into this run's trail too. */
  private takeVerdict(verdict: DecisionRecord): LedgerEffect[] {
    const call = this.forwarded.get(verdict.decisionId);
    if (!call) return [];
    this.forwarded.delete(verdict.decisionId);
    if (!verdict.accepted && this.decided.get(call.toolCallId)?.decisionId === verdict.decisionId) {
      this.decided.delete(call.toolCallId);
    }
    return this.record({ ...verdict, toolCallId: call.toolCallId });
  }

  private record(record: DecisionRecord): LedgerEffect[] {
    this.decisions.push(record);
    return [{ type: 'record', record }];
  }
}
