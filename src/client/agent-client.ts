/**
 * The client of durable agent runs: start runs, follow them, and decide the tool calls they wait on.
 * Every run is a Temporal workflow whose id is the run id, and everything here reads Temporal itself
 * (memo, search attributes, visibility), so a brand-new process can pick up any run.
 */
import type { Client, Connection } from '@temporalio/client';
import { checkSearchAttributes, createSearchAttributesSetting } from '../connection/search-attributes.js';
import { rejectUnknownKeys } from '../options.js';
import type { Tracing } from '../tracing/tracing.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';
import type { OutputSchema, StructuredObject } from '../structured-output.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';
import type { ToolInfo } from '../schemas/tool-info.js';
import type { AgentClientOptions, ClientBehaviour } from './client-options.js';
import { ClientDecisions } from './client-decisions.js';
import type { NextPauseAfter } from './decisions/waiting.js';
import { AgentHandle } from './agent-handle.js';
import type { ReceiptsTarget } from './runs/receipts.js';
import type { Receipt } from '../schemas/receipts.js';
import type { RunPrompt, StartOptions, StreamOptions } from './runs/run-input.js';
import { subscribe, subscribeBatches, type RunStream } from './stream/run-stream.js';
import { StreamFeeds } from './stream/stream-feed.js';
import type { ToolRunOptions, ToolRunStarted } from './tools.js';

// What a method does is imported when it is first called: the schemas, zod and the protocol load then,
// not with the client's entry, whose import time is an application's start-up time.

/**
 * Starts agent runs, follows them, and decides the tool calls they wait on with one verb,
 * {@link AgentClient.decide} (Mastra's names stay as deprecated aliases, and on `getAgent(id)`).
 */
export class AgentClient extends ClientDecisions {
  /** The Temporal client underneath, for anything this class does not cover. */
  readonly temporal: Client;
  readonly taskQueue: string;
  private readonly ownConnection: Connection | undefined;
  private readonly ownTracing: Tracing | undefined;

  constructor(
    args: { client: Client; taskQueue: string; ownConnection?: Connection; ownTracing?: Tracing } & ClientBehaviour,
  ) {
    super(
      {
        temporal: args.client,
        namespace: args.client.options.namespace,
        taskQueue: args.taskQueue,
        feeds: new StreamFeeds(args.client),
      },
      {
        warn: args.warn ?? ((m) => console.warn(m)),
        principal: args.principal,
        signingKey: args.signingKey,
      },
    );
    this.temporal = args.client;
    this.taskQueue = args.taskQueue;
    this.ownConnection = args.ownConnection;
    this.ownTracing = args.ownTracing;
  }

  /** Connects from the environment or a Temporal config profile; settings given here win. */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    const { connectClient } = await import('./connect.js');
    return new AgentClient(await connectClient(options));
  }

  get namespace(): string {
    return this.ctx.namespace;
  }

  /**
   * One agent's view of this client, with Mastra's agent methods (`stream`, `generate`,
   * `approveToolCall`, `resumeStream`, `listSuspendedRuns` in the `{ runs }` shape, ...): code written
   * for Mastra's `mastra.getAgent(id)` runs against it.
   */
  getAgent(agentId: string): AgentHandle {
    return new AgentHandle(this, agentId);
  }

  /**
   * Starts a run and returns its id without waiting. On a thread whose run of this agent waits on a
   * call the message may decide (`autoResumeSuspendedTools`), the message resumes that run instead,
   * and its id is returned (see {@link generate}).
   */
  async start(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<{ runId: string }> {
    const { startOrResume } = await import('./runs/start-or-resume.js');
    return startOrResume(this.ctx, this.actor, agentId, prompt, options);
  }

  /**
   * Starts a run that streams: returns at once with the run id, as a {@link RunStream} of chunks
   * (`text-delta`, `tool-call`, `tool-result`, `tool-error`, `tool-call-approval`,
   * `tool-call-suspended`, `step-finish`, `finish`, `error`, ...) up to the first pause or the end.
   */
  async stream<S extends OutputSchema = never>(
    agentId: string,
    prompt: RunPrompt,
    options: StreamOptions<S> = {},
  ): Promise<RunStream<StructuredObject<S>>> {
    const { streamOrResume } = await import('./runs/start-or-resume.js');
    return streamOrResume(this.ctx, this.actor, agentId, prompt, options);
  }

  /**
   * Reads a run's chunks from `fromOffset` (default 0) to the end of that segment. Reconnecting
   * with the last offset seen + 1 gives every chunk once. When the run has closed before the end
   * was read, the last chunk is made from the run's result (`offset` -1). An offset past the end of
   * the stream is refused with `StreamOffsetError`. Aborting `signal` ends the reading at once.
   *
   * Reading costs the run nothing (no history, no update slots): every reader of a run through this
   * client shares one poller of the run's `readStream` query.
   */
  subscribe(
    runId: string,
    options: { fromOffset?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunStreamChunk, void, undefined> {
    rejectUnknownKeys('subscribe', options, ['fromOffset', 'signal']);
    return subscribe(this.ctx, runId, options.fromOffset ?? 0, options.signal);
  }

  /**
   * {@link subscribe}, a batch at a time: each batch holds the chunks one read of the run brought (never
   * empty), for a relay that forwards them with one write per batch rather than one per chunk.
   */
  subscribeBatches(
    runId: string,
    options: { fromOffset?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunStreamChunk[], void, undefined> {
    rejectUnknownKeys('subscribeBatches', options, ['fromOffset', 'signal']);
    return subscribeBatches(this.ctx, runId, options.fromOffset ?? 0, options.signal);
  }

  /**
   * The chunks a run's stream already holds from `fromOffset` (default 0) up to `toOffset` (not
   * included), without waiting; none once the run has closed. A `toOffset` past the end of the
   * stream is refused with `StreamOffsetError`.
   */
  async readChunks(runId: string, options: { fromOffset?: number; toOffset: number }): Promise<RunStreamChunk[]> {
    rejectUnknownKeys('readChunks', options, ['fromOffset', 'toOffset']);
    const { readChunks } = await import('./stream/read-stream.js');
    return readChunks(this.ctx, runId, options.fromOffset ?? 0, options.toOffset);
  }

  /**
   * Starts a run and waits until it finishes or pauses. A paused run returns `finishReason:
   * 'suspended'` with `suspendPayload` and `pendingToolCalls`.
   *
   * Auto-resume (`autoResumeSuspendedTools`, on the agent's `defaultOptions` or here): on a thread
   * whose run of this agent is suspended, the message resumes that run's call instead of starting a
   * new run: the model extracts the data for the tool's `resumeSchema` from it, and the run's next
   * result is returned. A message that does not give valid data is refused with
   * `InvalidResumeDataError` saying what is missing; the call still waits.
   *
   * Structured output (`structuredOutput: { schema }`, or the agent's own): a finished run's
   * `result.object` is the model's answer as the schema makes it, typed; a run that finished without
   * it throws `StructuredOutputError` with the reason and the model's text.
   */
  async generate<S extends OutputSchema = never>(
    agentId: string,
    prompt: RunPrompt,
    options: StartOptions<S> = {},
  ): Promise<RunResult<StructuredObject<S>>> {
    const { generateOrResume } = await import('./runs/start-or-resume.js');
    return generateOrResume(this.ctx, this.actor, agentId, prompt, options);
  }

  /** Waits until the run finishes and returns its result; throws `RunFailedError` if it failed. */
  async result(runId: string): Promise<RunResult> {
    const { runResult } = await import('./decisions/waiting.js');
    return runResult(this.ctx, runId);
  }

  /** Waits until the run pauses (now or later) or finishes, and returns the result then. */
  async next(runId: string, after: NextPauseAfter = {}): Promise<RunResult> {
    rejectUnknownKeys('next', after, ['afterVersion', 'decisionId']);
    const { nextResult } = await import('./decisions/waiting.js');
    return nextResult(this.ctx, runId, after);
  }

  /**
   * The receipts of a run's decisions, oldest first (see docs/guides/receipts.md): each chained to the one
   * before by its hash, as `agentctl audit export` writes them. Or those taken between `since` and `until`
   * in every run (of `resourceId` only, when given; at most `limit` runs). A worker of the runs' agents
   * answers; `ReceiptsUnavailableError` when none does.
   */
  async receipts(target: ReceiptsTarget): Promise<Receipt[]> {
    const { receiptsBetween, runReceipts } = await import('./runs/receipts.js');
    if ('runId' in target) {
      rejectUnknownKeys('receipts', target, ['runId']);
      return runReceipts(this.ctx, target.runId);
    }
    rejectUnknownKeys('receipts', target, ['since', 'until', 'resourceId', 'limit']);
    return receiptsBetween(this.ctx, target);
  }

  /**
   * Waits up to `timeoutMs` (default 3 s) until a worker has taken a new run (described its agent),
   * for callers that do not wait for the run itself: a run that failed at once (an unknown agent,
   * options its agent does not allow) throws `RunFailedError`. `queued`: no worker took it yet.
   */
  async confirmStart(runId: string, timeoutMs = 3000): Promise<'started' | 'queued'> {
    const { confirmStart } = await import('./runs/started.js');
    return confirmStart(this.ctx, runId, timeoutMs);
  }

  /**
   * The tools the workers of this client's task queue serve (of `agentId` only, when given): id,
   * description, JSON schemas, and for each agent that has the tool its name there and what its policy
   * makes of a call (approval, who decides). Only a worker knows them: one is asked, through a short
   * workflow; `NoWorkerError` when none answers within `timeoutMs` (default 10 s; 2 s where no worker
   * polls the task queue at all).
   */
  async listTools(options: { agentId?: string; timeoutMs?: number } = {}): Promise<ToolInfo[]> {
    rejectUnknownKeys('listTools', options, ['agentId', 'timeoutMs']);
    const { listTools } = await import('./tools.js');
    const tools = await listTools(this.ctx, options.timeoutMs);
    const { agentId } = options;
    if (agentId === undefined) return tools;
    return tools
      .map((t) => ({ ...t, agents: t.agents.filter((a) => a.agentId === agentId) }))
      .filter((t) => t.agents.length > 0);
  }

  /**
   * The tool with this id, as {@link listTools} describes it (its owners narrowed to `agentId`, when
   * given). `UnknownToolError` when the workers have no such tool.
   */
  async getTool(toolId: string, options: { agentId?: string; timeoutMs?: number } = {}): Promise<ToolInfo> {
    rejectUnknownKeys('getTool', options, ['agentId', 'timeoutMs']);
    const { listTools } = await import('./tools.js');
    const { findTool } = await import('../schemas/tool-info.js');
    return findTool(await listTools(this.ctx, options.timeoutMs), toolId, options.agentId);
  }

  /**
   * Starts a tool run: one call of the tool with this input, made by the caller instead of a model, as
   * a run of the agent that has the tool (`agentId` where several have it). The input is checked
   * against the tool's input schema before anything starts (`InvalidInputError` naming the field). The
   * agent's policy applies as to any call: a tool that requires approval waits for someone to approve
   * it (by default not the one who started the run); hooks, transforms and the idempotency key apply.
   * The run ends with the call's outcome; nothing calls a model.
   */
  async startToolRun(toolId: string, input: JsonValue, options: ToolRunOptions = {}): Promise<ToolRunStarted> {
    const { principal, warn } = this.actor;
    const { startToolRun } = await import('./tools.js');
    return startToolRun(this.ctx, { toolId, input, options, principal, warn });
  }

  /**
   * Runs a tool ({@link startToolRun}) and waits until the run finishes or pauses. The call's output or
   * error is in `steps[0].toolResults[0]`; a call that waits for approval returns `finishReason:
   * 'suspended'` with the pending call, to approve like any other.
   */
  async runTool(toolId: string, input: JsonValue, options: ToolRunOptions = {}): Promise<RunResult> {
    const { runId } = await this.startToolRun(toolId, input, options);
    return this.next(runId);
  }

  /**
   * Checks that the namespace has the search attributes runs write and lists read, throwing
   * `SearchAttributesMissingError` (the missing ones, and the command that creates them) when it does
   * not; with `create: true`, creates them where this client's credentials allow. Resolves `unchecked`
   * (and warns) where the server will not list them to this client. `agentctl` and `startServer` call it
   * before they work on a namespace.
   */
  async checkSearchAttributes(options: { create?: boolean } = {}): Promise<'checked' | 'created' | 'unchecked'> {
    rejectUnknownKeys('checkSearchAttributes', options, ['create']);
    const { temporal, namespace } = this.ctx;
    const create = createSearchAttributesSetting(options.create, 'checkSearchAttributes');
    const check = { warn: this.actor.warn, create, who: 'this client' };
    return checkSearchAttributes(temporal.connection.operatorService, namespace, check);
  }

  /**
   * Closes the connection this client opened (none when it was given a Temporal client), and sends
   * the spans of the tracing it set up from the environment.
   */
  async close(): Promise<void> {
    await this.ownConnection?.close();
    await this.ownTracing?.shutdown();
  }
}
