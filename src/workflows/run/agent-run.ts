/**
 * One agent run, as one Temporal workflow: describe the agent, then call the model and run the
 * tools it asks for, step by step, until the model stops or the step limit is reached. A tool call
 * that needs approval, or a tool that suspends, makes the run wait for a decision signal.
 *
 * Deterministic orchestration only: every model call and tool execution is an activity.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities, CallModelInput, CallModelOutput, ModelToolCall } from '../../protocol/activities.js';
import { canStart } from '../../approvals/access.js';
import { escalationDeciders } from '../../approvals/deadline.js';
import { effectiveRunOptions } from '../../approvals/policy.js';
import { errorMessage } from '../../errors.js';
import { withClientTools, withToolKinds, type AgentSpec } from '../../schemas/agent-spec.js';
import { DecisionSignalSchema, type DecisionKind } from '../../schemas/decisions.js';
import { safeParse, type JsonValue } from '../../schemas/json.js';
import { clip, INLINE_PAYLOAD_LIMITS, kib, measureJson } from '../../schemas/limits.js';
import { RunInputSchema, type RunInput } from '../../schemas/run-input.js';
import { DEFAULT_MAX_STEPS, type RunOptions } from '../../schemas/run-options.js';
import { scriptForCall } from '../../schemas/script.js';
import type { StoredRunResult } from '../../schemas/run-result.js';
import { finishChunk } from '../../schemas/stream-chunks.js';
import { runCancelled } from './delegation.js';
import { deltaOf, setupForCall, type CallSetup } from './conversation-ref.js';
import { displayed, displayedOutcome, refOf, transcribedInput } from './payload-views.js';
import { gracePeriod } from './grace-period.js';
import { legacyDecision, LegacyPublishIntake, legacyRunInput } from '../stream/legacy-stream.js';
import { ProgressRouting } from './progress.js';
import { autoResume, checkSender } from './auto-resume.js';
import { AutoResumeRequestSchema } from '../../schemas/auto-resume.js';
import {
  autoResumeUpdate,
  childReportSignal,
  conversationQuery,
  ConversationRequestSchema,
  type ConversationAnswer,
  type ConversationRequest,
  decisionSignals,
  nextPauseUpdate,
  refusedUpdate,
  NextPauseRequestSchema,
  runStateQuery,
  type NextPauseRequest,
  type PauseSnapshot,
} from '../../protocol/run-messages.js';
import { RunState } from './run-state.js';
import { recordOutcome, toolCallSpan } from './spans.js';
import { activityFailureMessage, afterToolCall, runTool } from './run-tool.js';
import { ChunkIntake, serveStream } from '../stream/stream-handlers.js';
import { toolRunStep } from './tool-run.js';
import { ThreadLink } from '../thread/thread-link.js';
import { turnKeyQuery } from '../../protocol/thread-messages.js';
import { turnKeyOf, turnKeyProof } from '../thread/thread-writers.js';
import { taskListMessage } from '../thread/thread-tasks.js';
import { DEFAULT_LAST_MESSAGES, threadWorkflowId, type TurnStatus } from '../../schemas/thread.js';
import { offeredTools, outcomeChunk, providerCallChunks, providerCallOutcome, type ToolOutcome } from './transcript.js';
import { offeredOnThread, storedMemory, withWorkingMemory, workingMemoryOf } from '../thread/working-memory.js';

/** Error types that no retry can fix; the activities throw them as non-retryable failures. */
const NON_RETRYABLE_ERROR_TYPES = ['UnknownAgentError', 'UnknownModelError', 'ScriptExhaustedError'];

const describeRetry = { maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES };
const { describeAgent } = proxyActivities<AgentActivities>({ startToCloseTimeout: '30 seconds', retry: describeRetry });
/**
 * The agent's description is read from the worker's own registry: as a local activity it costs no
 * round trip through the server, and the first model call is scheduled in the run's first workflow task.
 */
const { describeAgent: describeAgentHere } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: describeRetry,
});

/**
 * The thread's workflow starts on the run's task queue if need be, and answers with the earlier
 * messages; a sub-agent sharing its supervisor's thread reads them.
 */
const { beginThreadTurn, readThreadHistory } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

const { verifyDecision } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** The model activity heartbeats every 3 s: a worker that dies mid-call is noticed in 15 s, not 5 minutes. */
const { callModel } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
  },
});

/** The patch under which a request context key the agent's schema does not name is refused . */
export const NAMED_CONTEXT_KEYS_PATCH = 'named-request-context-keys';

/** The run workflow. Its result is the run's result; a run that cannot go on fails with a reason. */
export async function agentRun(rawInput: RunInput): Promise<StoredRunResult> {
  const runId = workflowInfo().workflowId;
  // A run started before the stream was guarded replays as it ran (see legacy-stream.ts).
  const parsed = safeParse(RunInputSchema, legacyRunInput(rawInput));
  const input = parsed.success ? parsed.data : undefined;
  const state = new RunState(
    runId,
    input?.agentId ?? String(rawInput?.agentId),
    input?.messages ?? [],
    input?.parent,
    input?.carry,
  );
  const kinds = Object.keys(decisionSignals) as DecisionKind[];
  for (const kind of kinds) {
    setHandler(decisionSignals[kind], (d) => receiveDecision(state, kind, legacyDecision(d)));
  }
  setHandler(childReportSignal, (report) => state.childReport(report));
  setHandler(runStateQuery, () => state.snapshot());
  setHandler(conversationQuery, (request) => conversationPrefix(state, request));
  setHandler(autoResumeUpdate, (request) => autoResume(state, request), {
    validator: (request) => {
      const checked = safeParse(AutoResumeRequestSchema, request);
      if (!checked.success) throw refusedUpdate(`autoResume refused: ${clip(String(checked.error), 300)}`);
      checkSender(state, checked.data);
    },
  });
  setHandler(nextPauseUpdate, (request) => nextPause(state, request), {
    validator: (request) => {
      if (safeParse(NextPauseRequestSchema, request).success) return;
      // The reason quotes a little of the request, whatever its size or depth.
      const shown = measureJson(request).ok ? clip(JSON.stringify(request) ?? 'nothing', 100) : 'that';
      throw refusedUpdate(
        `nextPause takes { afterVersion?: number, decisionId?: string (<= 256), verdictOnly?: boolean }, not ${shown}`,
      );
    },
  });

  const intake = new ChunkIntake(state.stream, (progress) => state.takeProgress(progress));
  serveStream(state.stream, intake, new LegacyPublishIntake(state.stream));
  // Only the run's own activities get the secret that publishing takes: the model's (when the run
  // streams) and its tools' (what they write goes to the stream of any run).
  intake.token = uuid4();
  state.publishToken = intake.token;
  state.progress = new ProgressRouting(
    { runId, agentId: state.agentId },
    intake,
    input?.stream !== undefined,
    input?.progress,
  );

  state.graceMs = input?.stream?.graceMs ?? 0;
  let outcome: { result: StoredRunResult } | { failure: unknown };
  try {
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`Invalid run input: ${parsed.error}`, 'InvalidRunInput');
    const result = await run(parsed.data, state);
    // A sub-agent's progress is all in the streamed run before its result is.
    if (state.progress?.sends) await state.progress.sent();
    if ('continueWith' in result) return continueRun(state, parsed.data, result.continueWith);
    await endTurn(state, 'completed');
    state.finish('completed');
    state.publish(finishChunk(result, []));
    outcome = { result };
  } catch (err) {
    // A cancelled run (or a cancelled parent) ends as cancelled, which also cancels its sub-agents.
    const cancelled = runCancelled() && isCancellation(err);
    const failure = cancelled ? err : runFailure(err);
    await endTurn(state, cancelled ? 'cancelled' : 'failed');
    state.finish(cancelled ? 'cancelled' : 'failed');
    const error = failure instanceof Error ? failure.message : 'the run was cancelled';
    const failureType = failure instanceof ApplicationFailure ? (failure.type ?? undefined) : 'Cancelled';
    state.publish({ type: 'error', error, ...(failureType ? { failureType } : {}) });
    outcome = { failure };
  }
  // Readers read the stream from the open workflow; keep it open a while for those still reading.
  if (state.graceMs > 0 && 'result' in outcome) await gracePeriod(state.graceMs);
  await CancellationScope.nonCancellable(async () => {
    state.stream.draining = true;
    await state.notificationsDelivered();
    await condition(allHandlersFinished);
  });
  state.flushMirror();
  if ('failure' in outcome) throw outcome.failure;
  return outcome.result;
}

/**
 * The run's turn is recorded on its thread however it ended, before its end is visible: whoever
 * starts the next run on the thread once this one returned finds the turn there.
 */
async function endTurn(state: RunState, status: TurnStatus): Promise<void> {
  if (state.thread) await CancellationScope.nonCancellable(() => state.recordTurn(status));
}

/** A decision signal: checked against the approvers' keys first where decisions must be signed. */
async function receiveDecision(state: RunState, kind: DecisionKind, raw: unknown): Promise<void> {
  const parsed = state.signedDecisions ? safeParse(DecisionSignalSchema, raw) : undefined;
  // What does not parse, and what a client refused itself, the ledger refuses and records as it is.
  if (parsed?.success && !parsed.data.clientRefusal) {
    const at = new Date().toISOString();
    const check = await verifyDecision({ runId: state.runId, kind, decision: parsed.data, at });
    if (!check.ok) return state.refuse(kind, parsed.data, 'InvalidSignature', check.reason);
  }
  state.decide(kind, raw);
}

async function nextPause(state: RunState, request: NextPauseRequest): Promise<PauseSnapshot> {
  const { decisionId, afterVersion = -1, verdictOnly = false } = request ?? {};
  if (decisionId) {
    const taken = () => state.verdict(decisionId) !== undefined || (verdictOnly && state.taken(decisionId));
    await condition(() => taken() || state.done || state.continuing);
    const verdict = state.verdict(decisionId);
    if (verdict && !verdict.accepted && verdict.refusal) {
      throw ApplicationFailure.nonRetryable(verdict.refusal.message, verdict.refusal.type);
    }
    if (verdictOnly) return { status: state.status, version: state.version };
  }
  await condition(
    () => state.done || state.continuing || (state.status === 'suspended' && state.version > afterVersion),
  );
  // A run handing over to its continuation answers `running`: the caller asks the new run.
  const { status, version } = state;
  return { status, version, ...(state.graceMs > 0 && state.done ? { lingers: true as const } : {}) };
}

/**
 * Hands the run over to a fresh history: waiters return (and ask the new run), stream subscribers
 * follow the chain, and the conversation, steps, trail and stream go on in the new run.
 */
async function continueRun(state: RunState, input: RunInput, spec: AgentSpec): Promise<never> {
  state.continuing = true;
  state.stream.draining = true;
  await state.notificationsDelivered();
  await condition(allHandlersFinished);
  // The continuation starts with the memo and search attributes as they stand.
  state.flushMirror();
  const info = workflowInfo();
  const continueAsNewWithAttributes = makeContinueAsNewFunc<typeof agentRun>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  });
  const progress = state.progress?.carried();
  return continueAsNewWithAttributes({
    ...input,
    messages: state.conversation.messages,
    ...(progress ? { progress } : {}),
    carry: { spec, ...state.handOver() },
  });
}

/** The steps of the run; it continues as new (between steps) when its history has grown long. */
async function run(input: RunInput, state: RunState): Promise<StoredRunResult | { continueWith: AgentSpec }> {
  // Asked before the description, in the run's first activation. The description is a local activity
  // in a lean run: when it ran, the code after it may have run in the next workflow task; on replay its
  // result comes back in the task that recorded it, where a patch recorded in the next one reads as
  // absent (and the run would fail with a non-determinism error).
  const threadMemory = state.lean && beginsThreadTurn(input) ? patched('thread-memory') : undefined;
  const agentSpec = withToolKinds(input.carry?.spec ?? (await describeOnce(state, input.agentId)));
  // A sub-agent's run is started by its parent's agent, not by a caller.
  const start = input.parent ? { allowed: true as const } : canStart(agentSpec.access, agentSpec.id, input.startedBy);
  if (!start.allowed) throw ApplicationFailure.nonRetryable(start.message, 'NotAllowed');
  const checked = effectiveRunOptions(agentSpec, input.options, {
    fromParent: input.parent !== undefined,
    namedContextKeys: () => patched(NAMED_CONTEXT_KEYS_PATCH),
  });
  if (!checked.allowed) {
    const problems = checked.problems.join('; ');
    throw ApplicationFailure.nonRetryable(`Run options not allowed: ${problems}`, 'RunOptionsNotAllowed');
  }
  const { options } = checked;
  // The run's own client tools join the agent's; a continued run gets the agent's spec and adds them again.
  const spec = withClientTools(agentSpec, options.clientTools);
  // A tool run's call is checked as a model's would be, before anything is announced.
  const toolRun = input.toolCall ? await toolRunOf(state.runId, spec, options, input.toolCall) : undefined;
  state.govern(spec.access, input.startedBy, options.resourceId, escalationDeciders(spec));
  state.displayTools = new Set(spec.tools.filter((t) => t.transform?.display.length).map((t) => t.name));
  state.signedDecisions = spec.signedDecisions === true;
  state.notifications = spec.notifications === true;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const streaming = input.stream !== undefined;
  if (input.carry) state.announce();
  else state.publish({ type: 'start', runId: state.runId, agentId: spec.id, resumed: false });
  await joinThread(input, options, state, spec, threadMemory);
  if (state.thread?.records) {
    const settings = {
      suspensions: options.autoResumeSuspendedTools === true,
      approvals: options.autoResumeApprovals === true,
    };
    // Who sends a message decides as by hand: checked against the run's tenant and starter.
    const run = { resourceId: options.resourceId, startedBy: input.startedBy };
    state.autoResume = { settings, model: options.model ?? spec.model, run };
  }
  const tools = offeredOnThread(offeredTools(spec, options.activeTools), spec, state.thread?.records === true);
  const workingMemory = state.thread?.records ? workingMemoryOf(spec) : undefined;
  const firstStep = state.conversation.steps.length;

  for (let stepNumber = firstStep; stepNumber < maxSteps; stepNumber++) {
    // Between steps nothing waits and no child runs: the one safe point to start a fresh history.
    const stepsHere = stepNumber - firstStep;
    const every = options.continueAsNewEvery;
    if (stepsHere > 0 && (workflowInfo().continueAsNewSuggested || (every !== undefined && stepsHere >= every))) {
      return { continueWith: agentSpec };
    }
    checkConversationSize(state, spec);
    state.publish({ type: 'start-step', stepNumber });
    state.stream.live = streaming && !toolRun;
    // A sub-agent's tool events of the last step precede its text of this one in the streamed run.
    if (state.progress?.sends) await state.progress.sent();
    const progress = toolRun ? undefined : state.progress?.slice();
    const model =
      toolRun ??
      (await callModel({
        stepNumber,
        stream: streaming,
        publishToken: streaming ? state.publishToken : undefined,
        runId: state.runId,
        agentId: spec.id,
        model: options.model ?? spec.model,
        ...(options.script
          ? scriptForCall(options.script, state.conversation.messages, state.thread?.prefix)
          : { script: undefined }),
        ...conversationForCall(state, {
          // Each step is shown the working memory as it stands, after the run's own updates.
          instructions: withWorkingMemory(
            options.instructions ?? spec.instructions,
            workingMemory,
            state.thread?.workingMemory,
          ),
          tools,
        }),
        ...(state.thread?.prefix ? { threadMessages: state.thread.prefix } : {}),
        toolChoice: options.toolChoice,
        settings: options.modelSettings,
        ...(options.requestContext ? { requestContext: options.requestContext } : {}),
        ...(progress ? { progress } : {}),
      }).finally(() => (state.stream.live = false)));
    if (!toolRun) state.progress?.settle(progress, model.progressBytes);
    state.conversation.startStep(stepNumber, model);
    // The model activity holds the conversation with its answer now: the next call references it.
    if (state.byReference && !toolRun) state.sent = state.digest.refTo(state.conversation.messages);
    await providerCallsDone(spec, options, state, stepNumber, model);
    // Without streaming the model's text arrives whole; subscribers get it as one delta.
    if (!streaming && model.text) {
      state.publish({ type: 'text-delta', stepNumber, attempt: 0, id: `text-${stepNumber}`, delta: model.text });
    }
    const toolOf = (name: string) => spec.tools.find((t) => t.name === name);
    const refTo = (call: ModelToolCall) => refOf(state.runId, spec.id, call, options.requestContext);
    const shownArgs: JsonValue[] = [];
    for (const call of model.toolCalls) {
      const { toolCallId, toolName, fingerprint } = call;
      const args = await displayed(toolOf(toolName), refTo(call), 'input', call.args);
      shownArgs.push(args);
      state.publish({ type: 'tool-call', stepNumber, toolCallId, toolName, args, fingerprint });
    }
    // A sub-agent's calls reach the streamed run before what its tools write there: the writes come
    // from the tools' activities, by signals of their own, which nothing would order after ours.
    if (state.progress?.sends && model.toolCalls.length > 0) await state.progress.sent();

    state.callsStart(model.toolCalls.length);
    const outcomes = await Promise.all(
      model.toolCalls.map((call, i) => {
        const traced = { ...call, kind: toolOf(call.toolName)?.kind, stepNumber };
        return toolCallSpan(traced, shownArgs[i]!, async (span): Promise<ToolOutcome> => {
          const result = await runTool(spec, options, state, call);
          const stored = storedMemory(spec, call.toolName, result);
          if (stored !== undefined && state.thread) state.thread.workingMemory = stored;
          const outcome = state.conversation.admit({ call, result }, spec.payloadLimits);
          state.conversation.recordOutcome(outcome);
          const shown = await displayedOutcome(toolOf(call.toolName), refTo(call), outcomeChunk(outcome));
          recordOutcome(span, shown);
          state.publish(shown);
          state.callFinished();
          return outcome;
        });
      }),
    );
    const step = state.conversation.finishStep(outcomes);
    const { text, finishReason, usage } = step;
    state.publish({ type: 'step-finish', stepNumber, text, finishReason, usage });

    // A tool run ends with its call's outcome: no model reads it.
    if (model.toolCalls.length === 0 || toolRun) break;
  }
  return state.snapshot().result;
}

/** Whether the run begins a turn on its thread: a caller's run on a thread, not continued, not a tool run. */
function beginsThreadTurn(input: RunInput): boolean {
  return input.options?.threadId !== undefined && !input.toolCall && !input.parent && !input.carry;
}

/**
 * What a model call references of the conversation, for the activity whose worker does not hold it: a
 * count past the conversation is refused with a reason (it names no messages this run has).
 */
function conversationPrefix(state: RunState, request: ConversationRequest): ConversationAnswer {
  const checked = safeParse(ConversationRequestSchema, request);
  if (!checked.success)
    throw new Error(`conversation takes { count: number >= 0 }: ${clip(String(checked.error), 300)}`);
  const { messages } = state.conversation;
  const { count } = checked.data;
  if (count > messages.length) throw new Error(`the conversation has ${messages.length} messages, not ${count}`);
  return { messages: messages.slice(0, count), ...(state.sentSetup ? { setup: state.sentSetup } : {}) };
}

/**
 * The conversation, instructions and tools as a model call carries them: whole for a run from before the
 * conversation by reference, else the messages after what the previous call held and, when they are the
 * same as the previous call's, the instructions and tools by digest.
 */
function conversationForCall(
  state: RunState,
  setup: CallSetup,
): Pick<CallModelInput, 'messages' | 'conversation' | 'instructions' | 'tools'> {
  if (!state.byReference) return { messages: state.conversation.messages, ...setup };
  const delta = deltaOf(state.conversation.messages, state.sent, state.digest);
  const { carried, sent } = setupForCall(setup, state.sentSetup);
  state.sentSetup = sent;
  if ('sameSetup' in carried) return { conversation: { ...delta, sameSetup: carried.sameSetup } };
  return { conversation: delta, ...carried };
}

/** Runs started before the description became a local activity replay with the activity they scheduled. */
function describeOnce(state: RunState, agentId: string): Promise<AgentSpec> {
  return state.lean ? describeAgentHere({ agentId }) : describeAgent({ agentId });
}

/**
 * A run started on a thread (not a sub-agent's, not a tool run) begins its turn there and is shown the
 * thread's earlier messages, and its task list when it has one, before its own. A sub-agent's run whose
 * supervisor shares the thread (`parent.threadContext`) is shown its recent messages and adds nothing to
 * it. A continued run keeps the link it had. Every run on a thread, tool runs included, holds a key to
 * write it with (see thread-writers.ts).
 */
async function joinThread(
  input: RunInput,
  options: RunOptions,
  state: RunState,
  spec: AgentSpec,
  threadMemory: boolean | undefined,
): Promise<void> {
  const { threadId, resourceId } = options;
  if (!threadId) return;
  const workflowId = threadWorkflowId(resourceId, threadId);
  // Every run on a thread writes it with a key of its own (its turn, its tools: working memory, tasks),
  // which the thread asks it about (a query: no command). A continued run keeps the key it had.
  const key = input.carry?.threadKey ?? turnKeyOf(state.publishToken!);
  state.threadKey = key;
  setHandler(turnKeyQuery, () => turnKeyProof(workflowId, key));
  if (input.toolCall || (input.parent && !input.parent.threadContext)) return;
  const records = !input.parent;
  const lastMessages = spec.memory?.lastMessages ?? DEFAULT_LAST_MESSAGES;
  if (input.carry) {
    const prefix = input.carry.threadMessages;
    const { workingMemory } = input.carry;
    if (prefix !== undefined) {
      state.thread = new ThreadLink(workflowId, state.runId, spec.id, prefix, records, workingMemory, key);
    }
    return;
  }
  if (!records) {
    const { history } = await readThreadHistory({ threadId, resourceId, lastMessages });
    state.conversation.prependHistory(history);
    state.thread = new ThreadLink(workflowId, state.runId, spec.id, history.length, false);
    return;
  }
  // Runs on a thread started before threads kept their conversation replay without it.
  // A lean run was started by code newer than the thread memory: it asks no patch here, after the
  // local description (a run on its agent's default thread gets here without having asked one first).
  if (!(threadMemory ?? (state.lean || patched('thread-memory')))) return;
  const keepsMemory = workingMemoryOf(spec) !== undefined;
  const { history, workingMemory, tasks } = await beginThreadTurn({
    threadId,
    resourceId,
    runId: state.runId,
    agentId: spec.id,
    ...(state.startedBy ? { startedBy: state.startedBy.id } : {}),
    messages: state.conversation.messages,
    lastMessages,
    ...(keepsMemory ? { workingMemory: true as const } : {}),
    turnKey: key,
  });
  // The task list is not in the thread's messages: it is shown whole, however few of them are.
  const shown = tasks ? [...history, taskListMessage(tasks)] : history;
  state.conversation.prependHistory(shown);
  state.thread = new ThreadLink(workflowId, state.runId, spec.id, shown.length, true, workingMemory, key);
}

/**
 * The one step of a tool run, its call's input in the assistant message as the transcript keeps it;
 * a call the agent does not allow, or input that does not fit, fails the run with the reason.
 */
async function toolRunOf(
  runId: string,
  spec: AgentSpec,
  options: RunOptions,
  toolCall: NonNullable<RunInput['toolCall']>,
): Promise<CallModelOutput> {
  const made = toolRunStep(runId, spec, options, toolCall);
  if (!made.ok) throw ApplicationFailure.nonRetryable(`Tool run not possible: ${made.message}`, made.type);
  const call = made.step.toolCalls[0]!;
  const tool = spec.tools.find((t) => t.name === call.toolName);
  const input = await transcribedInput(tool, refOf(runId, spec.id, call, options.requestContext), call.args);
  if (input === call.args) return made.step;
  const content = [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input }];
  return { ...made.step, assistantMessages: [{ role: 'assistant', content }] };
}

/**
 * What the provider ran inside the model call (a web search) and the sources of the step: shown in the
 * stream (through the agent's display transforms) and seen by the agent's `afterToolCall`. The model has
 * the results already, in the step's assistant message; nothing waits.
 */
async function providerCallsDone(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  stepNumber: number,
  model: CallModelOutput,
): Promise<void> {
  for (const provided of model.providerCalls ?? []) {
    const tool = spec.tools.find((t) => t.name === provided.toolName);
    const ref = refOf(state.runId, spec.id, provided, options.requestContext);
    const [call, end] = providerCallChunks(stepNumber, provided);
    if (call.type === 'tool-call') state.publish({ ...call, args: await displayed(tool, ref, 'input', call.args) });
    state.publish(await displayedOutcome(tool, ref, end));
    const { call: ran, result } = providerCallOutcome(provided);
    await afterToolCall(spec, options, state, ran, result);
  }
  for (const source of model.sources ?? []) state.publish({ type: 'source', stepNumber, ...source });
}

/**
 * Each model call carries the conversation: a run whose conversation outgrew its budget (tool outputs
 * are kept within it; a model's text or a raw start's input is not) fails with a reason rather than
 * exceed Temporal's payload limit with its next command.
 */
function checkConversationSize(state: RunState, spec: AgentSpec): void {
  const max = (spec.payloadLimits ?? INLINE_PAYLOAD_LIMITS).maxConversationBytes;
  const bytes = state.conversation.bytes();
  if (bytes <= max) return;
  const message = `The run's conversation holds ${kib(bytes)}, over the ${kib(max)} a run carries`;
  throw ApplicationFailure.nonRetryable(`${message}; start a new run with less.`, 'ConversationTooLarge');
}

/** Turns whatever stopped the run into a workflow failure that names the cause. */
function runFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    return ApplicationFailure.nonRetryable(activityFailureMessage(err), type ?? 'ActivityFailed');
  }
  return ApplicationFailure.nonRetryable(errorMessage(err), 'RunFailed');
}
