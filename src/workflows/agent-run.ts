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
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../activities/contracts.js';
import {
  DEFAULT_MAX_STEPS,
  RunInputSchema,
  type AgentSpec,
  type DecisionKind,
  type JsonValue,
  type RunInput,
  type RunOptions,
  type RunResult,
  type ToolSpec,
} from '../schemas.js';
import type { RunChunk } from '../stream-chunks.js';
import { runCancelled, runSubAgent, runWorkflowTool } from './delegation.js';
import {
  childReportSignal,
  decisionSignals,
  nextPauseUpdate,
  NextPauseRequestSchema,
  runStateQuery,
  type NextPauseRequest,
  type RunSnapshot,
} from './messages.js';
import { declineMessage } from './pending-calls.js';
import { RunState, resumeDataOf, type Resolution } from './run-state.js';
import { safeParse } from './safe-parse.js';
import { offeredTools, toolResultMessage, type ToolOutcome } from './transcript.js';

/** Error types that no retry can fix; the activities throw them as non-retryable failures. */
export const NON_RETRYABLE_ERROR_TYPES = ['UnknownAgentError', 'UnknownModelError', 'ScriptExhaustedError'];

const { describeAgent } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

const { callModel } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
  },
});

/**
 * Tools run at least once (an activity may be retried after a worker dies), so tools get an
 * idempotency key; the default retry gives up after 3 attempts so that a broken tool becomes an
 * error the model sees rather than a run that retries forever.
 */
const DEFAULT_TOOL_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

function toolActivityOptions(tool: ToolSpec): ActivityOptions {
  const custom = tool.activity;
  if (!custom) return DEFAULT_TOOL_ACTIVITY;
  return {
    startToCloseTimeout: custom.startToCloseTimeout ?? DEFAULT_TOOL_ACTIVITY.startToCloseTimeout,
    heartbeatTimeout: custom.heartbeatTimeout,
    retry: { ...DEFAULT_TOOL_ACTIVITY.retry, ...custom.retry },
  };
}

/** The run workflow. Its result is the run's result; a run that cannot go on fails with a reason. */
export async function agentRun(rawInput: RunInput): Promise<RunResult> {
  const runId = workflowInfo().workflowId;
  const parsed = safeParse(RunInputSchema, rawInput);
  const state = new RunState(
    runId,
    parsed.success ? parsed.data.agentId : String(rawInput?.agentId),
    parsed.success ? parsed.data.messages : [],
    parsed.success ? parsed.data.parent : undefined,
    parsed.success ? parsed.data.carry : undefined,
  );
  for (const [kind, signal] of Object.entries(decisionSignals) as Array<
    [DecisionKind, (typeof decisionSignals)[DecisionKind]]
  >) {
    setHandler(signal, (d) => state.decide(kind, d));
  }
  setHandler(childReportSignal, (report) => state.childReport(report));
  setHandler(runStateQuery, () => state.snapshot());
  setHandler(nextPauseUpdate, (request) => nextPause(state, request), {
    validator: (request) => {
      if (!safeParse(NextPauseRequestSchema, request).success)
        throw new Error(
          `nextPause takes { afterVersion?: number, decisionId?: string }, not ${JSON.stringify(request)}`,
        );
    },
  });

  state.graceMs = parsed.success ? (parsed.data.stream?.graceMs ?? 0) : 0;
  let outcome: { result: RunResult } | { failure: unknown };
  try {
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`Invalid run input: ${parsed.error}`, 'InvalidRunInput');
    const result = await run(parsed.data, state);
    if ('continueWith' in result) return continueRun(state, result.continueWith);
    state.finish('completed');
    state.publish({
      type: 'finish',
      finishReason: result.finishReason,
      text: result.text,
      usage: result.usage,
      pendingToolCalls: [],
    });
    outcome = { result };
  } catch (err) {
    // A cancelled run (or a cancelled parent) ends as cancelled, which also cancels its sub-agents.
    const cancelled = runCancelled() && isCancellation(err);
    const failure = cancelled ? err : runFailure(err);
    state.finish(cancelled ? 'cancelled' : 'failed');
    state.publish({ type: 'error', error: failure instanceof Error ? failure.message : 'the run was cancelled' });
    outcome = { failure };
  }
  await CancellationScope.nonCancellable(async () => {
    // Subscribers read the stream from the workflow; keep it readable a while for those still reading.
    if (state.graceMs > 0 && 'result' in outcome) await sleep(state.graceMs);
    state.stream.detachPollers();
    await condition(allHandlersFinished);
  });
  if ('failure' in outcome) throw outcome.failure;
  return outcome.result;
}

async function nextPause(state: RunState, request: NextPauseRequest): Promise<RunSnapshot> {
  const { decisionId, afterVersion = -1 } = request ?? {};
  if (decisionId) {
    await condition(() => state.verdict(decisionId) !== undefined || state.done || state.continuing);
    const verdict = state.verdict(decisionId);
    if (verdict && !verdict.accepted && verdict.refusal) {
      throw ApplicationFailure.nonRetryable(verdict.refusal.message, verdict.refusal.type);
    }
  }
  await condition(
    () => state.done || state.continuing || (state.status === 'suspended' && state.version > afterVersion),
  );
  // A run handing over to its continuation answers `running`: the caller asks the new run.
  return state.snapshot();
}

/**
 * Hands the run over to a fresh history: waiters return (and ask the new run), stream subscribers
 * follow the chain, and the conversation, steps, trail and stream go on in the new run.
 */
async function continueRun(state: RunState, next: RunInput): Promise<never> {
  state.continuing = true;
  state.stream.detachPollers();
  await condition(allHandlersFinished);
  const info = workflowInfo();
  const continueAsNewWithAttributes = makeContinueAsNewFunc<typeof agentRun>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  });
  return continueAsNewWithAttributes({
    ...next,
    messages: state.messages,
    carry: { ...next.carry!, ...state.handOver() },
  });
}

async function run(input: RunInput, state: RunState): Promise<RunResult | { continueWith: RunInput }> {
  const spec = input.carry?.spec ?? (await describeAgent({ agentId: input.agentId }));
  const options: RunOptions = { ...spec.defaultOptions, ...input.options };
  const tools = offeredTools(spec, options.activeTools);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const streaming = input.stream !== undefined;
  if (input.carry) state.announce();
  else state.publish({ type: 'start', runId: state.runId, agentId: spec.id, resumed: false });
  const firstStep = state.steps.length;

  for (let stepNumber = firstStep; stepNumber < maxSteps; stepNumber++) {
    // Between steps nothing waits and no child runs: the one safe point to start a fresh history.
    const stepsHere = stepNumber - firstStep;
    if (
      stepsHere > 0 &&
      (workflowInfo().continueAsNewSuggested ||
        (options.continueAsNewEvery !== undefined && stepsHere >= options.continueAsNewEvery))
    ) {
      return { continueWith: { ...input, carry: { spec, ...state.handOver() } } };
    }
    state.publish({ type: 'start-step', stepNumber });
    const model = await callModel({
      stepNumber,
      stream: streaming,
      runId: state.runId,
      agentId: spec.id,
      model: options.model ?? spec.model,
      script: options.script,
      instructions: options.instructions ?? spec.instructions,
      messages: state.messages,
      tools,
      toolChoice: options.toolChoice,
      settings: options.modelSettings,
    });
    state.startStep(stepNumber, model);
    // Without streaming the model's text arrives whole; subscribers get it as one delta.
    if (!streaming && model.text)
      state.publish({ type: 'text-delta', stepNumber, attempt: 0, id: `text-${stepNumber}`, delta: model.text });
    for (const call of model.toolCalls) {
      state.publish({
        type: 'tool-call',
        stepNumber,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args: call.args,
        fingerprint: call.fingerprint,
      });
    }

    state.beginCalls(model.toolCalls.length);
    const outcomes = await Promise.all(
      model.toolCalls.map(async (call): Promise<ToolOutcome> => {
        const outcome = { call, result: await runTool(spec, options, state, call) };
        state.recordOutcome(outcome);
        state.publish(outcomeChunk(outcome));
        state.callFinished();
        return outcome;
      }),
    );
    if (outcomes.length > 0) state.messages.push(toolResultMessage(outcomes));
    const step = state.finishStep(outcomes);
    state.publish({
      type: 'step-finish',
      stepNumber,
      text: step.text,
      finishReason: step.finishReason,
      usage: step.usage,
    });

    if (model.toolCalls.length === 0) break;
  }
  return state.snapshot().result;
}

/** Runs one tool call, after approval if it needs one; every way it can go wrong becomes a tool error for the model. */
async function runTool(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<ToolCallOutcome> {
  if (call.invalid) return { type: 'error', error: call.invalid };
  const tool = spec.tools.find((t) => t.name === call.toolName);
  if (!tool) {
    return {
      type: 'error',
      error: `Unknown tool "${call.toolName}". Available tools: ${spec.tools.map((t) => t.name).join(', ') || '(none)'}.`,
    };
  }

  if (options.requireToolApproval === true || tool.requireApproval) {
    const decision = await state.waitForDecision(call, { kind: 'approval', askedAt: new Date().toISOString() });
    if (decision.kind === 'decline') {
      return { type: 'declined', message: declineMessage(call.toolName, decision.record.by, decision.record.reason) };
    }
  }
  if (tool.kind === 'client') {
    const { decision } = await state.waitForDecision(call, { kind: 'client', askedAt: new Date().toISOString() });
    const output = decision.result ?? null;
    return {
      type: 'result',
      output,
      modelOutput: typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: output },
    };
  }
  if (tool.kind === 'agent') return runSubAgent(tool, options, state, call);
  if (tool.kind === 'workflow') return runWorkflowTool(tool, state, call);

  const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(tool));
  let resumed: Resolution | undefined;
  let suspendPayload: JsonValue | undefined;
  for (;;) {
    let output;
    try {
      output = await executeTool({
        runId: state.runId,
        agentId: spec.id,
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        threadId: options.threadId,
        resourceId: options.resourceId,
        ...(resumed ? { resume: { data: resumeDataOf(resumed) } } : {}),
      });
    } catch (err) {
      if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
      // The data was accepted (a refusal is a result, not a failure); the tool failed after.
      if (resumed) state.recordResume(resumed, undefined);
      return { type: 'error', error: `Tool "${call.toolName}" failed: ${failureMessage(err)}` };
    }
    if (resumed) state.recordResume(resumed, output.type === 'resume-rejected' ? output.error : undefined);
    if (output.type === 'result' || output.type === 'error') return output;

    // Suspended, or resume data the tool refused (then it did not run and is still suspended).
    if (output.type === 'suspended') suspendPayload = output.payload;
    resumed = await state.waitForDecision(call, {
      kind: 'suspend',
      suspendPayload,
      resumeSchema: tool.resumeSchema,
      askedAt: new Date().toISOString(),
    });
  }
}

function outcomeChunk({ call, result }: ToolOutcome): RunChunk {
  const ids = { toolCallId: call.toolCallId, toolName: call.toolName };
  if (result.type === 'result') return { type: 'tool-result', ...ids, output: result.output };
  if (result.type === 'declined') return { type: 'tool-error', ...ids, error: result.message, declined: true };
  return { type: 'tool-error', ...ids, error: result.error, declined: false };
}

function failureMessage(err: ActivityFailure): string {
  return err.cause?.message ?? err.message;
}

/** Turns whatever stopped the run into a workflow failure that names the cause. */
function runFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    return ApplicationFailure.nonRetryable(failureMessage(err), type ?? 'ActivityFailed');
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.nonRetryable(message, 'RunFailed');
}
