/**
 * The state of one run inside its workflow, and the one place that carries out what the approval
 * ledger decides: the conversation, the ledger of waiting calls and decisions, the stream and its
 * segments, and the mirror (memo, search attributes, reports to a parent run).
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { LedgerEffect, Resolution } from '../../approvals/ledger-effects.js';
import { ApprovalLedger } from '../../approvals/ledger.js';
import type { Principal } from '../../schemas/access.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type {
  DecisionKind,
  DecisionRecord,
  DecisionSignal,
  PendingToolCall,
  RefusalType,
} from '../../schemas/decisions.js';
import type { Message } from '../../schemas/message.js';
import type { RunCarry } from '../../schemas/run-input.js';
import { MEMO_MODEL_FALLBACKS, type RunMemo, type RunStatus } from '../../schemas/run-result.js';
import { finishChunk } from '../../schemas/stream-chunks.js';
import type { TurnStatus } from '../../schemas/thread.js';
import { DecisionWaits } from './decision-waits.js';
import { ConversationWire } from './conversation-wire.js';
import { Conversation } from './conversation.js';
import { decisionSignals, type RunSnapshot } from '../../protocol/run-messages.js';
import { MirrorWrites } from './mirror-writes.js';
import { fitResult } from './payload-bounds.js';
import { MEMO_DECISIONS, RunMirror } from './run-mirror.js';
import { RunNotices } from './run-notices.js';
import { NO_SETUP, runSetup, type AutoResumeSetup, type RunSetup } from './run-setup.js';
import { RunStream } from './run-stream.js';
import { shownCalls } from '../thread/shown-calls.js';
import type { ThreadLink } from '../thread/thread-link.js';
import { runResult } from './transcript.js';
import { takes } from '../patches.js';
import { RunMessageQueue, type MessageGate } from './run-message-queue.js';
import { INLINE_PAYLOAD_LIMITS } from '../../schemas/limits.js';

/** What a continuation of a run needs besides the conversation and the agent spec. */
export type HandOver = Omit<RunCarry, 'spec'>;

export class RunState {
  status: RunStatus = 'running';
  version = 0;
  /** Set while the run hands over to its continuation; waiters then return and ask the new run. */
  continuing = false;
  readonly conversation: Conversation;
  readonly stream: RunStream;
  /** What the spec decided, once it is known (`govern`). */
  setup: RunSetup = NO_SETUP;
  /**
   * Whether the run takes the lean history's commands (patch `leanHistory`): its memo and search
   * attributes once per workflow task, the agent's description as a local activity. One patch for both:
   * each patch adds a marker and a search attribute upsert to every run's history.
   */
  readonly lean: boolean;
  readonly wire: ConversationWire;
  /** Set for a run on a thread: its turn is recorded there when it pauses and when it ends. */
  thread: ThreadLink | undefined;
  /** Set for a run on a thread: the key its writes there carry (see thread-writers.ts). */
  threadKey: string | undefined;
  /** Set for a run on a thread: what a new message there may decide, and the model that reads it. */
  autoResume: AutoResumeSetup | undefined;
  /** Set when a run with an output schema took its last step: its result has the object, or why there is none. */
  objectDue = false;
  /** The approval ledger: its events go through the methods below, which carry out its effects. */
  readonly ledger: ApprovalLedger;
  readonly waits: DecisionWaits;
  /** Messages sent to the run while it works, for its next step. */
  readonly messages = new RunMessageQueue();
  private maxConversationBytes = INLINE_PAYLOAD_LIMITS.maxConversationBytes;
  /** The memo and search attributes; the run flushes them before it ends or hands over. */
  readonly writes: MirrorWrites;
  readonly notices: RunNotices;
  private readonly mirror: RunMirror;

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
    this.stream = new RunStream(carry?.stream);
    this.ledger = new ApprovalLedger(
      runId,
      { trail: carry?.decisions, refusals: carry?.refusals, receipts: carry?.receipts },
      { deadlinesFirst: () => takes('deadlinesFirst'), boundedChecks: () => takes('boundedSchemaChecks') },
    );
    this.mirror = new RunMirror(runId, agentId, parent);
    this.notices = new RunNotices(runId, agentId);
    this.waits = new DecisionWaits(
      this.ledger,
      (effects) => this.apply(effects),
      () => this.callFinished(),
      agentId,
    );
    if (carry) this.version = carry.version;
    this.messages.carryOver(carry?.messageIds ?? []);
    this.lean = takes('leanHistory');
    this.wire = new ConversationWire(takes('conversationByReference'), carry?.sent);
    this.writes = new MirrorWrites(this.mirror, this, this.lean);
  }

  /**
   * The agent's spec holds from here on (it is known before any call waits): decisions are checked
   * against its policy, and the memo says who started the run and who may read it.
   */
  govern(spec: AgentSpec, startedBy: Principal | undefined, resourceId: string | undefined): void {
    this.ledger.govern(spec.access, { startedBy, resourceId });
    this.setup = runSetup(spec, startedBy);
    this.messages.govern({ start: spec.access?.start, resourceId, startedBy });
    this.maxConversationBytes = (spec.payloadLimits ?? INLINE_PAYLOAD_LIMITS).maxConversationBytes;
  }

  /** Where the run stands for a message sent to it (see run-message-queue.ts). */
  messageGate(): MessageGate {
    const roomBytes = this.maxConversationBytes - this.conversation.bytes();
    return { runId: this.runId, ended: this.done || this.continuing, waitingOn: this.pending(), roomBytes };
  }

  /** The messages sent since the last step join the conversation, as the user's, for the model's next call. */
  takeMessages(): void {
    for (const message of this.messages.take())
      this.conversation.messages.push({ role: 'user', content: message.text });
  }

  /** Records the run's turn on its thread, with what its stream showed of calls a display transform changes. */
  async recordTurn(status: TurnStatus): Promise<void> {
    const shown = (messages: Message[]) => shownCalls(messages, this.setup.displayTools, this.stream.log.held());
    await this.thread?.record(this.conversation.messages, status, shown);
  }

  /** A decision refused before the ledger's rules (a signature that does not hold): recorded, never applied. */
  refuse(kind: DecisionKind, decision: DecisionSignal, type: RefusalType, message: string): void {
    this.apply(this.ledger.refuse(kind, decision, new Date().toISOString(), type, message));
  }

  get done(): boolean {
    return this.status === 'completed' || this.status === 'failed' || this.status === 'cancelled';
  }

  /** Every call the run waits on: its own, then its sub-agents' (qualified, with their path). */
  pending(): PendingToolCall[] {
    return this.ledger.pending();
  }

  callFinished(): void {
    this.stream.callStops();
    this.maybePause();
  }

  /** The run as `generate()` would return it now. */
  snapshot(): RunSnapshot {
    const { runId, agentId, conversation } = this;
    const { messages } = conversation;
    const decisions = this.ledger.trail.all().slice(-MEMO_DECISIONS);
    const steps = conversation.stepsSoFar();
    const pending = this.pending();
    const result = runResult({ runId, agentId, steps, messages, pending, decisions, structured: this.objectDue });
    return { status: this.status, version: this.version, result: fitResult(result) };
  }

  memo(): RunMemo {
    const memo = this.mirror.memo(this.status, this.version, this.pending(), this.ledger.trail.all());
    const modelFallbacks = this.conversation
      .stepsSoFar()
      .flatMap(({ stepNumber, model }) => (model ? [{ stepNumber, model }] : []))
      .slice(-MEMO_MODEL_FALLBACKS);
    return {
      ...memo,
      ...this.setup.access,
      ...(this.autoResume ? { autoResume: this.autoResume.settings } : {}),
      ...(modelFallbacks.length > 0 ? { modelFallbacks } : {}),
    };
  }

  /** An approve, decline, resume or result signal, as it arrived. */
  decide(kind: DecisionKind, raw: unknown): void {
    // A signature counts (and goes into the receipt) only where the worker checked it.
    const signed = this.setup.signedDecisions;
    this.apply(this.ledger.decide(kind, raw, new Date().toISOString(), { signatureChecked: signed }));
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

  finish(status: 'completed' | 'failed' | 'cancelled'): void {
    this.status = status;
    this.apply(this.ledger.end(status));
  }

  apply(effects: LedgerEffect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case 'record':
          this.writes.memo();
          this.report();
          break;
        case 'refused':
          this.writes.refusals();
          this.report();
          break;
        case 'change':
          this.announce();
          break;
        case 'waits':
          this.stream.publishWaiting(effect.call);
          break;
        case 'resolve':
          this.stream.keepFor(effect.resolution.decision.streamGraceMs);
          this.waits.resolve(effect.toolCallId, effect.resolution);
          this.stream.callGoesOn();
          this.resumeSegment();
          break;
        case 'counted':
          this.stream.keepFor(effect.streamGraceMs);
          this.recount();
          break;
        case 'forward':
          this.stream.keepFor(effect.streamGraceMs);
          this.forward(effect);
          this.resumeSegment();
          break;
        case 'child':
          if (effect.change === 'paused') this.stream.callStops();
          else this.stream.callGoesOn();
          if (effect.change === 'resumed') this.resumeSegment();
          break;
        case 'notify':
          if (this.setup.notifications) this.notices.send(effect.notice);
          break;
      }
    }
  }

  private forward({ childRunId, kind, decision }: Extract<LedgerEffect, { type: 'forward' }>): void {
    const why = (err: unknown) => `the sub-agent run ${childRunId} could not take it: ${String(err)}`;
    getExternalWorkflowHandle(childRunId)
      .signal(decisionSignals[kind], decision)
      .catch((err: unknown) => this.apply(this.ledger.forwardFailed(decision.decisionId, why(err))));
  }

  /** Ends the stream's segment with a `suspended` finish once nothing can go on without a decision. */
  private maybePause(): void {
    if (!this.stream.pauseNow(this.pending().length)) return;
    this.stream.publish(finishChunk(this.snapshot().result, this.pending()));
    this.report();
    void this.recordTurn('suspended');
  }

  /**
   * An approval was counted and the call waits on: whoever streams from the decision reads a segment
   * that begins and ends again at once, its finish listing the call with the approvals so far.
   */
  private recount(): void {
    if (!this.stream.resume(this.runId, this.agentId)) return;
    if (this.stream.pauseNow(this.pending().length)) {
      this.stream.publish(finishChunk(this.snapshot().result, this.pending()));
    }
    this.report();
  }

  private resumeSegment(): void {
    if (this.stream.resume(this.runId, this.agentId)) this.report();
  }

  /** Writes the memo and search attributes anew (at every change; a continued run starts with its own). */
  announce(): void {
    this.version++;
    if (!this.done) this.status = this.pending().length > 0 ? 'suspended' : 'running';
    this.writes.attributes();
    this.writes.memo();
    this.report();
  }

  private report(): void {
    this.mirror.report(this.pending(), this.stream.paused, this.ledger.trail.drainVerdicts());
  }
}
