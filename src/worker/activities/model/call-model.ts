import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  APICallError,
  generateText,
  jsonSchema,
  streamText,
  tool,
  type JSONSchema7,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type Tool,
  type TelemetryOptions,
  type ToolSet,
} from 'ai';
import { errorMessage, WebSearchUnavailableError } from '../../../errors.js';
import { toolCallFingerprint } from '../../../approvals/fingerprint.js';
import { nativeProviderTool } from '../../models/provider-tools.js';
import { resolveModel, type ModelFactory } from '../../models/registry.js';
import type { Agent } from '../../../agent.js';
import type { AgentRegistry } from '../../registry.js';
import { zodFromJsonSchema } from '../../../schemas/json.js';
import { jsonBytes, kib, MAX_DATA_BYTES, MAX_ID, clip } from '../../../schemas/limits.js';
import type { Message } from '../../../schemas/message.js';
import { scriptOfCall, type Script } from '../../../schemas/script.js';
import type { Usage } from '../../../schemas/run-result.js';
import type { AnyTool, ToolHookContext } from '../../../tools/create-tool.js';
import { checkWith } from '../../../tools/schema.js';
import type { Tracing } from '../../../tracing/tracing.js';
import { ChunkPublisher } from '../stream/chunk-publisher.js';
import {
  cachedConversation,
  ConversationCache,
  ConversationMismatchError,
  resolveConversation,
  type CachedConversation,
} from './conversation-cache.js';
import { conversationQuery } from '../../../protocol/run-messages.js';
import { ProgressSender } from '../stream/progress-sender.js';
import type {
  CallModelInput,
  CallModelOutput,
  ModelToolCall,
  ModelToolDefinition,
} from '../../../protocol/activities.js';
import { providerResults, type StepContentPart } from './provider-calls.js';
import { inputDeltaShown, ownTool, toJson, transcribedCalls } from '../tools/transform-payload.js';

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
  factories: Record<string, ModelFactory>,
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
    return await modelStep(registry, factories, called, cache, tracing);
  } finally {
    clearInterval(beat);
  }
}

async function modelStep(
  registry: AgentRegistry,
  factories: Record<string, ModelFactory>,
  called: CallModelInput,
  cache: ConversationCache,
  tracing: Tracing | undefined,
): Promise<CallModelOutput> {
  const agent = registry.get(called.agentId);
  const activity = Context.current();
  const { conversation, input } = await withConversation(called, cache);
  const model: LanguageModel = input.model
    ? resolveModel(input.model, { script: scriptOf(input), ...threadSteps(input) }, factories)
    : (agent.model as LanguageModel);

  const tools: ToolSet = {};
  for (const def of input.tools) {
    if (def.provider) {
      tools[def.name] = providerTool(model, def.name, def.provider, input.model);
      continue;
    }
    const registered = ownTool(agent, def.name);
    tools[def.name] = tool({
      description: def.description,
      inputSchema: jsonSchema(def.inputSchema as JSONSchema7, {
        validate: async (value) => {
          // Sub-agent and workflow tools have no schema of their own here: check the JSON schema.
          const checked = await checkWith(registered?.inputSchema ?? zodFromJsonSchema(def.inputSchema), value);
          return checked.ok ? { success: true, value } : { success: false, error: new Error(checked.pretty) };
        },
      }),
      ...(registered ? lifecycleHooks(registered, def.name, input) : {}),
    });
  }

  const request = {
    model,
    // An agent without instructions sends no system message at all, rather than an empty one.
    ...(input.instructions ? { instructions: input.instructions } : {}),
    messages: input.messages as ModelMessage[],
    tools,
    toolChoice: input.toolChoice,
    maxRetries: 0, // Temporal retries the activity
    abortSignal: activity.cancellationSignal,
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
  try {
    const answered = await answer(agent, input, request, publisher, progress);
    // The run's next call references the conversation with this answer, as the workflow appends it.
    if (conversation) {
      cache.put(
        conversationKey(),
        cachedConversation([...input.messages, ...answered.assistantMessages], conversation),
      );
    }
    return answered;
  } catch (err) {
    if (APICallError.isInstance(err) && !err.isRetryable) {
      throw ApplicationFailure.nonRetryable(
        `${err.message} (HTTP ${err.statusCode ?? '?'} from ${err.url})`,
        'ModelCallRejected',
      );
    }
    throw err;
  }
}

/** A model call with its whole conversation, instructions and tools. */
type ResolvedCall = CallModelInput & Required<Pick<CallModelInput, 'messages' | 'instructions' | 'tools'>>;

/** The model's answer to one step, by `generateText`, or by `streamText` when it publishes deltas. */
async function answer(
  agent: Agent,
  input: ResolvedCall,
  request: Parameters<typeof generateText>[0] & Parameters<typeof streamText>[0],
  publisher: ChunkPublisher | undefined,
  progress: ProgressSender | undefined,
): Promise<CallModelOutput> {
  if (!publisher && !progress) {
    const result = await generateText(request);
    return output(agent, input, {
      text: result.text,
      content: result.content,
      finishReason: result.finishReason,
      usage: result.usage,
      responseMessages: result.finalStep.response.messages,
    });
  }
  const at = { stepNumber: input.stepNumber, attempt: Context.current().info.attempt };
  const result = await streamed(request, { publisher, progress }, at, inputDeltaShown(agent, input));
  const response = (await result.finalStep).response;
  const stepOutput = await output(agent, input, {
    text: await result.text,
    content: await result.content,
    finishReason: await result.finishReason,
    usage: await result.usage,
    responseMessages: response.messages,
  });
  return progress ? { ...stepOutput, progressBytes: progress.bytes } : stepOutput;
}

/** The cache key of the run's conversation: the workflow id, which a continued run keeps. */
function conversationKey(): string {
  return runOf().workflowId;
}

/** The run whose model call this is. */
function runOf(): { workflowId: string; runId: string } {
  const run = Context.current().info.workflowExecution;
  if (!run) throw ApplicationFailure.nonRetryable('callModel runs only as an activity of a run', 'BadCall');
  return run;
}

/**
 * The call with its whole conversation. One that carries it by reference gets the messages it references
 * from the worker's cache, or, on a miss (a new worker, an evicted run, a retry elsewhere), from the run by
 * the `conversation` query, whose answer is not recorded in the history.
 */
async function withConversation(
  called: CallModelInput,
  cache: ConversationCache,
): Promise<{ input: ResolvedCall; conversation?: CachedConversation }> {
  const { conversation: delta, instructions, tools, ...rest } = called;
  if (!delta) {
    if (!called.messages || tools === undefined || instructions === undefined) {
      throw ApplicationFailure.nonRetryable(
        'callModel: the call carries no conversation, tools or instructions',
        'BadCall',
      );
    }
    return { input: { ...rest, instructions, tools, messages: called.messages } };
  }
  const given = tools !== undefined && instructions !== undefined ? { instructions, tools } : undefined;
  const activity = Context.current();
  const { workflowId, runId } = runOf();
  const fetch = (count: number) =>
    activity.client.withAbortSignal(activity.cancellationSignal, () =>
      activity.client.workflow.getHandle(workflowId, runId).query(conversationQuery, { count }),
    );
  try {
    const { conversation, from } = await resolveConversation(cache, conversationKey(), delta, given, fetch);
    if (from === 'run') activity.log.info('callModel: conversation read from the run', { messages: delta.base.count });
    const { setup } = conversation;
    return {
      input: { ...rest, messages: conversation.messages, instructions: setup.instructions, tools: setup.tools },
      conversation,
    };
  } catch (err) {
    // No retry makes the run's messages match a digest they do not match.
    if (err instanceof ConversationMismatchError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}

/** The AI SDK's telemetry for a model call of a traced run: its spans nest in the activity's. */
function telemetry(tracing: Tracing | undefined, agentId: string): { telemetry?: TelemetryOptions } {
  const options = tracing?.modelTelemetry(agentId);
  return options ? { telemetry: options } : {};
}

/**
 * Streams one model step, publishing its deltas to the run's stream, its text to the run that streams
 * a sub-agent; they are all there when it returns.
 */
async function streamed(
  request: Parameters<typeof streamText>[0],
  { publisher, progress }: { publisher?: ChunkPublisher; progress?: ProgressSender },
  at: { stepNumber: number; attempt: number },
  inputDelta: ReturnType<typeof inputDeltaShown>,
): Promise<ReturnType<typeof streamText>> {
  const activity = Context.current();
  if (at.attempt > 1) {
    const error = `attempt ${at.attempt - 1} of this model call failed`;
    publisher?.publish({ type: 'model-retry', ...at, error }, { now: true });
    progress?.event({ type: 'model-retry', ...at }, { now: true });
  }
  const result = streamText(request);
  const flush = () => Promise.all([publisher?.flush(), progress?.flush()]);
  try {
    for await (const part of result.stream) {
      if (part.type === 'text-delta') {
        publisher?.publish({ type: 'text-delta', ...at, id: part.id, delta: part.text });
        progress?.text(at.stepNumber, part.text);
      } else if (part.type === 'tool-input-start') {
        inputDelta.started(part.id, part.toolName);
        // A provider's own call (a web search) starts: the UI shows it running; its result comes with the step.
        const provider = part.providerExecuted ? { providerExecuted: true as const } : {};
        publisher?.publish({
          type: 'tool-input-start',
          ...at,
          toolCallId: part.id,
          toolName: part.toolName,
          ...provider,
        });
      } else if (part.type === 'tool-input-delta') {
        const delta = inputDelta.shown(part.id, part.delta);
        if (delta !== null) publisher?.publish({ type: 'tool-input-delta', ...at, toolCallId: part.id, delta });
      } else if (part.type === 'tool-input-end')
        publisher?.publish({ type: 'tool-input-end', ...at, toolCallId: part.id });
      else if (part.type === 'error') throw part.error;
      activity.heartbeat();
    }
  } catch (err) {
    // What the model wrote before it failed reaches the run too: a UI shows it until `model-retry`.
    await flush().catch(() => undefined);
    throw err;
  }
  // Every delta is in the stream before the step's result is: the workflow publishes after it.
  await flush();
  return result;
}

/** The provider's tool for the run's model; a model without one fails the run before anything is sent. */
function providerTool(
  model: LanguageModel,
  toolName: string,
  spec: NonNullable<ModelToolDefinition['provider']>,
  modelName: string | undefined,
): Tool {
  try {
    return nativeProviderTool(model, spec, { toolName, modelName });
  } catch (err) {
    // No retry gives the model a web search: the run fails with the reason at once.
    if (err instanceof WebSearchUnavailableError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}

/** A part of the step's content that is a tool call (the AI SDK's own, with its parse result). */
interface SdkToolCall extends StepContentPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  invalid?: boolean;
}

/** What one model step answered, from `generateText` or `streamText`. */
interface StepAnswer {
  text: string;
  content: readonly StepContentPart[];
  finishReason: CallModelOutput['finishReason'];
  usage: LanguageModelUsage;
  responseMessages: ModelMessage[];
}

async function output(agent: Agent, call: ResolvedCall, answer: StepAnswer): Promise<CallModelOutput> {
  const { runId } = call;
  const { text, finishReason, usage, responseMessages } = answer;
  const assistant = responseMessages.filter((m) => m.role === 'assistant').map((m) => toJson(m) as Message);
  // The calls the provider ran itself are done: the run records them, and carries out the others.
  const toolCalls = answer.content.filter(
    (part): part is SdkToolCall => part.type === 'tool-call' && !part.providerExecuted,
  );
  return {
    text,
    ...providerResults(runId, answer.content),
    toolCalls: markDuplicateIds(
      toolCalls.map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args: toJson(call.input),
        fingerprint: toolCallFingerprint({ runId, ...call, args: toJson(call.input) }),
        ...(call.invalid ? { invalid: invalidCallMessage(call.toolName, call.error) } : {}),
      })),
    ),
    finishReason,
    usage: usageOf(usage),
    assistantMessages: await Promise.all(assistant.map((m) => transcribedCalls(agent, call, m))),
  };
}

function usageOf(usage: LanguageModelUsage): Usage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
  };
}

/** The tool's lifecycle hooks, as AI SDK tool hooks; they observe, so their errors are logged, not thrown. */
function lifecycleHooks(registered: AnyTool, toolName: string, input: CallModelInput) {
  const base = (toolCallId: string): ToolHookContext => ({
    runId: input.runId,
    agentId: input.agentId,
    toolCallId,
    toolName,
  });
  const guard = async (hook: string, run: () => void | Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (err) {
      Context.current().log.warn(`tool hook ${hook} of "${toolName}" threw; ignored`, {
        error: errorMessage(err),
      });
    }
  };
  const { onInputStart, onInputDelta } = registered;
  // Typed by the tool's own schema; the AI SDK hands it the input it checked against that schema.
  const onInputAvailable = registered.onInputAvailable as
    ((context: ToolHookContext & { input: unknown }) => void | Promise<void>) | undefined;
  return {
    ...(onInputStart
      ? { onInputStart: (o: { toolCallId: string }) => guard('onInputStart', () => onInputStart(base(o.toolCallId))) }
      : {}),
    ...(onInputDelta
      ? {
          onInputDelta: (o: { toolCallId: string; inputTextDelta: string }) =>
            guard('onInputDelta', () => onInputDelta({ ...base(o.toolCallId), inputTextDelta: o.inputTextDelta })),
        }
      : {}),
    ...(onInputAvailable
      ? {
          onInputAvailable: (o: { toolCallId: string; input: unknown }) =>
            guard('onInputAvailable', () => onInputAvailable({ ...base(o.toolCallId), input: o.input })),
        }
      : {}),
  };
}

/**
 * Marks the calls that cannot run invalid: every call after the first with the same id (pending calls
 * and decisions are keyed by tool-call id, so a model or server that repeats an id in one step must
 * not get one approval for two calls), an id too long to key a call, or arguments too large to carry.
 */
export function markDuplicateIds(calls: ModelToolCall[]): ModelToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    if (call.toolCallId.length > MAX_ID) {
      const invalid = `The tool call id has ${call.toolCallId.length} characters, over ${MAX_ID}; it did not run.`;
      return { ...call, invalid };
    }
    const bytes = jsonBytes(call.args);
    if (bytes > MAX_DATA_BYTES) {
      const invalid = `The arguments are ${kib(bytes)} of JSON, over ${kib(MAX_DATA_BYTES)}; this call did not run.`;
      return { ...call, invalid };
    }
    if (!seen.has(call.toolCallId)) {
      seen.add(call.toolCallId);
      return call;
    }
    return {
      ...call,
      invalid:
        `Tool call id "${clip(call.toolCallId)}" was used twice in one step; this call did not run. ` +
        'Give each call its own id.',
    };
  });
}

function invalidCallMessage(toolName: string, error: unknown): string {
  const reason = errorMessage(error);
  return `Invalid call of tool "${toolName}": ${reason}. Call it again with arguments that match its input schema.`;
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
