/**
 * A model step's answer as the run records it: the calls it asks the run to carry out, each checked and
 * marked invalid when it cannot run, what the provider ran itself, its usage and its assistant messages.
 */
import type { LanguageModelUsage, ModelMessage } from 'ai';
import type { Agent } from '../../../agent.js';
import { errorMessage } from '../../../errors.js';
import { toolCallFingerprint } from '../../../approvals/fingerprint.js';
import type { CallModelOutput, ModelToolCall } from '../../../protocol/activities.js';
import { clip, jsonBytes, kib, MAX_DATA_BYTES, MAX_ID } from '../../../schemas/limits.js';
import type { Message } from '../../../schemas/message.js';
import { checkObject, type ObjectCheck, type StructuredOutputSpec } from '../../../schemas/structured-output.js';
import type { Usage } from '../../../schemas/run-result.js';
import { toJson, transcribedCalls } from '../tools/transform-payload.js';
import { CHECK_BUDGET_MS, inTime } from '../checked-in-time.js';
import type { ResolvedCall } from './call-conversation.js';
import { providerResults, type StepContentPart } from './provider-calls.js';

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

/** The step's answer as the activity returns it to the run. */
export async function stepOutput(agent: Agent, call: ResolvedCall, answer: StepAnswer): Promise<CallModelOutput> {
  const { runId } = call;
  const { text, finishReason, usage, responseMessages } = answer;
  const assistant = responseMessages.filter((m) => m.role === 'assistant').map((m) => toJson(m) as Message);
  // The calls the provider ran itself are done: the run records them, and carries out the others.
  const toolCalls = answer.content.filter(
    (part): part is SdkToolCall => part.type === 'tool-call' && !part.providerExecuted,
  );
  // A step that calls no tool is the run's answer: with an output schema, it must be that object.
  const object =
    call.structuredOutput && toolCalls.length === 0 ? checkedInTime(call.structuredOutput, text, finishReason) : {};
  return {
    text,
    ...object,
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

/**
 * `checkObject`, stopped after {@link CHECK_BUDGET_MS}: the output schema is the caller's, and its
 * patterns run against the model's answer.
 */
function checkedInTime(spec: StructuredOutputSpec, text: string, finishReason: string): ObjectCheck {
  const checked = inTime(() => checkObject(spec, text, finishReason));
  if ('value' in checked) return checked.value;
  return {
    objectError:
      `The answer could not be checked against the output schema within ${CHECK_BUDGET_MS / 1000} s (a pattern ` +
      'that backtracks on it, or too many references): simplify the schema.',
  };
}

function usageOf(usage: LanguageModelUsage): Usage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
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
