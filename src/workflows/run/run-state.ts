/**
 * The state of one run inside its workflow, and the one place that carries out what the approval
 * ledger decides: the conversation, the ledger of waiting calls and decisions, the stream and its
 * segments, and the mirror (memo, search attributes, reports to a parent run).
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall } from '../../protocol/activities.js';
import { readers } from '../../approvals/access.js';
import { msUntil } from '../../approvals/deadline.js';
import type { LedgerEffect, Notice, Resolution } from '../../approvals/ledger-effects.js';
import { ApprovalLedger, type Waiting } from '../../approvals/ledger.js';
import type { RunAccess } from '../../approvals/rules.js';
import type { AccessPolicy, AccessRule, Principal } from '../../schemas/access.js';
import type {
  DecisionKind,
  DecisionRecord,
  DecisionSignal,
  PendingToolCall,
  RefusalType,
} from '../../schemas/decisions.js';
import type { AutoResumeSettings } from '../../schemas/auto-resume.js';
import type { Message } from '../../schemas/message.js';
import type { RunCarry } from '../../schemas/run-input.js';
import type { RunMemo, RunStatus } from '../../schemas/run-result.js';
import { shownPending } from '../../schemas/shown-pending.js';
import { finishChunk, type AgentProgressChunk, type RunChunk } from '../../schemas/stream-chunks.js';
import { ChunkLog } from '../stream/chunk-log.js';
import {
  CONVERSATION_BY_REFERENCE_PATCH,
  ConversationDigest,
  type ConversationRef,
  type SentSetup,
} from './conversation-ref.js';
import { Conversation } from './conversation.js';
import { decisionSignals, type RunSnapshot } from '../../protocol/run-messages.js';
import { fitResult } from './payload-bounds.js';
import type { ProgressRouting } from './progress.js';
import { MEMO_DECISIONS, RunMirror } from './run-mirror.js';
import { waitSpan } from './spans.js';
import { StreamSegments } from '../stream/stream-segments.js';
import { shownCalls } from '../thread/shown-calls.js';
import type { ThreadLink } from '../thread/thread-link.js';
import type { TurnStatus } from '../../schemas/thread.js';
import { runResult } from './transcript.js';

/**
 * A webhook that fails is tried again for about a minute, then given up: a notification never fails
 * the run, and the run does not wait on a receiver that is down for long. Refused (4xx) is final.
 */
const { notify } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['WebhookRefused', 'NotificationsOff'],
  },
});

/** The patch of the lean history's commands; runs from before replay without it. */
export const LEAN_HISTORY_PATCH = 'lean-history';

/**
 * The patch under which a decision that arrives after a call's deadline passed is refused as late (the
 * call expires first), however the timer and the decision were batched; runs from before took it.
 */
export const DEADLINES_FIRST_PATCH = 'deadlines-before-decisions';

/** How long a run that ends waits for its last notifications to be delivered. */
const NOTIFY_DRAIN = '1 minute';

/** What a continuation of a run needs besides the conversation and the agent spec. */
export type HandOver = Omit<RunCarry, 'spec'>;

export class RunState {
  status: RunStatus = 'running';
  version = 0;
  /** Set while the run hands over to its continuation; waiters then return and ask the new run. */
  continuing = false;
  /** How long the finished run stays readable for subscribers; see `stream()` and the stream forms of decisions. */
  graceMs = 0;
  readonly conversation: Conversation;
  /** The run's stream: its chunks by offset, in memory; readers query it. */
  readonly stream: ChunkLog;
  /** The run's publish secret, which its own activities publish to its stream with. */
  publishToken: string | undefined;
  /** Where its sub-agents' progress goes, and its own (a sub-agent's run below a streamed run). */
  progress: ProgressRouting | undefined;
  private readonly segments = new StreamSegments();
  /** The offset of the open segment's `start` chunk: a continuation carries the stream from there. */
  private segmentStart: number;
  /** Sub-agents' progress that arrived while the stream was paused: it opens the next segment. */
  private readonly heldProgress: AgentProgressChunk[] = [];
  private readonly ledger: ApprovalLedger;
  private readonly mirror: RunMirror;
  /**
   * Whether the memo and search attributes are written once per workflow task, with what they say
   * then, rather than at every change (runs from before replay as they ran): see `lean`.
   */
  private readonly coalesced: boolean;
  /**
   * Whether the run takes the lean history's commands (`LEAN_HISTORY_PATCH`): its memo and search
   * attributes once per workflow task, the agent's description as a local activity. One patch for both:
   * each patch adds a marker and a search attribute upsert to every run's history.
   */
  readonly lean: boolean;
  /**
   * Whether its model calls carry the conversation by reference (`CONVERSATION_BY_REFERENCE_PATCH`), and
   * then what the last one held with its answer, and the digest of the conversation as it grows.
   */
  readonly byReference: boolean;
  sent: ConversationRef | undefined;
  /** The instructions and tools its model calls last carried whole (a continued run's first call sends them). */
  sentSetup: SentSetup | undefined;
  readonly digest = new ConversationDigest();
  /** What changed since the memo and search attributes were last written. */
  private readonly stale = { memo: false, attributes: false, refusals: false };
  /** Accepted decisions, by the own call they resolve, until its waiter takes them. */
  private readonly resolutions = new Map<string, Resolution>();
  /** Who started the run (for a sub-agent's run: the top run), and who may read it. */
  private access: Pick<RunMemo, 'startedBy' | 'read'> = {};
  /** Set for a run on a thread: what a new message there may decide, and the model that reads it. */
  autoResume: { settings: AutoResumeSettings; model: string | undefined; run: RunAccess } | undefined;

  constructor(
    readonly runId: string,
    readonly agentId: string,
    messages: Message[],
    /** Set for a sub-agent's run: where to report. */
    parent: { runId: string; toolCallId: string } | undefined,
    /** What the previous run of a run that continued as new handed over. */
    carry?: HandOver,
  ) {
    this.conversation = new Conversation(messages, carry?.steps);
    this.stream = new ChunkLog(carry?.stream);
    this.segmentStart = this.stream.start;
    this.ledger = new ApprovalLedger(runId, { trail: carry?.decisions, refusals: carry?.refusals }, () =>
      patched(DEADLINES_FIRST_PATCH),
    );
    this.mirror = new RunMirror(runId, agentId, parent);
    if (carry) this.version = carry.version;
    this.lean = patched(LEAN_HISTORY_PATCH);
    this.coalesced = this.lean;
    this.byReference = patched(CONVERSATION_BY_REFERENCE_PATCH);
    this.sent = carry?.sent;
    // Not cancelled with the run: its last writes (cancelled) still go out.
    if (this.coalesced) void CancellationScope.nonCancellable(() => this.writeWhenStale());
  }

  /**
   * Writes the memo and search attributes when something changed. A condition is checked once the
   * workflow task's code has run as far as it can (and after each job), so the changes of one task
   * are written together, in one command each, at the same point on replay.
   */
  private async writeWhenStale(): Promise<never> {
    for (;;) {
      await condition(() => this.stale.memo || this.stale.attributes || this.stale.refusals);
      this.flushMirror();
    }
  }

  /** Writes what changed now: before the run ends or hands over, which ends its workflow task. */
  flushMirror(): void {
    if (this.stale.attributes) this.mirror.writeSearchAttributes(this.status, this.pending());
    if (this.stale.memo || this.stale.refusals) {
      this.mirror.writeMemo(
        this.stale.memo ? this.memo() : undefined,
        this.stale.refusals ? this.ledger.trail.refused() : undefined,
      );
    }
    this.stale.attributes = this.stale.memo = this.stale.refusals = false;
  }

  private writeMemo(): void {
    if (this.coalesced) this.stale.memo = true;
    else this.mirror.writeMemo(this.memo());
  }

  /** Refusals go under a memo key of their own: the run's memo is not written again for them. */
  private writeRefusals(): void {
    if (this.coalesced) this.stale.refusals = true;
    else this.mirror.writeMemo(undefined, this.ledger.trail.refused());
  }

  private writeAttributes(): void {
    if (this.coalesced) this.stale.attributes = true;
    else this.mirror.writeSearchAttributes(this.status, this.pending());
  }

  /**
   * The agent's policy holds from here on (the spec is known before any call waits): decisions are
   * checked against it, and the memo says who started the run and who may read it.
   */
  govern(
    policy: AccessPolicy | undefined,
    startedBy: Principal | undefined,
    resourceId: string | undefined,
    escalations: AccessRule = [],
  ): void {
    this.ledger.govern(policy, { startedBy, resourceId });
    const read = readers(policy, escalations);
    this.access = { ...(startedBy ? { startedBy } : {}), ...(read ? { read } : {}) };
  }

  /** Set for a run on a thread: its turn is recorded there when it pauses and when it ends. */
  thread: ThreadLink | undefined;

  /** The names of the tools whose display transform changes what the stream shows of their calls. */
  displayTools: ReadonlySet<string> = new Set();

  /** Records the run's turn on its thread, with what its stream showed of calls a display transform changes. */
  async recordTurn(status: TurnStatus): Promise<void> {
    const shown = (messages: Message[]) => shownCalls(messages, this.displayTools, this.stream.held());
    await this.thread?.record(this.conversation.messages, status, shown);
  }
  /** Set for a run on a thread: the key its writes there carry (see thread-writers.ts). */
  threadKey: string | undefined;

  /** Whether every decision must carry an approver's signature (the worker has decision keys). */
  signedDecisions = false;

  /** Whether the worker sends notifications (its spec says so): only then does the run schedule any. */
  notifications = false;
  /** Notifications on their way: a run that ends or continues waits for them a while. */
  private notifying = 0;

  /** Waits (at most a minute) until the notifications sent so far are delivered or given up. */
  async notificationsDelivered(): Promise<void> {
    if (this.notifying > 0) await condition(() => this.notifying === 0, NOTIFY_DRAIN);
  }

  /** A decision refused before the ledger's rules (a signature that does not hold): recorded, never applied. */
  refuse(kind: DecisionKind, decision: DecisionSignal, type: RefusalType, message: string): void {
    this.apply(this.ledger.refuse(kind, decision, new Date().toISOString(), type, message));
  }

  /** Who started the run, when known: its sub-agents' runs are started in that name too. */
  get startedBy(): Principal | undefined {
    return this.access.startedBy;
  }

  /** What a continuation of this run needs besides the conversation; call it once nothing waits. */
  handOver(): HandOver {
    return {
      steps: [...this.conversation.steps],
      decisions: this.ledger.trail.all().slice(-MEMO_DECISIONS),
      refusals: this.ledger.trail.refused(),
      version: this.version,
      stream: this.stream.carry(this.segmentStart),
      ...(this.thread ? { threadMessages: this.thread.prefix } : {}),
      ...(this.thread?.workingMemory !== undefined ? { workingMemory: this.thread.workingMemory } : {}),
      ...(this.threadKey ? { threadKey: this.threadKey } : {}),
      ...(this.sent ? { sent: this.sent } : {}),
    };
  }

  /** Writes the memo and search attributes anew (a continued run starts with its own). */
  announce(): void {
    this.changed();
  }

  get done(): boolean {
    return this.status === 'completed' || this.status === 'failed' || this.status === 'cancelled';
  }

  /** Every call the run waits on: its own, then its sub-agents' (qualified, with their path). */
  pending(): PendingToolCall[] {
    return this.ledger.pending();
  }

  publish(chunk: RunChunk): void {
    if (chunk.type === 'start') this.segmentStart = this.stream.end;
    this.stream.append(chunk);
    this.progress?.forward(chunk);
  }

  /**
   * A sub-agent's progress, as it arrives. While the stream's segment is paused nobody reads it: a
   * signal that came after the pause it preceded (Temporal does not keep signals from one workflow in
   * order) waits for the next segment, and opens it.
   */
  takeProgress(chunks: AgentProgressChunk[]): void {
    if (this.segments.paused) this.heldProgress.push(...chunks);
    else this.stream.append(...chunks);
  }

  /** The tool calls of a step start; the run pauses once every one of them finished or waits. */
  callsStart(count: number): void {
    this.segments.callsStart(count);
  }

  callFinished(): void {
    this.segments.callStops();
    this.maybePause();
  }

  /** The run as `generate()` would return it now. */
  snapshot(): RunSnapshot {
    return {
      status: this.status,
      version: this.version,
      result: fitResult(
        runResult({
          runId: this.runId,
          agentId: this.agentId,
          steps: this.conversation.stepsSoFar(),
          messages: this.conversation.messages,
          pending: this.pending(),
          decisions: this.ledger.trail.all().slice(-MEMO_DECISIONS),
        }),
      ),
    };
  }

  memo(): RunMemo {
    const memo = this.mirror.memo(this.status, this.version, this.pending(), this.ledger.trail.all());
    return { ...memo, ...this.access, ...(this.autoResume ? { autoResume: this.autoResume.settings } : {}) };
  }

  /** Waits until a decision resolves this call, which is pending meanwhile. */
  waitForDecision(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    return waitSpan(waiting.kind, call.toolName, () => this.decided(call, waiting));
  }

  private async decided(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    this.apply(this.ledger.ask(call, waiting));
    this.callFinished();
    // The ledger's `resolve` counts the call as going on again the moment it is decided.
    const resolved = () => this.resolutions.has(call.toolCallId);
    // Only a call with a deadline starts timers: a run without one issues the commands it always did.
    if (waiting.kind === 'approval' && waiting.expiresAt) await this.untilDeadline(call.toolCallId, waiting, resolved);
    await condition(resolved);
    const resolution = this.resolutions.get(call.toolCallId)!;
    this.resolutions.delete(call.toolCallId);
    return resolution;
  }

  /**
   * Durable timers: the first escalates the call (when its deadline does), the second expires it. They
   * fire on the server whether a worker runs or not; the run acts on them when one does. A decision
   * that arrives first (or in the same activation) wins: escalating or expiring a call that is no
   * longer waiting changes nothing.
   */
  private async untilDeadline(toolCallId: string, waiting: Waiting, resolved: () => boolean): Promise<void> {
    const { escalation, expiresAt } = waiting;
    if (escalation && !(await condition(resolved, msUntil(escalation.at, Date.now())))) {
      this.apply(this.ledger.escalate(toolCallId, new Date().toISOString()));
    }
    if (resolved() || (await condition(resolved, msUntil(expiresAt!, Date.now())))) return;
    this.apply(this.ledger.expire(toolCallId, new Date().toISOString()));
  }

  /** An approve, decline, resume or result signal, as it arrived. */
  decide(kind: DecisionKind, raw: unknown): void {
    this.apply(this.ledger.decide(kind, raw, new Date().toISOString()));
  }

  /** A sub-agent starts: from now on its reports are taken. */
  childStarted(viaToolCallId: string): void {
    this.ledger.childStarted(viaToolCallId);
  }

  /** A sub-agent's report, as it arrived. */
  childReport(raw: unknown): void {
    const effects = this.ledger.childReport(raw);
    if (effects.length === 0) return;
    this.apply(effects);
    this.maybePause();
  }

  /** A sub-agent's run ended, with this trail. */
  childFinished(viaToolCallId: string, trail: DecisionRecord[]): void {
    this.apply(this.ledger.childFinished(viaToolCallId, trail));
  }

  /** Records the verdict on resume data, once the tool has checked it. */
  recordResume(resolution: Resolution, rejection: string | undefined): void {
    this.apply(this.ledger.resumeChecked(resolution, rejection));
  }

  /** The verdict on this decision, once the trail has it. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.ledger.verdict(decisionId);
  }

  /** Whether the run has taken this decision (a resume's verdict comes later, once the tool checked the data). */
  taken(decisionId: string): boolean {
    return this.ledger.taken(decisionId);
  }

  finish(status: 'completed' | 'failed' | 'cancelled'): void {
    this.status = status;
    this.apply(this.ledger.end(status));
  }

  private apply(effects: LedgerEffect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case 'record':
          this.writeMemo();
          this.report();
          break;
        case 'refused':
          this.writeRefusals();
          this.report();
          break;
        case 'change':
          this.changed();
          break;
        case 'waits':
          this.publishWaiting(effect.call);
          break;
        case 'resolve':
          this.keepStreamFor(effect.resolution.decision.streamGraceMs);
          this.resolutions.set(effect.toolCallId, effect.resolution);
          this.segments.callGoesOn();
          this.resumeSegment();
          break;
        case 'forward':
          this.keepStreamFor(effect.streamGraceMs);
          this.forward(effect);
          this.resumeSegment();
          break;
        case 'child':
          if (effect.change === 'paused') this.segments.callStops();
          else this.segments.callGoesOn();
          if (effect.change === 'resumed') this.resumeSegment();
          break;
        case 'notify':
          if (this.notifications) this.notify(effect.notice);
          break;
      }
    }
  }

  private forward({ childRunId, kind, decision }: Extract<LedgerEffect, { type: 'forward' }>): void {
    getExternalWorkflowHandle(childRunId)
      .signal(decisionSignals[kind], decision)
      .catch((err: unknown) =>
        this.apply(
          this.ledger.forwardFailed(
            decision.decisionId,
            `the sub-agent run ${childRunId} could not take it: ${String(err)}`,
          ),
        ),
      );
  }

  /**
   * Tells the worker's webhook, by an activity with retries. Its failure is only logged by the
   * activity: the run goes on. It is not cancelled with the run, so a cancelled run's last notices go out.
   */
  private notify({ event, call, record }: Notice): void {
    this.notifying++;
    const decided = record
      ? {
          decision: {
            decisionId: record.decisionId,
            kind: record.kind,
            ...(record.principal
              ? {
                  principal: {
                    id: record.principal.id,
                    ...(record.principal.name ? { name: record.principal.name } : {}),
                  },
                }
              : {}),
            ...(record.by !== null ? { by: record.by } : {}),
            ...(record.reason !== null ? { reason: record.reason } : {}),
          },
        }
      : {};
    const notice = {
      type: event,
      runId: this.runId,
      agentId: this.agentId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind: call.kind,
      fingerprint: call.fingerprint,
      at: new Date().toISOString(),
      askedAt: call.askedAt,
      ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
      ...(call.decide ? { decide: call.decide } : {}),
      ...decided,
    };
    void CancellationScope.nonCancellable(() => notify(notice))
      .catch(() => undefined)
      .finally(() => this.notifying--);
  }

  private keepStreamFor(ms: number | undefined): void {
    this.graceMs = Math.max(this.graceMs, ms ?? 0);
  }

  private publishWaiting(waiting: PendingToolCall): void {
    // The stream shows what the display transforms make of the call, never the raw values then.
    const entry = shownPending(waiting);
    const ids = {
      toolCallId: entry.toolCallId,
      toolName: entry.toolName,
      args: entry.args,
      fingerprint: entry.fingerprint,
    };
    switch (entry.kind) {
      case 'approval':
        return this.publish({ type: 'tool-call-approval', ...ids });
      case 'uncertain':
        return this.publish({ type: 'tool-call-uncertain', ...ids, reason: entry.uncertainty ?? 'cut off' });
      default: {
        const payload = entry.suspendPayload !== undefined ? { payload: entry.suspendPayload } : {};
        return this.publish({ type: 'tool-call-suspended', ...ids, ...payload });
      }
    }
  }

  /** Ends the stream's segment with a `suspended` finish once nothing can go on without a decision. */
  private maybePause(): void {
    if (!this.segments.pauseNow(this.pending().length)) return;
    this.publish(finishChunk(this.snapshot().result, this.pending()));
    this.report();
    void this.recordTurn('suspended');
  }

  private resumeSegment(): void {
    if (!this.segments.resumeNow()) return;
    this.publish({ type: 'start', runId: this.runId, agentId: this.agentId, resumed: true });
    this.stream.append(...this.heldProgress.splice(0));
    this.report();
  }

  private changed(): void {
    this.version++;
    if (!this.done) this.status = this.pending().length > 0 ? 'suspended' : 'running';
    this.writeAttributes();
    this.writeMemo();
    this.report();
  }

  private report(): void {
    this.mirror.report(this.pending(), this.segments.paused, this.ledger.trail.drainVerdicts());
  }
}
