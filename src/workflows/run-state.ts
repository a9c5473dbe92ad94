/**
 * The state of one run inside its workflow: conversation, steps, the calls it waits on (its own and
 * its sub-agents'), and the decision trail. It mirrors what others need to see into the memo and
 * search attributes, so that a process with no worker can find the run and check a decision against
 * it, and a sub-agent's run reports its waiting calls to its parent, so they surface at the top.
 */
import { condition, getExternalWorkflowHandle, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import {
  WorkflowStream,
  type WorkflowStreamState,
  type WorkflowTopicHandle,
} from '@temporalio/workflow-streams/workflow';
import type { CallModelOutput, ModelToolCall } from '../activities/contracts.js';
import {
  DecisionSignalSchema,
  RUN_MEMO_KEY,
  type DecisionKind,
  type DecisionRecord,
  type DecisionSignal,
  type JsonValue,
  type Message,
  type PendingToolCall,
  type RunMemo,
  type RunStatus,
  type StepRecord,
} from '../schemas.js';
import { RUN_CHUNK_TOPIC, type RunChunk } from '../stream-chunks.js';
import {
  ChildReportSchema,
  childReportSignal,
  decisionSignals,
  type ChildReport,
  type RunSnapshot,
} from './messages.js';
import { checkDecision, decisionRecord, truncate, type DecisionCheck } from './pending-calls.js';
import { safeParse } from './safe-parse.js';
import { AgentPendingToolCallsKey, AgentStatusKey } from './search-attributes.js';
import { runResult, stepRecord, type ToolOutcome } from './transcript.js';

/** The trail kept in the memo is the most recent decisions; the full trail is in the history. */
const MEMO_DECISIONS = 50;

/** An accepted decision, handed to the call that waits on it. */
export interface Resolution {
  kind: DecisionKind;
  decision: DecisionSignal;
  record: DecisionRecord;
}

/** What a parent knows of one running sub-agent: the calls it waits on, as the parent lists them. */
interface ChildState {
  pending: PendingToolCall[];
  paused: boolean;
  seq: number;
}

/** A sub-agent's call as its parent lists it: the id qualified by the delegating call, one hop added to the path. */
export function qualify(
  report: Pick<ChildReport, 'viaToolCallId' | 'runId' | 'agentId'>,
  call: PendingToolCall,
): PendingToolCall {
  return {
    ...call,
    toolCallId: `${report.viaToolCallId}/${call.toolCallId}`,
    path: [{ runId: report.runId, agentId: report.agentId, viaToolCallId: report.viaToolCallId }, ...call.path],
  };
}

export class RunState {
  status: RunStatus = 'running';
  version = 0;
  readonly messages: Message[];
  readonly steps: StepRecord[] = [];
  private current: { stepNumber: number; model: CallModelOutput; outcomes: Map<string, ToolOutcome> } | undefined;
  private readonly own: PendingToolCall[] = [];
  /** Running sub-agents, by the tool call that started them. */
  private readonly children = new Map<string, ChildState>();
  private readonly decisions: DecisionRecord[] = [];
  private readonly decided = new Map<string, DecisionRecord>();
  private readonly resolutions = new Map<string, Resolution>();
  /** Decisions passed down to a sub-agent, by decision id: the qualified call they are about. */
  private readonly forwarded = new Map<string, PendingToolCall>();
  /** The run's durable stream (@temporalio/workflow-streams): subscribers read it by offset. */
  readonly stream: WorkflowStream;
  private readonly chunks: WorkflowTopicHandle<RunChunk>;
  /** Set while the run hands over to its continuation; waiters then return and ask the new run. */
  continuing = false;
  /** Tool calls of the current step that are neither finished nor waiting on a decision. */
  private active = 0;
  /** Whether the stream's current segment ended with a pause. */
  private paused = false;
  /** How long the finished run stays readable for subscribers; see `stream()` and the stream forms of decisions. */
  graceMs = 0;
  /** How many trail entries the parent has been sent, and how many reports. */
  private reportedVerdicts = 0;
  private reports = 0;

  constructor(
    readonly runId: string,
    readonly agentId: string,
    messages: Message[],
    /** Set for a sub-agent's run: where to report. */
    private readonly parent: { runId: string; toolCallId: string } | undefined,
    /** What the previous run of a run that continued as new handed over. */
    carry?: { steps: StepRecord[]; decisions: DecisionRecord[]; version: number; stream: Record<string, unknown> },
  ) {
    this.messages = [...messages];
    this.stream = new WorkflowStream(carry?.stream as WorkflowStreamState | undefined);
    this.chunks = this.stream.topic<RunChunk>(RUN_CHUNK_TOPIC);
    if (carry) {
      this.steps.push(...carry.steps);
      this.decisions.push(...carry.decisions);
      this.version = carry.version;
      for (const d of carry.decisions) if (d.accepted && d.toolCallId) this.decided.set(d.toolCallId, d);
    }
  }

  /** What a continuation of this run needs besides the conversation; call it once nothing waits. */
  handOver(): { steps: StepRecord[]; decisions: DecisionRecord[]; version: number; stream: Record<string, unknown> } {
    return {
      steps: [...this.steps],
      decisions: [...this.decisions],
      version: this.version,
      stream: { ...this.stream.getState() },
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
    return [...this.own, ...[...this.children.values()].flatMap((c) => c.pending)];
  }

  publish(chunk: RunChunk): void {
    this.chunks.publish(chunk);
  }

  /** The tool calls of a step start; the run pauses once every one of them finished or waits. */
  beginCalls(count: number): void {
    this.active += count;
  }

  callFinished(): void {
    this.active--;
    this.maybePause();
  }

  startStep(stepNumber: number, model: CallModelOutput): void {
    this.messages.push(...model.assistantMessages);
    this.current = { stepNumber, model, outcomes: new Map() };
  }

  recordOutcome(outcome: ToolOutcome): void {
    this.current?.outcomes.set(outcome.call.toolCallId, outcome);
  }

  finishStep(outcomes: ToolOutcome[]): StepRecord {
    const current = this.current!;
    const step = stepRecord(current.stepNumber, current.model, outcomes);
    this.steps.push(step);
    this.current = undefined;
    return step;
  }

  /** The run as `generate()` would return it now. */
  snapshot(): RunSnapshot {
    const steps = [...this.steps];
    if (this.current) {
      const { stepNumber, model, outcomes } = this.current;
      const done = model.toolCalls.flatMap((c) => outcomes.get(c.toolCallId) ?? []);
      steps.push(stepRecord(stepNumber, model, done));
    }
    return {
      status: this.status,
      version: this.version,
      result: runResult({
        runId: this.runId,
        agentId: this.agentId,
        steps,
        messages: this.messages,
        pending: this.pending(),
        decisions: [...this.decisions],
      }),
    };
  }

  memo(): RunMemo {
    return {
      status: this.status,
      version: this.version,
      pendingToolCalls: this.pending(),
      decisions: this.decisions.slice(-MEMO_DECISIONS),
    };
  }

  /** Waits until a decision resolves this call, which is pending meanwhile. */
  async waitForDecision(
    call: ModelToolCall,
    waiting: Pick<PendingToolCall, 'kind' | 'askedAt' | 'suspendPayload' | 'resumeSchema'>,
  ): Promise<Resolution> {
    const entry: PendingToolCall = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
      fingerprint: call.fingerprint,
      requiresApproval: waiting.kind === 'approval',
      path: [],
      ...waiting,
    };
    this.own.push(entry);
    this.changed();
    this.publishWaiting(entry);
    this.active--;
    this.maybePause();
    // decide() counts the call as active again the moment it resolves it.
    await condition(() => this.resolutions.has(call.toolCallId));
    const resolution = this.resolutions.get(call.toolCallId)!;
    this.resolutions.delete(call.toolCallId);
    return resolution;
  }

  /** Applies an approve, decline, resume or result signal: accepted, it resolves the call (here or in a sub-agent); refused, it is only recorded. */
  decide(kind: DecisionKind, raw: unknown): void {
    const at = new Date().toISOString();
    const parsed = safeParse(DecisionSignalSchema, raw);
    if (!parsed.success) {
      const id =
        typeof raw === 'object' && raw && 'decisionId' in raw && typeof raw.decisionId === 'string'
          ? raw.decisionId
          : 'invalid';
      const check: DecisionCheck = {
        accepted: false,
        type: 'InvalidDecision',
        message: `the ${kind} signal does not fit its schema: ${parsed.error}`,
      };
      this.record(decisionRecord(kind, { decisionId: truncate(id, 100) }, at, check));
      return;
    }
    const decision = parsed.data;
    // A call whose decision is on its way down to a sub-agent takes no second one meanwhile.
    const inFlight = new Set([...this.forwarded.values()].map((c) => c.toolCallId));
    const all = this.pending().filter((c) => !inFlight.has(c.toolCallId));
    if (decision.clientRefusal) {
      const call = all.find((c) => c.toolCallId === decision.toolCallId);
      this.record(decisionRecord(kind, decision, at, { accepted: false, ...decision.clientRefusal, call }));
      return;
    }
    if (this.done) {
      this.record(
        decisionRecord(kind, decision, at, {
          accepted: false,
          type: 'NothingPending',
          message: `the run has ${this.status}`,
        }),
      );
      return;
    }
    const check = checkDecision(kind, decision, all, this.decided);
    const record = decisionRecord(kind, decision, at, check);
    if (!check.accepted) {
      this.record(record);
      return;
    }
    this.graceMs = Math.max(this.graceMs, decision.streamGraceMs ?? 0);
    // Marked decided at once, so that a second decision while this one is under way is refused as such.
    this.decided.set(check.call.toolCallId, record);
    const hop = check.call.path[0];
    if (hop) {
      // The call waits in a sub-agent's run: pass the decision down; its verdict comes back in a report.
      this.forwarded.set(decision.decisionId, check.call);
      const inner = check.call.toolCallId.slice(hop.viaToolCallId.length + 1);
      getExternalWorkflowHandle(hop.runId)
        .signal(decisionSignals[kind], { ...decision, toolCallId: inner })
        .catch((err: unknown) =>
          this.forwardFailed(decision.decisionId, `the sub-agent run ${hop.runId} could not take it: ${String(err)}`),
        );
      this.resumeSegment();
      return;
    }
    this.own.splice(this.own.indexOf(check.call), 1);
    // A resume is only recorded once the tool has checked the data against its resumeSchema.
    if (kind !== 'resume') this.record(record);
    this.resolutions.set(check.call.toolCallId, { kind, decision, record });
    this.active++;
    this.resumeSegment();
    this.changed();
  }

  /** A sub-agent starts: from now on its reports are taken. */
  childStarted(viaToolCallId: string): void {
    this.children.set(viaToolCallId, { pending: [], paused: false, seq: -1 });
  }

  /** A sub-agent's report: the calls it now waits on, whether it paused, and its verdicts on decisions passed down. */
  childReport(raw: unknown): void {
    const parsed = safeParse(ChildReportSchema, raw);
    // Reports come only from this run's own running sub-agents; anything else (malformed, stale, forged) is dropped.
    if (!parsed.success) return;
    const report = parsed.data;
    const child = this.children.get(report.viaToolCallId);
    if (!child || report.runId !== `${this.runId}::${report.viaToolCallId}` || report.seq <= child.seq) return;
    const before = child.pending;
    child.seq = report.seq;
    child.pending = report.pending.map((p) => qualify(report, p));
    report.verdicts.forEach((v) => this.takeVerdict(v));
    // The delegating call counts as waiting exactly while its sub-agent is paused.
    if (!child.paused && report.paused) this.active--;
    if (child.paused && !report.paused) {
      this.active++;
      this.resumeSegment();
    }
    child.paused = report.paused;
    const known = new Set(before.map((p) => p.toolCallId));
    for (const entry of child.pending) if (!known.has(entry.toolCallId)) this.publishWaiting(entry);
    this.changed();
    this.maybePause();
  }

  /**
   * A sub-agent's run ended: nothing waits there any more. Its trail (from its result; reports may
   * arrive after the end, and are then dropped) gives the verdicts on decisions passed down to it; one
   * it never took is refused.
   */
  childFinished(viaToolCallId: string, trail: DecisionRecord[]): void {
    const child = this.children.get(viaToolCallId);
    if (!child) return;
    this.children.delete(viaToolCallId);
    if (child.paused) this.active++;
    trail.forEach((v) => this.takeVerdict(v));
    for (const [decisionId, call] of this.forwarded) {
      if (call.path[0]?.viaToolCallId === viaToolCallId)
        this.forwardFailed(decisionId, `the sub-agent run ${call.path[0].runId} ended before it took the decision`);
    }
    this.changed();
  }

  /** A sub-agent's verdict on a decision this run passed down: into this run's trail too. */
  private takeVerdict(verdict: DecisionRecord): void {
    const call = this.forwarded.get(verdict.decisionId);
    if (!call) return;
    this.forwarded.delete(verdict.decisionId);
    if (!verdict.accepted && this.decided.get(call.toolCallId)?.decisionId === verdict.decisionId)
      this.decided.delete(call.toolCallId);
    this.record({ ...verdict, toolCallId: call.toolCallId });
  }

  private forwardFailed(decisionId: string, message: string): void {
    const call = this.forwarded.get(decisionId);
    if (!call) return;
    this.forwarded.delete(decisionId);
    const record = this.decided.get(call.toolCallId);
    if (record?.decisionId === decisionId) this.decided.delete(call.toolCallId);
    if (record) this.record({ ...record, accepted: false, refusal: { type: 'UnknownToolCall', message } });
  }

  /** Records the verdict on resume data, once the tool has checked it. */
  recordResume(resolution: Resolution, rejection: string | undefined): void {
    const record: DecisionRecord = rejection
      ? {
          ...resolution.record,
          accepted: false,
          refusal: { type: 'InvalidResumeData', message: truncate(rejection, 1000) },
        }
      : resolution.record;
    this.record(record);
  }

  /** Whether the trail has the verdict on this decision yet. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.decisions.find((d) => d.decisionId === decisionId);
  }

  finish(status: 'completed' | 'failed' | 'cancelled'): void {
    this.status = status;
    this.own.length = 0;
    this.children.clear();
    this.changed();
  }

  private publishWaiting(entry: PendingToolCall): void {
    const ids = {
      toolCallId: entry.toolCallId,
      toolName: entry.toolName,
      args: entry.args,
      fingerprint: entry.fingerprint,
    };
    if (entry.kind === 'approval') this.publish({ type: 'tool-call-approval', ...ids });
    else
      this.publish({
        type: 'tool-call-suspended',
        ...ids,
        ...(entry.suspendPayload !== undefined ? { payload: entry.suspendPayload } : {}),
      });
  }

  /** Ends the stream's segment with a `suspended` finish once nothing can go on without a decision. */
  private maybePause(): void {
    if (this.paused || this.active > 0 || this.pending().length === 0) return;
    this.paused = true;
    const { result } = this.snapshot();
    this.publish({
      type: 'finish',
      finishReason: result.finishReason,
      text: result.text,
      usage: result.usage,
      pendingToolCalls: this.pending(),
    });
    this.report();
  }

  private resumeSegment(): void {
    if (!this.paused) return;
    this.paused = false;
    this.publish({ type: 'start', runId: this.runId, agentId: this.agentId, resumed: true });
    this.report();
  }

  private record(record: DecisionRecord): void {
    this.decisions.push(record);
    upsertMemo({ [RUN_MEMO_KEY]: this.memo() });
    this.report();
  }

  private changed(): void {
    this.version++;
    if (!this.done) this.status = this.pending().length > 0 ? 'suspended' : 'running';
    upsertSearchAttributes([
      { key: AgentStatusKey, value: this.status },
      { key: AgentPendingToolCallsKey, value: this.pending().map((p) => p.toolCallId) },
    ]);
    upsertMemo({ [RUN_MEMO_KEY]: this.memo() });
    this.report();
  }

  /** Tells the parent run (if any) what this run waits on now, and its new verdicts. */
  private report(): void {
    if (!this.parent) return;
    const verdicts = this.decisions.slice(this.reportedVerdicts);
    this.reportedVerdicts = this.decisions.length;
    const report: ChildReport = {
      viaToolCallId: this.parent.toolCallId,
      runId: this.runId,
      agentId: this.agentId,
      seq: this.reports++,
      pending: this.pending(),
      paused: this.paused,
      verdicts,
    };
    // The parent may have ended (cancelled); then nobody needs the report.
    getExternalWorkflowHandle(this.parent.runId)
      .signal(childReportSignal, report)
      .catch(() => undefined);
  }
}

/** What a resumed call hands to the tool. */
export function resumeDataOf(resolution: Resolution): JsonValue {
  return resolution.decision.resumeData ?? null;
}
