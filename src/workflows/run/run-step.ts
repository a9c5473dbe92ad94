/**
 * One step of a run: the model call (or a tool run's one call), what the provider ran inside it, then
 * the tool calls it asks for, in parallel, each shown in the stream and kept in the conversation.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type {
  AgentActivities,
  CallModelOutput,
  ModelToolCall,
  ModelToolDefinition,
} from '../../protocol/activities.js';
import type { JsonValue } from '../../schemas/json.js';
import { INLINE_PAYLOAD_LIMITS, kib } from '../../schemas/limits.js';
import { scriptForCall } from '../../schemas/script.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import { fallbackAfterMs, MODEL_STEP_MS, modelActivityRetry } from '../../schemas/model-retry.js';
import type { WorkingMemoryOptions } from '../../schemas/working-memory.js';
import { storedMemory, withWorkingMemory } from '../thread/working-memory.js';
import { displayed, displayedOutcome, refOf } from './payload-views.js';
import type { RunOptions } from '../../schemas/run-options.js';
import type { RunState } from './run-state.js';
import { modelAnswer } from './model-wait.js';
import { runTool } from './run-tool.js';
import { afterToolCall } from './tool-hooks.js';
import { NON_RETRYABLE_ERROR_TYPES, type StartedRun } from './run-start.js';
import { recordOutcome, toolCallSpan } from './spans.js';
import { outcomeChunk, providerCallChunks, providerCallOutcome, type ToolOutcome } from './transcript.js';

/**
 * The model activity of an agent: retried within its window while the provider fails in a way that
 * passes. It heartbeats every 3 s: a worker that dies mid-call is noticed in 15 s, not 5 minutes.
 */
function modelActivity(spec: AgentSpec): AgentActivities['callModel'] {
  return proxyActivities<AgentActivities>({
    startToCloseTimeout: MODEL_STEP_MS,
    heartbeatTimeout: '15 seconds',
    ...modelActivityRetry(spec.modelRetry, NON_RETRYABLE_ERROR_TYPES),
  }).callModel;
}

/** What the model is offered at every step of the run. */
export interface StepOffer {
  readonly tools: ModelToolDefinition[];
  readonly workingMemory: WorkingMemoryOptions | undefined;
  readonly streaming: boolean;
}

/** Runs step `stepNumber`; whether it is the run's last (the model called no tool, or a tool run's call ran). */
export async function runStep(run: StartedRun, offer: StepOffer, stepNumber: number): Promise<boolean> {
  const { state, spec, options, toolRun } = run;
  const { tools, workingMemory, streaming } = offer;
  checkConversationSize(state, spec);
  state.stream.publish({ type: 'start-step', stepNumber });
  state.stream.log.live = streaming && !toolRun;
  // A sub-agent's tool events of the last step precede its text of this one in the streamed run.
  if (state.stream.progress?.sends) await state.stream.progress.sent();
  const progress = toolRun ? undefined : state.stream.progress?.slice();
  const model =
    toolRun ??
    (await modelAnswer(state, stepNumber, options.model ?? spec.model, () =>
      modelActivity(spec)({
        stepNumber,
        stream: streaming,
        publishToken: streaming ? state.stream.publishToken : undefined,
        runId: state.runId,
        agentId: spec.id,
        model: options.model ?? spec.model,
        // A run that names its own model (where the agent allows it) asked for that model alone.
        ...(spec.fallbackModels && (options.model ?? spec.model) === (spec.defaultOptions?.model ?? spec.model)
          ? {
              fallbackModels: spec.fallbackModels,
              fallbackAfterMs: fallbackAfterMs(spec.modelRetry?.fallbackAfterMs, spec.fallbackModels.length),
            }
          : {}),
        ...(options.script
          ? scriptForCall(options.script, state.conversation.messages, state.thread?.prefix)
          : { script: undefined }),
        ...state.wire.forCall(state.conversation.messages, {
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
        ...(options.structuredOutput ? { structuredOutput: options.structuredOutput } : {}),
        ...(options.requestContext ? { requestContext: options.requestContext } : {}),
        ...(progress ? { progress } : {}),
      }),
    ).finally(() => (state.stream.log.live = false)));
  if (!toolRun) state.stream.progress?.settle(progress, model.progressBytes);
  state.conversation.startStep(stepNumber, model);
  // The model activity holds the conversation with its answer now: the next call references it.
  if (!toolRun) state.wire.answered(state.conversation.messages);
  await providerCallsDone(spec, options, state, stepNumber, model);
  // Without streaming the model's text arrives whole; subscribers get it as one delta.
  if (!streaming && model.text) {
    state.stream.publish({ type: 'text-delta', stepNumber, attempt: 0, id: `text-${stepNumber}`, delta: model.text });
  }
  const toolOf = (name: string) => spec.tools.find((t) => t.name === name);
  const refTo = (call: ModelToolCall) => refOf(state.runId, spec.id, call, options.requestContext);
  const shownArgs: JsonValue[] = [];
  for (const call of model.toolCalls) {
    const { toolCallId, toolName, fingerprint } = call;
    const args = await displayed(toolOf(toolName), refTo(call), 'input', call.args);
    shownArgs.push(args);
    state.stream.publish({ type: 'tool-call', stepNumber, toolCallId, toolName, args, fingerprint });
  }
  // A sub-agent's calls reach the streamed run before what its tools write there: the writes come
  // from the tools' activities, by signals of their own, which nothing would order after ours.
  if (state.stream.progress?.sends && model.toolCalls.length > 0) await state.stream.progress.sent();

  state.stream.callsStart(model.toolCalls.length);
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
        state.stream.publish(shown);
        state.callFinished();
        return outcome;
      });
    }),
  );
  const step = state.conversation.finishStep(outcomes);
  const { text, finishReason, usage, model: answeredBy } = step;
  state.stream.publish({
    type: 'step-finish',
    stepNumber,
    text,
    finishReason,
    usage,
    ...(answeredBy ? { model: answeredBy } : {}),
  });

  // A tool run ends with its call's outcome: no model reads it.
  return model.toolCalls.length === 0 || toolRun !== undefined;
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
    if (call.type === 'tool-call')
      state.stream.publish({ ...call, args: await displayed(tool, ref, 'input', call.args) });
    state.stream.publish(await displayedOutcome(tool, ref, end));
    const { call: ran, result } = providerCallOutcome(provided);
    await afterToolCall(spec, options, state, ran, result);
  }
  for (const source of model.sources ?? []) state.stream.publish({ type: 'source', stepNumber, ...source });
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
