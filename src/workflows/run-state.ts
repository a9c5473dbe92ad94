/**
 * The state of one run inside its workflow: conversation, steps, the calls it waits on and the
 * decision trail. It mirrors what others need to see into the memo and search attributes, so that
 * a process with no worker can find the run and check a decision against it.
 */
import { condition, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { WorkflowStream, type WorkflowTopicHandle } from '@temporalio/workflow-streams/workflow';
import { RUN_CHUNK_TOPIC, type RunChunk } from '../stream-chunks.js';
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
import type { RunSnapshot } from './messages.js';
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

export class RunState {
  status: RunStatus = 'running';
  version = 0;
  readonly messages: Message[];
  readonly steps: StepRecord[] = [];
  private current: { stepNumber: number; model: CallModelOutput; outcomes: Map<string, ToolOutcome> } | undefined;
  private readonly pending: PendingToolCall[] = [];
  private readonly decisions: DecisionRecord[] = [];
  private readonly decided = new Map<string, DecisionRecord>();
  private readonly resolutions = new Map<string, Resolution>();
  /** The run's durable stream (@temporalio/workflow-streams): subscribers read it by offset. */
  readonly stream = new WorkflowStream();
  private readonly chunks: WorkflowTopicHandle<RunChunk> = this.stream.topic<RunChunk>(RUN_CHUNK_TOPIC);
  /** Tool calls of the current step that are neither finished nor waiting on a decision. */
  private active = 0;
  /** Whether the stream's current segment ended with a pause. */
  private paused = false;

  constructor(
    readonly runId: string,
    readonly agentId: string,
    messages: Message[],
  ) {
    this.messages = [...messages];
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

  /** Ends the stream's segment with a `suspended` finish once nothing can go on without a decision. */
  private maybePause(): void {
    if (this.paused || this.active > 0 || this.pending.length === 0) return;
    this.paused = true;
    const { result } = this.snapshot();
    this.publish({ type: 'finish', finishReason: 'suspended', text: result.text, usage: result.usage, pendingToolCalls: [...this.pending] });
  }

  get done(): boolean {
    return this.status === 'completed' || this.status === 'failed';
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
      result: runResult({ runId: this.runId, agentId: this.agentId, steps, messages: this.messages, pending: [...this.pending] }),
    };
  }

  memo(): RunMemo {
    return { status: this.status, version: this.version, pendingToolCalls: [...this.pending], decisions: this.decisions.slice(-MEMO_DECISIONS) };
  }

  /** Waits until a decision resolves this call, which is pending meanwhile. */
  async waitForDecision(call: ModelToolCall, pending: Omit<PendingToolCall, 'toolCallId' | 'toolName' | 'args' | 'fingerprint'>): Promise<Resolution> {
    const entry: PendingToolCall = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, fingerprint: call.fingerprint, ...pending };
    this.pending.push(entry);
    this.changed();
    const ids = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, fingerprint: call.fingerprint };
    this.publish(
      entry.requiresApproval
        ? { type: 'tool-call-approval', ...ids }
        : { type: 'tool-call-suspended', ...ids, ...(entry.suspendPayload !== undefined ? { payload: entry.suspendPayload } : {}) },
    );
    this.active--;
    this.maybePause();
    await condition(() => this.resolutions.has(call.toolCallId));
    this.active++;
    const resolution = this.resolutions.get(call.toolCallId)!;
    this.resolutions.delete(call.toolCallId);
    return resolution;
  }

  /** Applies an approve, decline or resume signal: accepted, it resolves the call; refused, it is only recorded. */
  decide(kind: DecisionKind, raw: unknown): void {
    const at = new Date().toISOString();
    const parsed = safeParse(DecisionSignalSchema, raw);
    if (!parsed.success) {
      const id = typeof raw === 'object' && raw && 'decisionId' in raw && typeof raw.decisionId === 'string' ? raw.decisionId : 'invalid';
      const check: DecisionCheck = { accepted: false, type: 'InvalidDecision', message: `the ${kind} signal does not fit its schema: ${parsed.error}` };
      this.record(decisionRecord(kind, { decisionId: truncate(id, 100) }, at, check));
      return;
    }
    const decision = parsed.data;
    if (decision.clientRefusal) {
      const call = this.pending.find((c) => c.toolCallId === decision.toolCallId);
      this.record(decisionRecord(kind, decision, at, { accepted: false, ...decision.clientRefusal, call }));
      return;
    }
    if (this.done) {
      this.record(decisionRecord(kind, decision, at, { accepted: false, type: 'NothingPending', message: `the run has ${this.status}` }));
      return;
    }
    const check = checkDecision(kind, decision, this.pending, this.decided);
    if (!check.accepted) {
      this.record(decisionRecord(kind, decision, at, check));
      return;
    }
    const record = decisionRecord(kind, decision, at, check);
    this.pending.splice(this.pending.indexOf(check.call), 1);
    // Marked decided at once, so that a second decision while the tool checks resume data is refused as such.
    this.decided.set(check.call.toolCallId, record);
    // A resume is only recorded once the tool has checked the data against its resumeSchema.
    if (kind !== 'resume') this.record(record);
    this.resolutions.set(check.call.toolCallId, { kind, decision, record });
    if (this.paused) {
      this.paused = false;
      this.publish({ type: 'start', runId: this.runId, agentId: this.agentId, resumed: true });
    }
    this.changed();
  }

  /** Records the verdict on resume data, once the tool has checked it. */
  recordResume(resolution: Resolution, rejection: string | undefined): void {
    const record: DecisionRecord = rejection
      ? { ...resolution.record, accepted: false, refusal: { type: 'InvalidResumeData', message: truncate(rejection, 1000) } }
      : resolution.record;
    this.record(record);
  }

  /** Whether the trail has the verdict on this decision yet. */
  verdict(decisionId: string): DecisionRecord | undefined {
    return this.decisions.find((d) => d.decisionId === decisionId);
  }

  finish(status: 'completed' | 'failed'): void {
    this.status = status;
    this.pending.length = 0;
    this.changed();
  }

  private record(record: DecisionRecord): void {
    this.decisions.push(record);
    upsertMemo({ [RUN_MEMO_KEY]: this.memo() });
  }

  private changed(): void {
    this.version++;
    if (!this.done) this.status = this.pending.length > 0 ? 'suspended' : 'running';
    upsertSearchAttributes([
      { key: AgentStatusKey, value: this.status },
      { key: AgentPendingToolCallsKey, value: this.pending.map((p) => p.toolCallId) },
    ]);
    upsertMemo({ [RUN_MEMO_KEY]: this.memo() });
  }
}

/** What a resumed call hands to the tool. */
export function resumeDataOf(resolution: Resolution): JsonValue {
  return resolution.decision.resumeData ?? null;
}
