/** The options of one run: what the model is given and how the run behaves. Sandbox-safe. */
import { z } from 'zod';
import {
  boundedJson,
  IdSchema,
  MAX_ID,
  MAX_PROVIDER_OPTIONS_BYTES,
  MAX_REQUEST_CONTEXT_BYTES,
  MAX_TEXT,
} from './limits.js';
import { JsonValueSchema, type JsonValue } from './json.js';
import { ScriptSchema } from './script.js';
import { StructuredOutputSpecSchema } from './structured-output.js';

export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('tool'), toolName: IdSchema }).strict(),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/**
 * Options of the model's provider, by the provider's AI SDK name, as the AI SDK passes them
 * (`{ anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } }, openai: { reasoningEffort: 'low' } }`):
 * plain JSON, measured before it is read, at most 16 KiB. The provider's package checks its own.
 */
// Measured first (size and depth, without recursion), then checked as records of JSON values.
export const ProviderOptionsSchema = (boundedJson(MAX_PROVIDER_OPTIONS_BYTES) as z.ZodType<unknown>)
  // zod would drop such a key without a word: refuse it, as any key that cannot be what it says.
  .refine((value) => !hasProtoKey(value, 2), 'a provider or option may not be named "__proto__"')
  .pipe(z.record(IdSchema, z.record(IdSchema, JsonValueSchema)));

/** Whether `value` has an own `__proto__` key within its first `depth` levels. */
function hasProtoKey(value: unknown, depth: number): boolean {
  if (depth === 0 || typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some((v) => hasProtoKey(v, depth - 1));
}
export type ProviderOptions = Record<string, Record<string, JsonValue>>;

/**
 * Model call settings passed through to the AI SDK. On an agent (`defaultOptions.modelSettings`) they are
 * defaults a run may change key by key, except `maxOutputTokens`, a ceiling a run may only lower, and
 * `providerOptions`, which the agent owns unless it lists them in `overridable`.
 */
export const ModelSettingsSchema = z
  .object({
    temperature: z.number().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    topP: z.number().optional(),
    topK: z.number().optional(),
    presencePenalty: z.number().optional(),
    frequencyPenalty: z.number().optional(),
    stopSequences: z.array(z.string().max(MAX_ID)).max(16).optional(),
    seed: z.number().int().optional(),
    providerOptions: ProviderOptionsSchema.optional(),
  })
  .strict();
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

export const DEFAULT_MAX_STEPS = 10;

/** A name the model calls a tool by. */
export const ToolNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name is 1-64 letters, digits, _ or -');

/**
 * A tool a run brings along that the caller runs (Mastra's `clientTools`, and `toolsets`): stored with
 * the run as data. The run pauses at each call for the caller's result, as for an agent's tool without
 * `execute`.
 */
export const ClientToolSchema = z
  .object({
    description: z.string().max(MAX_TEXT).optional(),
    /** JSON schema of the tool's input (an object). */
    inputSchema: z.record(z.string(), z.unknown()),
    /** Pause each call for approval before the caller is asked for its result. */
    requireApproval: z.boolean().optional(),
  })
  .strict();
export type ClientToolSpec = z.infer<typeof ClientToolSchema>;

/**
 * A run's request context: serialisable values (who asks, their tier, a locale) that reach its tools,
 * hooks, transforms and sub-agents, stored with the run. Keys are ids; the whole is bounded.
 */
// Measured first (size and depth, without recursion), then checked as a record of JSON values.
export const RequestContextSchema = (boundedJson(MAX_REQUEST_CONTEXT_BYTES) as z.ZodType<unknown>).pipe(
  z.record(IdSchema, JsonValueSchema),
);
export type RequestContextValues = Record<string, JsonValue>;

/**
 * Options of one run. They are stored with the run in its Temporal history, so they must be
 * serialisable: no functions.
 */
export const RunOptionsSchema = z
  .object({
    /** Model name for this run (`scripted`, `openai/<model>`, ...); defaults to the agent's model. */
    model: IdSchema.optional(),
    /** The script for the `scripted` model. */
    script: ScriptSchema.optional(),
    /** Most model calls in the run (default 10). */
    maxSteps: z.number().int().positive().optional(),
    toolChoice: ToolChoiceSchema.optional(),
    /** Names of the tools the model may call in this run; defaults to all of the agent's tools. */
    activeTools: z.array(IdSchema).max(256).optional(),
    /** Replaces the agent's instructions for this run. */
    instructions: z.string().optional(),
    /**
     * The run joins this thread (within `resourceId`): its model sees the thread's earlier messages and
     * its turn is recorded there (see docs/guides/threads-and-memory.md). Search attributes carry them
     * (`AgentThreadId`, `AgentResourceId`): ids of at most 256 characters.
     */
    threadId: IdSchema.optional(),
    resourceId: IdSchema.optional(),
    modelSettings: ModelSettingsSchema.optional(),
    /**
     * The final answer is an object that fits this JSON schema (`result.object`): the model is asked for
     * JSON in its provider's JSON mode, and its answer is checked. On an agent (its `structuredOutput`),
     * a default a run may replace with its own.
     */
    structuredOutput: StructuredOutputSpecSchema.optional(),
    /**
     * A new user message on the run's thread resumes a call of a suspended run there (Mastra's
     * `autoResumeSuspendedTools`): the model extracts the data for the tool's `resumeSchema` from the
     * message. Set on an agent's `defaultOptions`, or on the run that carries the message.
     */
    autoResumeSuspendedTools: z.boolean().optional(),
    /**
     * Approvals too may be decided from the next message on the thread (by a principal allowed to
     * approve the call). Only an agent's `defaultOptions` may turn it on; a run may only turn it off.
     */
    autoResumeApprovals: z.boolean().optional(),
    /** Pause every tool call of the run for approval (tools can also ask for it themselves). */
    requireToolApproval: z.boolean().optional(),
    /**
     * Start a fresh history (continue-as-new) every this many steps; without it, when Temporal
     * suggests it. The run id stays; its result, trail and stream go on.
     */
    continueAsNewEvery: z.number().int().positive().optional(),
    /**
     * Values for the run's tools, hooks and transforms (`context.requestContext`), within what the
     * agent's `requestContextSchema` allows; sub-agents get the run's own.
     */
    requestContext: RequestContextSchema.optional(),
    /**
     * Tools of this run that the caller runs, by the name the model calls them (`clientTools` and the
     * tools of `toolsets`, as the client stores them): offered next to the agent's own tools.
     */
    clientTools: z.record(ToolNameSchema, ClientToolSchema).optional(),
    /** Options for the runs of sub-agents, by their key in `agents` (e.g. a model, or a script). */
    get subAgentOptions(): z.ZodOptional<z.ZodRecord<z.ZodString, typeof RunOptionsSchema>> {
      return z.record(z.string(), RunOptionsSchema).optional();
    },
  })
  .strict();
export type RunOptions = z.infer<typeof RunOptionsSchema>;
