import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { APICallError, generateText, jsonSchema, tool, type JSONSchema7, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import { toolCallFingerprint } from '../approvals/fingerprint.js';
import { resolveModel, type ModelFactory } from '../models/registry.js';
import type { AgentRegistry } from '../registry.js';
import type { JsonValue, Message } from '../schemas.js';
import type { CallModelInput, CallModelOutput, ModelToolCall } from './contracts.js';

/**
 * One model step through the AI SDK. Tools are passed without `execute`, so the AI SDK stops after
 * the model's answer and the workflow decides what runs. Arguments are checked here against the
 * tool's zod schema so that a malformed call reaches the workflow already marked invalid.
 */
export async function callModel(
  registry: AgentRegistry,
  factories: Record<string, ModelFactory>,
  input: CallModelInput,
): Promise<CallModelOutput> {
  const agent = registry.get(input.agentId);
  const model: LanguageModel = input.model
    ? resolveModel(input.model, { script: input.script }, factories)
    : (agent.model as LanguageModel);

  const tools: ToolSet = {};
  for (const def of input.tools) {
    const schema = agent.tools[def.name]?.inputSchema;
    tools[def.name] = tool({
      description: def.description,
      inputSchema: jsonSchema(def.inputSchema as JSONSchema7, {
        validate: (value) => {
          if (!schema) return { success: true, value };
          const parsed = schema.safeParse(value);
          return parsed.success ? { success: true, value } : { success: false, error: new Error(z.prettifyError(parsed.error)) };
        },
      }),
    });
  }

  try {
    const result = await generateText({
      model,
      instructions: input.instructions,
      messages: input.messages as ModelMessage[],
      tools,
      toolChoice: input.toolChoice,
      maxRetries: 0, // Temporal retries the activity
      abortSignal: Context.current().cancellationSignal,
      ...input.settings,
    });
    const usage = result.usage;
    return {
      text: result.text,
      toolCalls: markDuplicateIds(
        result.toolCalls.map((call) => ({
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          args: toJson(call.input),
          fingerprint: toolCallFingerprint(call.toolName, toJson(call.input)),
          ...('invalid' in call && call.invalid ? { invalid: invalidCallMessage(call.toolName, call.error) } : {}),
        })),
      ),
      finishReason: result.finishReason,
      usage: {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
      },
      assistantMessages: result.response.messages.filter((m) => m.role === 'assistant').map((m) => toJson(m) as Message),
    };
  } catch (err) {
    if (APICallError.isInstance(err) && !err.isRetryable) {
      throw ApplicationFailure.nonRetryable(`${err.message} (HTTP ${err.statusCode ?? '?'} from ${err.url})`, 'ModelCallRejected');
    }
    throw err;
  }
}

/**
 * Marks every call after the first with the same id invalid. Pending calls and decisions are keyed
 * by tool-call id, so a model (or server) that repeats an id in one step must not get one approval
 * for two calls.
 */
export function markDuplicateIds(calls: ModelToolCall[]): ModelToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    if (!seen.has(call.toolCallId)) {
      seen.add(call.toolCallId);
      return call;
    }
    return { ...call, invalid: `Tool call id "${call.toolCallId}" was used twice in one step; this call did not run. Give each call its own id.` };
  });
}

function invalidCallMessage(toolName: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `Invalid call of tool "${toolName}": ${reason}. Call it again with arguments that match its input schema.`;
}

/** Activity results travel as JSON; this makes that explicit (undefined dropped, dates as strings). */
export function toJson(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}
