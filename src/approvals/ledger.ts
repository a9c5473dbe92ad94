/**
 * The approval ledger of one run: the calls it waits on (its own, and those its sub-agents report),
 * the decisions taken on them, and the decision trail. Pure: it takes events (a call asks, a
 * decision arrives, a sub-agent reports or ends) and returns the effects for the workflow to carry
 * out, in order (see {@link LedgerEffect}). It never touches Temporal, so every rule has a unit test.
 */
import {
  DecisionSignalSchema,
  type DecisionKind,
  type DecisionRecord,
  type DecisionSignal,
  type PendingToolCall,
  type RefusalType,
} from '../schemas/decisions.js';
import type { AccessPolicy } from '../schemas/access.js';
import { safeParse, truncate } from '../schemas/json.js';
import { decisionRecord, salvage } from './decision-record.js';
import { toolCallFingerprint } from './fingerprint.js';
import type { LedgerEffect, Resolution } from './ledger-effects.js';
import { OwnCalls, type Waiting } from './own-calls.js';
import { decisionEvidence, type ReceiptEvidence } from './receipts.js';
import { changeWithinRules, evaluateRules, rulesEvidence, rulesRecord } from './approval-rules.js';
import { SubAgentCalls } from './sub-agent-calls.js';
import { DecisionTrail, type CarriedTrail } from './trail.js';
import { judgeDecision, type DecisionCheck, type RunAccess } from './rules.js';

/** A call as it asks for a decision. */
type AskingCall = Pick<PendingToolCall, 'toolCallId' | 'toolName' | 'args' | 'fingerprint'>;

/** Where the ledger's rules changed with a release: whether the run takes each change (default: yes). */
export interface LedgerPatches {
  /**
   * A decision after its call's deadline fired is refused as late (`deadlines-before-decisions`); asked only
   * when that happens, so that a run can answer it with a patch (runs from before took such a decision).
   */
  deadlinesFirst?: () => boolean;
  /** A check of changed arguments too costly for workflow code is refused (`bounded-schema-checks`). */
  boundedChecks?: () => boolean;
}

export class ApprovalLedger {
  /** The calls the run's own tools wait on, with their deadlines. */
  private readonly own: OwnCalls;
  /** Running sub-agents: the calls they wait on, and the decisions passed down to them. */
  private readonly subAgents: SubAgentCalls;
  /** The decisions taken, the refusals, and what the run did itself. */
  readonly trail: DecisionTrail;
  /** What the receipts of decisions passed down to sub-agents bind, until their verdicts come back. */
  private readonly forwarded = new Map<string, ReceiptEvidence>();
  /** Set once the run has ended; decisions are then refused. */
  private ended: string | undefined;
  /** The agent's access policy, and who started the run in which tenant. */
  private access: AccessPolicy | undefined;
  private run: RunAccess = { resourceId: undefined, startedBy: undefined };

  /**
   * @param runId this run's id: a sub-agent's reports must come from `<runId>::<delegating call>`
   * @param carried the trail, refusals and receipts' head a run that continued as new carries over
   * @param patches where the rules changed with a release (see {@link LedgerPatches})
   */
  constructor(
    private readonly runId: string,
    carried: CarriedTrail = {},
    private readonly patches: LedgerPatches = {},
  ) {
    this.trail = new DecisionTrail(runId, carried);
    this.own = new OwnCalls(this.trail, patches.deadlinesFirst ?? (() => true));
    this.subAgents = new SubAgentCalls(runId);
  }

  /** Every call the run waits on: its own, then its sub-agents' (qualified, with their path). */
  pending(): PendingToolCall[] {
    return [...this.own.list(), ...this.subAgents.pending()];
  }

  /** The verdict on this decision, once the trail (or the refusals kept) has it. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.trail.verdict(decisionId);
  }

  /** Whether this decision was taken: it has a verdict, or is under way (a resume being checked, one passed down). */
  taken(decisionId: string): boolean {
    return !!this.verdict(decisionId) || [...this.decided.values()].some((d) => d.decisionId === decisionId);
  }

  /** The policy decisions are checked against, once the agent's spec is known (before any call waits). */
  govern(access: AccessPolicy | undefined, run: RunAccess): void {
    this.access = access;
    this.run = run;
  }

  /** An own tool call starts to wait on a decision. */
  ask(call: AskingCall, waiting: Waiting): LedgerEffect[] {
    return this.own.ask(call, waiting, this.access);
  }

  /** What the agent's approval rules say of a call before it waits (`ask` without rules); see approval-rules.ts. */
  ruled(call: AskingCall, at: string, toolRequires: boolean) {
    const ruling = this.access?.rules && evaluateRules(this.access.rules, call, this.run.startedBy, at, toolRequires);
    const asked = !!ruling && ruling.rule !== null; // a rule said a person decides (not: none matched)
    if (!ruling || ruling.verdict === 'ask') return { verdict: 'ask' as const, asked, effects: [] };
    const record = rulesRecord(ruling, call, at);
    return { verdict: ruling.verdict, record, effects: this.settled(call, record) };
  }

  /** A call the agent's rules or judge decided before it waited: recorded as their decision. */
  settled(call: AskingCall, record: DecisionRecord): LedgerEffect[] {
    this.decided.set(call.toolCallId, record);
    return this.record(record, rulesEvidence(call));
  }

  /** An own call's approval deadline passed its first period (see {@link OwnCalls.escalate}). */
  escalate(toolCallId: string, at: string): LedgerEffect[] {
    return this.own.escalate(toolCallId, at);
  }

  /** An own call's deadline passed (see {@link OwnCalls.expire}). */
  expire(toolCallId: string, at: string): LedgerEffect[] {
    return this.own.expire(toolCallId, at);
  }

  /**
   * An approve, decline, resume or result signal: accepted, it resolves the call (here, or in a
   * sub-agent by forwarding it); refused, it is only recorded. A resume is recorded only once the
   * tool has checked the data ({@link resumeChecked}).
   */
  decide(kind: DecisionKind, raw: unknown, at: string, { signatureChecked = false } = {}): LedgerEffect[] {
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
    if (decision.clientRefusal) {
      // Clients refuse at their edge and send nothing; a signal that says it was refused is not the
      // system's word, and none of its text is kept as if it were.
      const message = 'the signal says its sender refused it (clientRefusal): it is not applied';
      return this.record(decisionRecord(kind, decision, at, { accepted: false, type: 'InvalidDecision', message }));
    }
    if (this.ended) {
      const check: DecisionCheck = { accepted: false, type: 'NothingPending', message: `the run has ${this.ended}` };
      return this.record(decisionRecord(kind, decision, at, check));
    }
    // A deadline that passed before the run took this decision counts first, however the events came
    // together (a timer fired with no worker up, the decision arrived later, both in one activation).
    const deadlines = this.own.deadlinesDue(at);
    // A call whose decision is on its way down to a sub-agent takes no second one meanwhile.
    const inFlight = this.subAgents.inFlight();
    const open = this.pending().filter((c) => !inFlight.has(c.toolCallId));
    const judged = judgeDecision(kind, decision, open, this.decided, this.run, this.patches.boundedChecks);
    const check = changeWithinRules(judged, this.access?.rules, decision.args, this.run, at);
    if (!check.accepted) return [...deadlines, ...this.record(decisionRecord(kind, decision, at, check))];
    return [...deadlines, ...this.accept(kind, decision, check.call, at, signatureChecked)];
  }

  /** An accepted decision: resolved here, or passed down to the sub-agent whose run waits on the call. */
  private accept(
    kind: DecisionKind,
    decision: DecisionSignal,
    call: PendingToolCall,
    at: string,
    signatureChecked: boolean,
  ): LedgerEffect[] {
    const check: DecisionCheck = { accepted: true, call };
    // Changed arguments get a fingerprint of their own where the call waits (a run below records its own).
    const args = call.path.length ? undefined : decision.args;
    const { toolCallId, toolName } = call;
    const approved =
      args === undefined
        ? undefined
        : { args, fingerprint: toolCallFingerprint({ runId: this.runId, toolCallId, toolName, args }) };
    const evidence = decisionEvidence(kind, decision, call, signatureChecked);
    const hop = call.path[0];
    const quorum = kind === 'approve' && !hop ? call.quorum : undefined;
    const counted = quorum ? { count: quorum.approvals.length + 1, of: quorum.required } : undefined;
    const record = { ...decisionRecord(kind, decision, at, check, approved), ...(counted ? { quorum: counted } : {}) };
    if (counted && counted.count < counted.of) {
      // Not enough yet: the call waits on, with this approval counted (the rules took its principal).
      this.own.counted(call, { principal: decision.principal!.id, decisionId: decision.decisionId, at });
      return [
        ...this.record(record, evidence),
        { type: 'change' },
        { type: 'counted', streamGraceMs: decision.streamGraceMs },
      ];
    }
    // Marked decided at once, so that a second decision while this one is under way is refused as such.
    this.decided.set(toolCallId, record);
    if (hop) {
      // The call waits in a sub-agent's run: pass the decision down; its verdict comes back in a report.
      // The stream grace period is the business of the run the caller reads, so it does not go down.
      this.subAgents.forward(decision.decisionId, call);
      this.forwarded.set(decision.decisionId, evidence);
      const { streamGraceMs, ...down } = decision;
      const inner = toolCallId.slice(hop.viaToolCallId.length + 1);
      const decisionDown = { ...down, toolCallId: inner };
      return [{ type: 'forward', childRunId: hop.runId, kind, decision: decisionDown, streamGraceMs }];
    }
    this.own.remove(call);
    return [
      ...(kind === 'resume' ? [] : this.record(record, evidence)),
      { type: 'resolve', toolCallId, resolution: { kind, decision, record, evidence } },
      { type: 'change' },
      { type: 'notify', notice: { event: 'decided', call, record } },
    ];
  }

  /** A decision refused before the rules were applied (a signature that does not hold): only recorded. */
  refuse(kind: DecisionKind, decision: DecisionSignal, at: string, type: RefusalType, message: string): LedgerEffect[] {
    const call = this.pending().find((c) => c.toolCallId === decision.toolCallId);
    return this.record(decisionRecord(kind, decision, at, { accepted: false, type, message, call }));
  }

  /** The verdict on resume data, once the tool has checked it against its resumeSchema. */
  resumeChecked(resolution: Resolution, rejection: string | undefined): LedgerEffect[] {
    const refusal = rejection ? { type: 'InvalidResumeData' as const, message: truncate(rejection, 1000) } : undefined;
    const record: DecisionRecord = refusal ? { ...resolution.record, accepted: false, refusal } : resolution.record;
    return this.record(record, resolution.evidence);
  }

  /** A sub-agent starts: from now on its reports are taken. */
  childStarted = (viaToolCallId: string): void => this.subAgents.started(viaToolCallId);

  /**
   * A sub-agent's report: the calls it now waits on, whether it paused, and its verdicts on decisions passed
   * down. Reports come only from this run's own running sub-agents, in order; anything else is dropped.
   */
  childReport(raw: unknown): LedgerEffect[] {
    const taken = this.subAgents.report(raw);
    if (!taken) return [];
    return [...taken.verdicts.flatMap((v) => this.takeVerdict(v)), ...taken.effects, { type: 'change' }];
  }

  /**
   * A sub-agent's run ended: nothing waits there any more. Its trail (from its result; reports may
   * arrive after the end, and are then dropped) gives the verdicts on decisions passed down to it; one
   * it never took is refused.
   */
  childFinished(viaToolCallId: string, trail: DecisionRecord[]): LedgerEffect[] {
    const child = this.subAgents.finished(viaToolCallId);
    if (!child) return [];
    const effects: LedgerEffect[] = child.paused ? [{ type: 'child', change: 'ended-paused' }] : [];
    effects.push(...trail.flatMap((v) => this.takeVerdict(v)));
    for (const decisionId of this.subAgents.unsettledBelow(viaToolCallId)) {
      const message = `the sub-agent run ${this.runId}::${viaToolCallId} ended before it took the decision`;
      effects.push(...this.forwardFailed(decisionId, message));
    }
    effects.push({ type: 'change' });
    return effects;
  }

  /** A decision passed down could not be delivered: refused, and the call can be decided again. */
  forwardFailed(decisionId: string, message: string): LedgerEffect[] {
    const call = this.subAgents.settle(decisionId);
    if (!call) return [];
    this.forwarded.delete(decisionId);
    const record = this.decided.get(call.toolCallId);
    if (record?.decisionId === decisionId) this.decided.delete(call.toolCallId);
    return record ? this.record({ ...record, accepted: false, refusal: { type: 'UnknownToolCall', message } }) : [];
  }

  /** The run ended (`completed`, `failed`, `cancelled`): nothing waits, and later decisions are refused. */
  end(status: string): LedgerEffect[] {
    this.ended = status;
    this.own.clear();
    this.subAgents.clear();
    this.forwarded.clear();
    return [{ type: 'change' }];
  }

  /** A sub-agent's verdict on a decision this run passed down: into this run's trail too. */
  private takeVerdict(verdict: DecisionRecord): LedgerEffect[] {
    const call = this.subAgents.settle(verdict.decisionId);
    if (!call) return [];
    // A refusal, or one approval of several a call needs: the call can be decided again.
    const partly = verdict.quorum !== undefined && verdict.quorum.count < verdict.quorum.of;
    if ((!verdict.accepted || partly) && this.decided.get(call.toolCallId)?.decisionId === verdict.decisionId) {
      this.decided.delete(call.toolCallId);
    }
    const evidence = this.forwarded.get(verdict.decisionId);
    this.forwarded.delete(verdict.decisionId);
    return this.record({ ...verdict, toolCallId: call.toolCallId }, evidence);
  }

  private record(record: DecisionRecord, evidence?: ReceiptEvidence): LedgerEffect[] {
    return this.trail.record(record, evidence);
  }

  private get decided(): Map<string, DecisionRecord> {
    return this.trail.decided;
  }
}
