import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { z } from 'zod';
import { resolveConnection, type ConnectionSettings } from '../config.js';
import {
  decisionRefused,
  InvalidRunOptionsError,
  RunFailedError,
  RunNotFoundError,
  RunNotWaitingError,
} from '../errors.js';
import {
  MessageSchema,
  RefusalTypeSchema,
  RUN_MEMO_KEY,
  RunMemoSchema,
  RunOptionsSchema,
  RunResultSchema,
  type DecisionKind,
  type DecisionRecord,
  type DecisionSignal,
  type JsonValue,
  type Message,
  type PendingToolCall,
  type RunInput,
  type RunMemo,
  type RunOptions,
  type RunResult,
  type RunStatus,
} from '../schemas.js';
import { endsSegment, RUN_CHUNK_TOPIC, RunChunkSchema, type RunChunk, type RunStreamChunk } from '../stream-chunks.js';
import type { agentRun } from '../workflows/agent-run.js';
import { decisionSignals, nextPauseUpdate } from '../workflows/messages.js';
import { checkDecision } from '../workflows/pending-calls.js';
import {
  AgentIdKey,
  AgentResourceIdKey,
  AgentStatusKey,
  AgentThreadIdKey,
  startSearchAttributes,
} from '../workflows/search-attributes.js';

/** A prompt, or the conversation so far as AI SDK `ModelMessage`s. */
export type RunPrompt = string | Message[];

/** Options of {@link AgentClient.start} and {@link AgentClient.generate}. */
export interface StartOptions extends Omit<RunOptions, 'requireToolApproval'> {
  /** The run id (the Temporal workflow id); default `run-<uuid>`. */
  runId?: string;
  /**
   * Pause every tool call for approval. A function cannot be stored with the run: the run then
   * requires approval for every call (fail safe), and the client logs a warning saying so.
   */
  requireToolApproval?: boolean | ((...args: never[]) => unknown);
}

/** Options of {@link AgentClient.stream}. */
export interface StreamOptions extends StartOptions {
  /**
   * How long the finished run stays open so that subscribers can read its last chunks (default
   * 10 s). A subscriber that comes later still gets the final result, as a `finish` chunk.
   */
  streamGraceMs?: number;
}

/** The default of {@link StreamOptions.streamGraceMs}. */
export const DEFAULT_STREAM_GRACE_MS = 10_000;

/**
 * A run's chunks from an offset to the end of the current segment: the run finished (`finish`),
 * paused for a decision (`finish` with `finishReason: 'suspended'`), or failed (`error`).
 * Iterate it once; to read again, or after a disconnect, call {@link AgentClient.subscribe} with
 * the last offset + 1.
 */
export class RunStream implements AsyncIterable<RunStreamChunk> {
  constructor(
    private readonly client: AgentClient,
    readonly runId: string,
    readonly fromOffset: number,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<RunStreamChunk> {
    return this.client.subscribe(this.runId, { fromOffset: this.fromOffset })[Symbol.asyncIterator]();
  }
}

/** The options of {@link AgentClient.connect}. */
export type AgentClientOptions = ConnectionSettings & {
  /** Where warnings go (default `console.warn`). */
  warn?: (message: string) => void;
};

/** Which call a decision is about, and who makes it. */
export interface DecisionTarget {
  runId: string;
  /** Default: the most recent pending call of the fitting kind. */
  toolCallId?: string;
  /** When given, it must equal the pending call's fingerprint. */
  fingerprint?: string;
  /** Who decides, recorded in the run's decision trail. */
  by?: string;
}

/** A decision as sent: its id (to find it in the trail) and the call it is about. */
export interface SentDecision {
  decisionId: string;
  runId: string;
  kind: DecisionKind;
  call: PendingToolCall;
}

/** A run that waits on tool calls, as {@link AgentClient.listSuspendedRuns} finds it. */
export interface SuspendedRun {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  startTime: Date;
  pendingToolCalls: PendingToolCall[];
}

/** What {@link AgentClient.getRun} tells of a run, with no worker needed. */
export interface RunInfo {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  /** The run's own status; `running` before the workflow first reported one. */
  status: RunStatus;
  /** Temporal's status of the workflow (RUNNING, COMPLETED, FAILED, TERMINATED, ...). */
  workflowStatus: string;
  startTime: Date;
  closeTime: Date | undefined;
  pendingToolCalls: PendingToolCall[];
  /** The most recent decisions, accepted or refused, with who, when and why. */
  decisions: DecisionRecord[];
}

function memoOf(memo: Record<string, unknown> | undefined): RunMemo | undefined {
  const parsed = RunMemoSchema.safeParse(memo?.[RUN_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

function keyword(
  info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes'>,
  key: typeof AgentIdKey,
): string | undefined {
  return info.typedSearchAttributes.get(key);
}

/**
 * Starts agent runs, follows them, and decides the tool calls they wait on. Every run is a Temporal
 * workflow whose id is the run id, and everything here reads Temporal itself (memo, search
 * attributes, visibility), so a brand-new process can pick up any run.
 */
export class AgentClient {
  /** The Temporal client underneath, for anything this class does not cover. */
  readonly temporal: Client;
  readonly taskQueue: string;
  private readonly ownConnection: Connection | undefined;
  private readonly warn: (message: string) => void;

  constructor(args: {
    client: Client;
    taskQueue: string;
    ownConnection?: Connection;
    warn?: (message: string) => void;
  }) {
    this.temporal = args.client;
    this.taskQueue = args.taskQueue;
    this.ownConnection = args.ownConnection;
    this.warn = args.warn ?? ((m) => console.warn(m));
  }

  /** Connects from the environment or a Temporal config profile; settings given here win. */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    const { connectionOptions, namespace, taskQueue } = resolveConnection(options);
    const connection = await Connection.connect({
      address: connectionOptions.address,
      tls: connectionOptions.tls,
      apiKey: connectionOptions.apiKey,
      metadata: connectionOptions.metadata,
    });
    return new AgentClient({
      client: new Client({ connection, namespace }),
      taskQueue,
      ownConnection: connection,
      warn: options.warn,
    });
  }

  get namespace(): string {
    return this.temporal.options.namespace;
  }

  /** Starts a run and returns its id without waiting. */
  async start(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<{ runId: string }> {
    return this.startRun(agentId, prompt, options, undefined);
  }

  /**
   * Starts a run that streams: returns at once with the run id, as a {@link RunStream} of chunks
   * (`text-delta`, `tool-call`, `tool-result`, `tool-error`, `tool-call-approval`,
   * `tool-call-suspended`, `step-finish`, `finish`, `error`, ...) up to the first pause or the end.
   */
  async stream(agentId: string, prompt: RunPrompt, options: StreamOptions = {}): Promise<RunStream> {
    const { streamGraceMs = DEFAULT_STREAM_GRACE_MS, ...startOptions } = options;
    const { runId } = await this.startRun(agentId, prompt, startOptions, { graceMs: streamGraceMs });
    return new RunStream(this, runId, 0);
  }

  /**
   * Reads a run's chunks from `fromOffset` (default 0) to the end of that segment. Reconnecting
   * with the last offset seen + 1 gives every chunk once. When the run has closed before the end
   * was read, the last chunk is made from the run's result (`offset` -1).
   */
  async *subscribe(
    runId: string,
    options: { fromOffset?: number } = {},
  ): AsyncGenerator<RunStreamChunk, void, undefined> {
    const streamClient = WorkflowStreamClient.create(this.temporal, runId);
    try {
      for await (const item of streamClient.topic<RunChunk>(RUN_CHUNK_TOPIC).subscribe(options.fromOffset ?? 0)) {
        const chunk = RunChunkSchema.parse(item.data);
        yield { ...chunk, offset: item.offset };
        if (endsSegment(chunk)) return;
      }
    } catch (err) {
      throw this.runError(runId, err);
    }
    try {
      const result = await this.result(runId);
      yield {
        type: 'finish',
        finishReason: result.finishReason,
        text: result.text,
        usage: result.usage,
        pendingToolCalls: [],
        offset: -1,
      };
    } catch (err) {
      if (!(err instanceof RunFailedError)) throw err;
      yield { type: 'error', error: err.reason, offset: -1 };
    }
  }

  private async startRun(
    agentId: string,
    prompt: RunPrompt,
    options: StartOptions,
    stream: RunInput['stream'],
  ): Promise<{ runId: string }> {
    const { runId = `run-${randomUUID()}`, ...runOptions } = options;
    const input: RunInput = { ...this.runInput(agentId, prompt, runOptions), ...(stream ? { stream } : {}) };
    await this.temporal.workflow.start<typeof agentRun>('agentRun', {
      workflowId: runId,
      taskQueue: this.taskQueue,
      args: [input],
      typedSearchAttributes: startSearchAttributes(agentId, input.options),
    });
    return { runId };
  }

  /**
   * Starts a run and waits until it finishes or pauses. A paused run returns `finishReason:
   * 'suspended'` with `suspendPayload` and `pendingToolCalls`.
   */
  async generate(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<RunResult> {
    const { runId } = await this.start(agentId, prompt, options);
    return this.next(runId);
  }

  /** Waits until the run finishes and returns its result; throws {@link RunFailedError} if it failed. */
  async result(runId: string): Promise<RunResult> {
    const handle: WorkflowHandle<typeof agentRun> = this.temporal.workflow.getHandle(runId);
    try {
      return RunResultSchema.parse(await handle.result());
    } catch (err) {
      throw this.runError(runId, err);
    }
  }

  /** Waits until the run pauses (now or later) or finishes, and returns the result then. */
  async next(runId: string, after: { afterVersion?: number; decisionId?: string } = {}): Promise<RunResult> {
    const handle = this.temporal.workflow.getHandle(runId);
    try {
      let snapshot = await handle.executeUpdate(nextPauseUpdate, { args: [after] });
      // `running` means the run handed over to a fresh history (continue-as-new): ask the new one.
      while (snapshot.status === 'running') snapshot = await handle.executeUpdate(nextPauseUpdate, { args: [after] });
      // A completed run's snapshot is its result; no need to wait out a stream's grace period.
      if (snapshot.status === 'suspended' || snapshot.status === 'completed')
        return RunResultSchema.parse(snapshot.result);
    } catch (err) {
      const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure) {
        const type = RefusalTypeSchema.safeParse(cause.type);
        if (type.success) throw decisionRefused(runId, type.data, cause.message);
      }
      // A run that finished before the update completed: its result says how it ended.
      const finished =
        isFinishedError(err) ||
        (cause instanceof ApplicationFailure && cause.type === 'AcceptedUpdateCompletedWorkflow');
      if (!finished) throw this.runError(runId, err);
      if (after.decisionId) {
        const verdict = (await this.getRun(runId)).decisions.find((d) => d.decisionId === after.decisionId);
        if (verdict?.refusal) throw decisionRefused(runId, verdict.refusal.type, verdict.refusal.message);
      }
    }
    return this.result(runId);
  }

  /** Approves a pending tool call; returns the run's stream from there to the next pause or the end. */
  async approveToolCall(target: DecisionTarget): Promise<RunStream> {
    return this.decideStream('approve', target);
  }

  /** Approves a pending tool call and returns the run's next result: final, or the next pause. */
  async approveToolCallGenerate(target: DecisionTarget): Promise<RunResult> {
    const sent = await this.sendDecision('approve', target);
    return this.next(target.runId, { decisionId: sent.decisionId });
  }

  /** Declines a pending tool call (it does not run; the model is told why); returns the stream from there. */
  async declineToolCall(target: DecisionTarget & { reason?: string }): Promise<RunStream> {
    return this.decideStream('decline', target);
  }

  /** Declines a pending tool call (it does not run; the model is told why) and returns the next result. */
  async declineToolCallGenerate(target: DecisionTarget & { reason?: string }): Promise<RunResult> {
    const sent = await this.sendDecision('decline', target);
    return this.next(target.runId, { decisionId: sent.decisionId });
  }

  /** Resumes a suspended tool call with data for its `resumeSchema`; returns the stream from there. */
  async resumeStream(resumeData: JsonValue, target: DecisionTarget): Promise<RunStream> {
    return this.decideStream('resume', { ...target, resumeData });
  }

  /** Resumes a suspended tool call with data for its `resumeSchema`; returns the next result. */
  async resumeGenerate(resumeData: JsonValue, target: DecisionTarget): Promise<RunResult> {
    const sent = await this.sendDecision('resume', { ...target, resumeData });
    return this.next(target.runId, { decisionId: sent.decisionId });
  }

  /** Supplies a client tool's result (a tool without `execute`, at any depth); returns the stream from there. */
  async submitToolResult(target: DecisionTarget & { result: JsonValue }): Promise<RunStream> {
    return this.decideStream('result', target);
  }

  /** Supplies a client tool's result; returns the next result: final, or the next pause. */
  async submitToolResultGenerate(target: DecisionTarget & { result: JsonValue }): Promise<RunResult> {
    const sent = await this.sendDecision('result', target);
    return this.next(target.runId, { decisionId: sent.decisionId });
  }

  /** Sends a decision and returns the stream from the offset the run had reached before it. */
  private async decideStream(
    kind: DecisionKind,
    target: DecisionTarget & { reason?: string; resumeData?: JsonValue; result?: JsonValue },
  ): Promise<RunStream> {
    await this.getRun(target.runId); // a missing run is RunNotFoundError, not a failed query
    const offset = await WorkflowStreamClient.create(this.temporal, target.runId).getOffset();
    // The run may finish right after this decision: it stays readable for the stream's grace period.
    await this.sendDecision(kind, { ...target, streamGraceMs: DEFAULT_STREAM_GRACE_MS });
    return new RunStream(this, target.runId, offset);
  }

  /**
   * Checks a decision against the run as Temporal shows it (memo; no worker needed) and sends it as
   * a signal, without waiting for the run to go on. A refusal throws a {@link DecisionRefusedError}
   * subclass; it is still signalled (so the history records it), except resume data that fails the
   * tool's resumeSchema, which is refused before signalling. The workflow checks again and records
   * its verdict in the run's decision trail.
   */
  async sendDecision(
    kind: DecisionKind,
    target: DecisionTarget & { reason?: string; resumeData?: JsonValue; result?: JsonValue; streamGraceMs?: number },
  ): Promise<SentDecision> {
    const info = await this.getRun(target.runId);
    // A finished run may stay open a while (a stream's grace period); it takes no decisions either.
    if (info.closeTime || info.status === 'completed' || info.status === 'failed') {
      throw new RunNotWaitingError(target.runId, info.closeTime ? info.workflowStatus.toLowerCase() : info.status);
    }
    const decided = new Map(info.decisions.filter((d) => d.accepted && d.toolCallId).map((d) => [d.toolCallId!, d]));
    const check = checkDecision(kind, target, info.pendingToolCalls, decided);
    if (check.accepted && kind === 'resume') this.checkResumeData(target.runId, check.call, target.resumeData);

    const decision: DecisionSignal = {
      decisionId: randomUUID(),
      ...((check.call?.toolCallId ?? target.toolCallId) !== undefined
        ? { toolCallId: check.call?.toolCallId ?? target.toolCallId }
        : {}),
      ...(target.fingerprint !== undefined ? { fingerprint: target.fingerprint } : {}),
      ...(target.by !== undefined ? { by: target.by } : {}),
      ...(target.reason !== undefined ? { reason: target.reason } : {}),
      ...(kind === 'resume' && check.accepted ? { resumeData: target.resumeData ?? null } : {}),
      ...(kind === 'result' && check.accepted ? { result: target.result ?? null } : {}),
      ...(target.streamGraceMs !== undefined ? { streamGraceMs: target.streamGraceMs } : {}),
      // A refused decision is sent all the same, so that the run's history records who tried what
      // and why it was refused; marked as refused, the workflow only records it and never applies it.
      ...(check.accepted ? {} : { clientRefusal: { type: check.type, message: check.message } }),
    };
    const signal = decisionSignals[kind];
    try {
      await this.temporal.workflow.getHandle(target.runId).signal(signal, decision);
    } catch (err) {
      // The run closed between the check and the signal.
      if (err instanceof WorkflowNotFoundError)
        throw new RunNotWaitingError(target.runId, (await this.getRun(target.runId)).workflowStatus.toLowerCase());
      throw err;
    }
    if (!check.accepted) throw decisionRefused(target.runId, check.type, check.message);
    return { decisionId: decision.decisionId, runId: target.runId, kind, call: check.call };
  }

  /** A run's status, pending calls and decision trail, from Temporal (no worker needed). */
  async getRun(runId: string): Promise<RunInfo> {
    let description: WorkflowExecutionDescription;
    try {
      description = await this.temporal.workflow.getHandle(runId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(runId, this.namespace);
      throw err;
    }
    const memo = memoOf(description.memo);
    return {
      runId,
      agentId: keyword(description, AgentIdKey),
      threadId: keyword(description, AgentThreadIdKey),
      resourceId: keyword(description, AgentResourceIdKey),
      status: memo?.status ?? 'running',
      workflowStatus: description.status.name,
      startTime: description.startTime,
      closeTime: description.closeTime,
      pendingToolCalls: memo?.pendingToolCalls ?? [],
      decisions: memo?.decisions ?? [],
    };
  }

  /**
   * Every run that waits on tool calls, with the calls, found through Temporal visibility (search
   * attributes and memo), so it works from any process and after any restart.
   */
  async listSuspendedRuns(
    filter: { agentId?: string; threadId?: string; resourceId?: string } = {},
  ): Promise<SuspendedRun[]> {
    const runs = await this.listRuns({ ...filter, status: 'suspended', limit: Number.POSITIVE_INFINITY });
    return runs.map(({ runId, agentId, threadId, resourceId, startTime, pendingToolCalls }) => ({
      runId,
      agentId,
      threadId,
      resourceId,
      startTime,
      pendingToolCalls,
    }));
  }

  /** Lists runs by status (any when omitted), in the order visibility returns them (newest first on the dev server). */
  async listRuns(
    filter: { status?: RunStatus; agentId?: string; threadId?: string; resourceId?: string; limit?: number } = {},
  ): Promise<RunInfo[]> {
    const clauses = [`WorkflowType = 'agentRun'`];
    if (filter.status) clauses.push(`AgentStatus = ${quote(filter.status)}`);
    // A terminated or timed-out workflow keeps the status it last reported; it runs no more.
    if (filter.status === 'running' || filter.status === 'suspended') clauses.push(`ExecutionStatus = 'Running'`);
    if (filter.agentId) clauses.push(`AgentId = ${quote(filter.agentId)}`);
    if (filter.threadId) clauses.push(`AgentThreadId = ${quote(filter.threadId)}`);
    if (filter.resourceId) clauses.push(`AgentResourceId = ${quote(filter.resourceId)}`);
    const runs: RunInfo[] = [];
    for await (const info of this.temporal.workflow.list({ query: clauses.join(' AND ') })) {
      const memo = memoOf(info.memo);
      runs.push({
        runId: info.workflowId,
        agentId: keyword(info, AgentIdKey),
        threadId: keyword(info, AgentThreadIdKey),
        resourceId: keyword(info, AgentResourceIdKey),
        status: memo?.status ?? (info.typedSearchAttributes.get(AgentStatusKey) as RunStatus | undefined) ?? 'running',
        workflowStatus: info.status.name,
        startTime: info.startTime,
        closeTime: info.closeTime,
        pendingToolCalls: memo?.pendingToolCalls ?? [],
        decisions: memo?.decisions ?? [],
      });
      if (runs.length >= (filter.limit ?? 100)) break;
    }
    return runs;
  }

  /** Closes the connection this client opened (none when it was given a Temporal client). */
  async close(): Promise<void> {
    await this.ownConnection?.close();
  }

  private checkResumeData(runId: string, call: PendingToolCall, data: JsonValue | undefined): void {
    if (!call.resumeSchema) return;
    const schema = z.fromJSONSchema(call.resumeSchema as Parameters<typeof z.fromJSONSchema>[0]);
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw decisionRefused(
        runId,
        'InvalidResumeData',
        `resume data ${JSON.stringify(data)} does not fit the resumeSchema of tool call ${call.toolCallId} (${call.toolName}): ${z.prettifyError(parsed.error)}`,
      );
    }
  }

  private runError(runId: string, err: unknown): unknown {
    if (err instanceof WorkflowNotFoundError) return new RunNotFoundError(runId, this.namespace);
    if (err instanceof WorkflowFailedError) {
      const cause = err.cause;
      return new RunFailedError(
        runId,
        cause?.message ?? err.message,
        cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined,
      );
    }
    return err;
  }

  private runInput(agentId: string, prompt: RunPrompt, options: Omit<StartOptions, 'runId'>): RunInput {
    if (!agentId) throw new InvalidRunOptionsError('agentId must be a non-empty string');
    const { requireToolApproval, ...rest } = options;
    let approval: boolean | undefined;
    if (typeof requireToolApproval === 'function') {
      this.warn(
        'requireToolApproval: a function cannot be stored with a durable run, so this run requires approval for every tool call. ' +
          'Pass true or false, or set requireApproval on the tools that need it.',
      );
      approval = true;
    } else {
      approval = requireToolApproval;
    }
    const parsedOptions = RunOptionsSchema.safeParse({
      ...rest,
      ...(approval !== undefined ? { requireToolApproval: approval } : {}),
    });
    if (!parsedOptions.success) throw new InvalidRunOptionsError(z.prettifyError(parsedOptions.error));
    const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
    const parsedMessages = z.array(MessageSchema).min(1).safeParse(messages);
    if (!parsedMessages.success) throw new InvalidRunOptionsError(`messages: ${z.prettifyError(parsedMessages.error)}`);
    return { agentId, messages: parsedMessages.data, options: parsedOptions.data };
  }
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The server's answer to an update for a workflow that has already closed. */
function isFinishedError(err: unknown): boolean {
  return err instanceof Error && /workflow execution already completed|already completed/i.test(err.message);
}
