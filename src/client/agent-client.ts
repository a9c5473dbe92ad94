/**
 * The client of durable agent runs: start runs, follow them, and decide the tool calls they wait on.
 * Every run is a Temporal workflow whose id is the run id, and everything here reads Temporal itself
 * (memo, search attributes, visibility), so a brand-new process can pick up any run.
 */
import { Client, Connection } from '@temporalio/client';
import { loadPayloadCodec } from '../codec/payload-codec.js';
import { checkPayloadStore, loadExternalStorage } from '../codec/external-storage.js';
import { CONNECTION_SETTINGS, resolveConnection } from '../connection/config.js';
import { rejectUnknownKeys } from '../options.js';
import { tracingFromEnv } from '../tracing/config.js';
import type { Tracing } from '../tracing/tracing.js';
import type { DecisionKind } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';
import type { ClientContext } from './context.js';
import { principalOf, type PrincipalInput } from './identity.js';
import { signingKeyFromEnv, type SigningKey } from './decisions/signing.js';
import { readableRun, sendDecision, type Decision, type SentDecision } from './decisions/decisions.js';
import { decisionOf, type DecideThen, type DecisionRequest, type ThreadCall } from './decisions/decide.js';
import { autoResumeOnThread, type AutoResumed } from './decisions/auto-resume.js';
import { startRun, startRunWaiting } from './runs/start-run.js';
import {
  buildRunInput,
  DEFAULT_STREAM_GRACE_MS,
  streamGrace,
  type RunPrompt,
  type StartOptions,
  type StreamOptions,
} from './runs/run-input.js';
import { readChunks, RunStream, streamOffset, subscribe, subscribeBatches } from './stream/run-stream.js';
import { confirmStart } from './runs/started.js';
import { StreamFeeds } from './stream/stream-feed.js';
import { pickThreadCall } from './decisions/thread-decisions.js';
import { decisionRefused } from '../errors.js';
import type { AgentClientOptions, ClientBehaviour } from './client-options.js';
import { AgentHandle } from './agent-handle.js';
import { listBuilds, type BuildInfo } from './runs/builds.js';
import { getRun, listRuns, listSuspendedRuns, type RunFilter, type RunInfo, type SuspendedRun } from './runs/runs.js';
import { decisionTaken, nextResult, runResult, type NextPauseAfter } from './decisions/waiting.js';
import { findTool, type ToolInfo } from '../schemas/tool-info.js';
import {
  getThreadMessages,
  getWorkingMemory,
  getThreadTasks,
  listThreads,
  type ThreadFilter,
  type ThreadInfo,
  type ThreadMessages,
  type WorkingMemory,
  type ThreadTasks,
} from './threads.js';
import { listTools, startToolRun, type ToolRunOptions, type ToolRunStarted } from './tools.js';

/**
 * Starts agent runs, follows them, and decides the tool calls they wait on. The decision methods
 * carry Mastra's names; each kind of decision (approve, decline, resume, a client tool's result) goes
 * through one path, {@link AgentClient.sendDecision}, and returns either the run's stream from there
 * (`approveToolCall`, ...) or its next result (`approveToolCallGenerate`, ...).
 */
const THREAD_TARGET_KEYS = ['threadId', 'resourceId'];

export class AgentClient {
  /** The Temporal client underneath, for anything this class does not cover. */
  readonly temporal: Client;
  readonly taskQueue: string;
  private readonly ctx: ClientContext;
  private readonly ownConnection: Connection | undefined;
  private readonly ownTracing: Tracing | undefined;
  private readonly warn: (message: string) => void;
  private readonly principal: PrincipalInput | undefined;
  private readonly signingKey: SigningKey | undefined;

  constructor(
    args: { client: Client; taskQueue: string; ownConnection?: Connection; ownTracing?: Tracing } & ClientBehaviour,
  ) {
    this.temporal = args.client;
    this.taskQueue = args.taskQueue;
    this.ctx = {
      temporal: args.client,
      namespace: args.client.options.namespace,
      taskQueue: args.taskQueue,
      feeds: new StreamFeeds(args.client),
    };
    this.ownConnection = args.ownConnection;
    this.ownTracing = args.ownTracing;
    this.warn = args.warn ?? ((m) => console.warn(m));
    this.principal = args.principal;
    this.signingKey = args.signingKey;
  }

  /** Connects from the environment or a Temporal config profile; settings given here win. */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    rejectUnknownKeys('AgentClient.connect', options, [
      ...CONNECTION_SETTINGS,
      'codec',
      'externalStorage',
      'warn',
      'principal',
      'signingKey',
      'tracing',
    ] satisfies Array<keyof AgentClientOptions>);
    const { connectionOptions, namespace, taskQueue } = resolveConnection(options);
    const codec = options.codec ?? (await loadPayloadCodec());
    const externalStorage =
      options.externalStorage === false ? undefined : (options.externalStorage ?? (await loadExternalStorage()));
    if (externalStorage) await checkPayloadStore(externalStorage, 'client');
    const ownTracing = options.tracing === undefined ? await tracingFromEnv('durable-agents-client') : undefined;
    const tracing = options.tracing || ownTracing;
    const connection = await Connection.connect({
      address: connectionOptions.address,
      tls: connectionOptions.tls,
      apiKey: connectionOptions.apiKey,
      metadata: connectionOptions.metadata,
    });
    const client = new Client({
      connection,
      namespace,
      dataConverter: { payloadCodecs: [codec], ...(externalStorage ? { externalStorage } : {}) },
      ...(tracing ? { interceptors: { workflow: [tracing.clientInterceptor()] } } : {}),
    });
    const { warn, principal, signingKey = signingKeyFromEnv() } = options;
    return new AgentClient({ client, taskQueue, ownConnection: connection, ownTracing, warn, principal, signingKey });
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
    const resumed = await this.autoResume(agentId, prompt, options);
    if (resumed) return { runId: resumed.runId };
    return startRun(this.ctx, { agentId, prompt, options, principal: this.principal, warn: this.warn });
  }

  /**
   * Auto-resume: the message goes to the thread's waiting run when it may decide one of its calls
   * (see `autoResumeOnThread`); `undefined` when a new run is to start.
   */
  private async autoResume(
    agentId: string,
    prompt: RunPrompt,
    options: StartOptions,
    streamGraceMs?: number,
  ): Promise<AutoResumed | undefined> {
    if (!options.threadId || options.autoResumeSuspendedTools === false) return undefined;
    const { runId: _runId, principal: who, ...runOptions } = options;
    // Checked as a new run's input would be; warnings are the new run's to give, if one starts.
    const input = buildRunInput(agentId, prompt, runOptions, () => undefined);
    const principal = principalOf(who ?? this.principal, this.temporal.options.identity);
    return autoResumeOnThread(this.ctx, input, principal, streamGraceMs);
  }

  /**
   * Starts a run that streams: returns at once with the run id, as a {@link RunStream} of chunks
   * (`text-delta`, `tool-call`, `tool-result`, `tool-error`, `tool-call-approval`,
   * `tool-call-suspended`, `step-finish`, `finish`, `error`, ...) up to the first pause or the end.
   */
  async stream(agentId: string, prompt: RunPrompt, options: StreamOptions = {}): Promise<RunStream> {
    const { streamGraceMs, ...startOptions } = options;
    const resumed = await this.autoResume(agentId, prompt, startOptions, streamGrace(streamGraceMs));
    if (resumed) return new RunStream(this.ctx, resumed.runId, resumed.fromOffset ?? 0);
    const { runId } = await startRun(this.ctx, {
      agentId,
      prompt,
      options: startOptions,
      stream: { graceMs: streamGrace(streamGraceMs) },
      principal: this.principal,
      warn: this.warn,
    });
    return new RunStream(this.ctx, runId, 0);
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
   */
  async generate(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<RunResult> {
    const resumed = await this.autoResume(agentId, prompt, options);
    if (resumed) return this.next(resumed.runId, { decisionId: resumed.decisionId });
    const { runId, pause } = await startRunWaiting(this.ctx, {
      agentId,
      prompt,
      options,
      principal: this.principal,
      warn: this.warn,
    });
    return nextResult(this.ctx, runId, {}, pause);
  }

  /** Waits until the run finishes and returns its result; throws `RunFailedError` if it failed. */
  async result(runId: string): Promise<RunResult> {
    return runResult(this.ctx, runId);
  }

  /** Waits until the run pauses (now or later) or finishes, and returns the result then. */
  async next(runId: string, after: NextPauseAfter = {}): Promise<RunResult> {
    rejectUnknownKeys('next', after, ['afterVersion', 'decisionId']);
    return nextResult(this.ctx, runId, after);
  }

  /**
   * Decides a call a run waits on: `{ kind, runId, ... }` with `kind` one of `approve` (with changed
   * `args`, which must fit the tool's input schema), `decline` (with a `reason` the model reads),
   * `resume` (`resumeData` for the tool's `resumeSchema`), `result` (a client tool's `result`) or
   * `resolve` (an uncertain call: `action` retry, skip with an `output`, or fail). Approvals and
   * declines may name a `threadId` instead, to decide the call a run of the thread waits on. It is
   * checked against the run as Temporal shows it and against the agent's policy (a refusal throws a
   * `DecisionRefusedError` subclass and sends nothing), then sent as a signal, which the workflow
   * checks again. Returns the run's stream from there (`then: 'stream'`, the default), its next result
   * (`'result'`: final, or the next pause), or the decision as sent (`'sent'`).
   */
  decide(request: DecisionRequest, options?: { then?: 'stream' }): Promise<RunStream>;
  decide(request: DecisionRequest, options: { then: 'result' }): Promise<RunResult>;
  decide(request: DecisionRequest, options: { then: 'sent' }): Promise<SentDecision>;
  async decide(
    request: DecisionRequest,
    options: { then?: DecideThen } = {},
  ): Promise<RunStream | RunResult | SentDecision> {
    rejectUnknownKeys('decide options', options, ['then']);
    const { then = 'stream' } = options;
    const { kind, decision: given, thread } = decisionOf(request);
    const decision = thread ? await this.onThread(given, thread) : given;
    if (then === 'sent') return this.send(kind, decision);
    if (then === 'result') {
      const sent = await this.send(kind, decision);
      return this.next(decision.runId, { decisionId: sent.decisionId });
    }
    // A missing run (or another tenant's) is RunNotFoundError; nothing is read of one the caller may not read.
    const principal = principalOf(decision.principal ?? this.principal, this.temporal.options.identity);
    await readableRun(this.ctx, decision.runId, principal);
    const offset = await streamOffset(this.ctx, decision.runId);
    // The run may finish right after this decision: it stays readable for the stream's grace period.
    const sent = await this.send(kind, { ...decision, streamGraceMs: DEFAULT_STREAM_GRACE_MS });
    // A decider who lost a race hears so (AlreadyDecided), not the winner's stream.
    await decisionTaken(this.ctx, decision.runId, sent.decisionId);
    return new RunStream(this.ctx, decision.runId, offset);
  }

  /** Checks a decision and sends it, in the name of its principal (else the client's). */
  private async send(kind: DecisionKind, decision: Decision): Promise<SentDecision> {
    const principal = principalOf(decision.principal ?? this.principal, this.temporal.options.identity);
    return sendDecision(this.ctx, kind, { ...decision, principal }, this.signingKey);
  }

  /** The call a thread's runs wait on for approval, found through visibility, as a decision on its run. */
  private async onThread(decision: Decision, thread: ThreadCall): Promise<Decision> {
    const { threadId, resourceId, agentId, toolCallId, fingerprint } = thread;
    const runs = await this.listSuspendedRuns({ threadId, resourceId, agentId });
    const picked = pickThreadCall(threadId, runs, { toolCallId, fingerprint });
    if ('refusal' in picked) throw decisionRefused(`thread:${threadId}`, picked.refusal.type, picked.refusal.message);
    return { ...decision, runId: picked.runId, toolCallId: picked.call.toolCallId };
  }

  /**
   * Waits up to `timeoutMs` (default 3 s) until a worker has taken a new run (described its agent),
   * for callers that do not wait for the run itself: a run that failed at once (an unknown agent,
   * options its agent does not allow) throws `RunFailedError`. `queued`: no worker took it yet.
   */
  async confirmStart(runId: string, timeoutMs = 3000): Promise<'started' | 'queued'> {
    return confirmStart(this.ctx, runId, timeoutMs);
  }

  /** A run's status, pending calls and decision trail, from Temporal (no worker needed). */
  async getRun(runId: string): Promise<RunInfo> {
    return getRun(this.ctx, runId);
  }

  /**
   * Every run that waits on tool calls, with the calls, found through Temporal visibility (search
   * attributes and memo), so it works from any process and after any restart.
   */
  async listSuspendedRuns(
    filter: Pick<RunFilter, 'agentId' | 'threadId' | 'resourceId'> = {},
  ): Promise<SuspendedRun[]> {
    rejectUnknownKeys('listSuspendedRuns', filter, ['agentId', 'threadId', 'resourceId']);
    return listSuspendedRuns(this.ctx, filter);
  }

  /** Lists runs by status (any when omitted), in the order visibility returns them (newest first on the dev server). */
  async listRuns(filter: RunFilter = {}): Promise<RunInfo[]> {
    rejectUnknownKeys('listRuns', filter, ['status', 'agentId', 'threadId', 'resourceId', 'limit']);
    return listRuns(this.ctx, filter);
  }

  /**
   * The builds of the namespace's Worker Deployments (or of one), newest first, with the open
   * workflows each still has: a build that is neither current nor ramping and has nothing pinned to it
   * is `retirable`, its workers can go (see docs/upgrading.md).
   */
  async listBuilds(filter: { deploymentName?: string } = {}): Promise<BuildInfo[]> {
    rejectUnknownKeys('listBuilds', filter, ['deploymentName']);
    return listBuilds(this.ctx, filter);
  }

  /**
   * The threads of a resource (of every resource when none is given), most recently updated first:
   * from Temporal visibility, with no worker needed.
   */
  async listThreads(filter: ThreadFilter = {}): Promise<ThreadInfo[]> {
    rejectUnknownKeys('listThreads', filter, ['resourceId', 'limit']);
    return listThreads(this.ctx, filter);
  }

  /**
   * A thread's most recent messages (the last 100, within 256 KiB; `omittedMessages` says how many
   * older ones it keeps), oldest first, from the thread's memo: no worker needed.
   * `ThreadNotFoundError` when no run was started on it.
   */
  async getThreadMessages(target: { threadId: string; resourceId?: string }): Promise<ThreadMessages> {
    rejectUnknownKeys('getThreadMessages', target, THREAD_TARGET_KEYS);
    return getThreadMessages(this.ctx, target);
  }

  /**
   * A thread's working memory (`{ content, updatedAt, runId, agentId, ... }`), as the last
   * `updateWorkingMemory` call of a run on it stored it; null while none did. From the thread's memo:
   * no worker needed. `ThreadNotFoundError` when no run was started on it.
   */
  async getWorkingMemory(target: { threadId: string; resourceId?: string }): Promise<WorkingMemory | null> {
    rejectUnknownKeys('getWorkingMemory', target, THREAD_TARGET_KEYS);
    return getWorkingMemory(this.ctx, target);
  }

  /**
   * A thread's task list (what `task_write`, `task_update` and `task_complete` made of it), whole, with
   * its summary, from the thread's memo: no worker needed. Empty until a task tool wrote one.
   * `ThreadNotFoundError` when no run was started on the thread.
   */
  async getThreadTasks(target: { threadId: string; resourceId?: string }): Promise<ThreadTasks> {
    rejectUnknownKeys('getThreadTasks', target, THREAD_TARGET_KEYS);
    return getThreadTasks(this.ctx, target);
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
    return startToolRun(this.ctx, { toolId, input, options, principal: this.principal, warn: this.warn });
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
   * Closes the connection this client opened (none when it was given a Temporal client), and sends
   * the spans of the tracing it set up from the environment.
   */
  async close(): Promise<void> {
    await this.ownConnection?.close();
    await this.ownTracing?.shutdown();
  }
}
