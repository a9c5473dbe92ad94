import { Context } from '@temporalio/activity';
import {
  APICallError,
  generateText,
  streamText,
  type LanguageModel,
  type ModelMessage,
  type TelemetryOptions,
} from 'ai';
import type { ModelResolver } from '../../models/registry.js';
import type { Agent } from '../../../agent.js';
import type { AgentRegistry } from '../../registry.js';
import { scriptOfCall, type Script } from '../../../schemas/script.js';
import type { Tracing } from '../../../tracing/tracing.js';
import { ChunkPublisher } from '../stream/chunk-publisher.js';
import { cachedConversation, type ConversationCache } from './conversation-cache.js';
import { ProgressSender } from '../stream/progress-sender.js';
import type { CallModelInput, CallModelOutput } from '../../../protocol/activities.js';
import { inputDeltaShown } from '../tools/transform-payload.js';
import { conversationKey, withConversation, type ResolvedCall } from './call-conversation.js';
import { modelTools } from './model-tools.js';
import { errorMessage } from '../../../errors.js';
import { classifyProviderFailure, ModelSilentError, modelStepFailure } from './provider-failure.js';
import { jsonOutput } from './json-output.js';
import { stepOutput } from './step-output.js';
import { streamed, type StepStreamState } from './streamed-step.js';

/** How often the model activity heartbeats (its heartbeat timeout is 15 s: see agent-run.ts). */
const HEARTBEAT_EVERY_MS = 3_000;

/** How often the model activity sends batched deltas to the run's stream, ms. */
const STREAM_BATCH_INTERVAL_MS = 100;

/**
 * One model step through the AI SDK. Tools are passed without `execute`, so the AI SDK stops after
 * the model's answer and the workflow decides what runs. Arguments are checked here against the
 * tool's own schema (zod or another Standard Schema library's), so that a malformed call reaches the
 * workflow already marked invalid. A streamed run publishes text and tool-input deltas to the run's
 * stream in batches; a sub-agent's step below a streamed run sends its text to that run as progress.
 */
export async function callModel(
  registry: AgentRegistry,
  models: ModelResolver,
  called: CallModelInput,
  cache: ConversationCache,
  tracing?: Tracing,
): Promise<CallModelOutput> {
  const activity = Context.current();
  // A model call can take minutes with nothing streamed, and reading the conversation from the run
  // (on a worker that does not hold it) a while too: heartbeat meanwhile, so that a worker that dies
  // is noticed within the heartbeat timeout and the call retried elsewhere.
  const beat = setInterval(() => activity.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await modelStep(registry, models, called, cache, tracing);
  } finally {
    clearInterval(beat);
  }
}

async function modelStep(
  registry: AgentRegistry,
  models: ModelResolver,
  called: CallModelInput,
  cache: ConversationCache,
  tracing: Tracing | undefined,
): Promise<CallModelOutput> {
  const agent = registry.get(called.agentId);
  const activity = Context.current();
  const { conversation, input } = await withConversation(called, cache);
  const chain = [input.model, ...(called.fallbackModels ?? [])];
  const stream: StepStreamState = { streamed: false, retryMarked: false };
  let passing: { err: unknown; named: string } | undefined;
  let refused: { err: unknown; named: string } | undefined;
  for (let index = 0; ; index++) {
    const model = chain[index];
    const named = model ?? modelName(agent.model as LanguageModel);
    // A model with another after it answers within its silence limit, or the next one is asked. Every
    // other attempt goes without: a model slower than the limit, with fallbacks that fail, still answers.
    const armed = index < chain.length - 1 && activity.info.attempt % 2 === 1;
    const silence = armed ? silenceLimit(called.fallbackAfterMs, stream) : undefined;
    const abortSignal = silence ? AbortSignal.any([activity.cancellationSignal, silence.signal]) : undefined;
    try {
      const setup = { cache, models, tracing, stream, ...(abortSignal ? { abortSignal } : {}) };
      const answered = await answerStep(agent, { ...input, model }, conversation, setup);
      return index === 0 ? answered : { ...answered, model: named };
    } catch (thrownErr) {
      // A provider's own answer (a status) that came as the limit passed stays what it is.
      const answered = APICallError.isInstance(thrownErr) && thrownErr.statusCode !== undefined;
      const err = silence?.ended() && !answered ? new ModelSilentError(named, called.fallbackAfterMs!) : thrownErr;
      const failure = classifyProviderFailure(err);
      if (failure?.retryable) passing = { err, named };
      else if (failure) refused ??= { err, named };
      // A fallback that cannot answer at all (no such provider here, no web search) is passed over: the
      // providers' failures before it are the step's, so it is retried or waits as it would without it.
      const unusable = !failure && index > 0;
      const why = failure ? { kind: failure.kind, status: failure.status } : { error: errorMessage(err) };
      if (failure || unusable) activity.log.warn(`model step ${input.stepNumber}: "${named}" failed`, why);
      // Another model answers only before anything of the step streamed.
      if (index < chain.length - 1 && (failure || unusable) && !stream.streamed) continue;
      // A failure that passes, of any model tried, is retried (all of them, from the first) before the step waits.
      const thrown = (failure?.retryable ? undefined : passing) ?? (unusable ? refused : undefined) ?? { err, named };
      throw modelStepFailure(thrown.err, `the model provider of "${thrown.named}"`, activity.info.attempt);
    } finally {
      silence?.clear();
    }
  }
}

/**
 * A signal that aborts the model's call once it has been silent for `ms`: no answer, or in a streamed
 * step no delta (`stream.heard` ends the limit at the first).
 */
function silenceLimit(ms: number | undefined, stream: StepStreamState) {
  if (ms === undefined) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const clear = () => {
    clearTimeout(timer);
    stream.heard = undefined;
  };
  stream.heard = clear;
  return { signal: controller.signal, ended: () => controller.signal.aborted, clear };
}

/** The model's name as runs show it: the agent's string, or an instance's provider and model id. */
function modelName(model: LanguageModel): string {
  return typeof model === 'string' ? model : `${model.provider}/${model.modelId}`;
}

/** What a model step is answered with on this worker: its model providers, conversation cache and tracing. */
interface StepSetup {
  cache: ConversationCache;
  models: ModelResolver;
  tracing: Tracing | undefined;
  stream: StepStreamState;
  /** Aborts the call: the activity's cancellation, and the model's silence limit where it has one. */
  abortSignal?: AbortSignal;
}

async function answerStep(
  agent: Agent,
  input: ResolvedCall,
  conversation: Awaited<ReturnType<typeof withConversation>>['conversation'],
  { cache, models, tracing, stream, abortSignal }: StepSetup,
): Promise<CallModelOutput> {
  const activity = Context.current();
  const model: LanguageModel = input.model
    ? await models.resolve(input.model, { script: scriptOf(input), ...threadSteps(input) })
    : (agent.model as LanguageModel);

  const request = {
    model,
    // An agent without instructions sends no system message at all, rather than an empty one.
    ...(input.instructions ? { instructions: input.instructions } : {}),
    messages: input.messages as ModelMessage[],
    tools: await modelTools(agent, model, input),
    toolChoice: input.toolChoice,
    ...(input.structuredOutput ? { output: jsonOutput(input.structuredOutput) } : {}),
    maxRetries: 0, // Temporal retries the activity
    abortSignal: abortSignal ?? activity.cancellationSignal,
    ...input.settings,
    ...telemetry(tracing, input.agentId),
  };

  // A step scheduled by a version before publish tokens cannot publish: readers get its text in step-finish.
  if (input.stream && !input.publishToken) activity.log.warn('callModel: no publish token; the step is not streamed');
  const publisher =
    input.stream && input.publishToken
      ? new ChunkPublisher(
          activity.client.workflow.getHandle(input.runId),
          input.publishToken,
          STREAM_BATCH_INTERVAL_MS,
        )
      : undefined;
  const progress = input.progress
    ? new ProgressSender(
        activity.client,
        input.progress,
        { agentId: input.agentId, runId: input.runId },
        STREAM_BATCH_INTERVAL_MS,
      )
    : undefined;
  const answered = await answer(agent, input, request, { publisher, progress, stream });
  // The run's next call references the conversation with this answer, as the workflow appends it.
  if (conversation) {
    cache.put(conversationKey(), cachedConversation([...input.messages, ...answered.assistantMessages], conversation));
  }
  return answered;
}

/** The model's answer to one step, by `generateText`, or by `streamText` when it publishes deltas. */
async function answer(
  agent: Agent,
  input: ResolvedCall,
  request: Parameters<typeof generateText>[0] & Parameters<typeof streamText>[0],
  { publisher, progress, stream }: { publisher?: ChunkPublisher; progress?: ProgressSender; stream: StepStreamState },
): Promise<CallModelOutput> {
  if (!publisher && !progress) {
    const result = await generateText(request);
    return stepOutput(agent, input, {
      text: result.text,
      content: result.content,
      finishReason: result.finishReason,
      usage: result.usage,
      responseMessages: result.finalStep.response.messages,
    });
  }
  const at = { stepNumber: input.stepNumber, attempt: Context.current().info.attempt };
  const result = await streamed(request, { publisher, progress }, at, inputDeltaShown(agent, input), stream);
  const response = (await result.finalStep).response;
  const recorded = await stepOutput(agent, input, {
    text: await result.text,
    content: await result.content,
    finishReason: await result.finishReason,
    usage: await result.usage,
    responseMessages: response.messages,
  });
  return progress ? { ...recorded, progressBytes: progress.bytes } : recorded;
}

/** The AI SDK's telemetry for a model call of a traced run: its spans nest in the activity's. */
function telemetry(tracing: Tracing | undefined, agentId: string): { telemetry?: TelemetryOptions } {
  const options = tracing?.modelTelemetry(agentId);
  return options ? { telemetry: options } : {};
}

/** The run's script as the scripted model reads it, from the whole script or the one step the call carries. */
function scriptOf(input: CallModelInput): Script | undefined {
  return input.script && scriptOfCall(input.script, input.scriptWindow);
}

/** The assistant messages the run's thread put before the run's own, for the scripted model. */
function threadSteps(input: ResolvedCall): { priorSteps?: number } {
  if (!input.threadMessages) return {};
  const prior = input.messages.slice(0, input.threadMessages).filter((m) => m.role === 'assistant').length;
  return { priorSteps: prior };
}
