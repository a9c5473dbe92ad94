/** What a run shows: its result when it finishes or pauses, step by step, and its memo. Sandbox-safe. */
import { z } from 'zod';
import { PendingToolCallSchema, DecisionRecordSchema } from './decisions.js';
import { AccessRuleSchema, PrincipalSchema } from './access.js';
import { AutoResumeSettingsSchema } from './auto-resume.js';
import { JsonValueSchema, type JsonValue } from './json.js';
import { MessageSchema } from './message.js';
import { RUN_STATUSES } from './run-status.js';
import { MAX_ID } from './limits.js';
import { objectOfText } from './structured-output.js';

export const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Set on the calls and results of tools the model's provider ran inside the model call (a web search). */
const providerExecuted = { providerExecuted: z.literal(true).optional() };

export const ToolCallRecordSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  args: JsonValueSchema,
  ...providerExecuted,
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

export const ToolResultRecordSchema = z.discriminatedUnion('isError', [
  z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    isError: z.literal(false),
    output: JsonValueSchema,
    ...providerExecuted,
  }),
  z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    isError: z.literal(true),
    error: z.string(),
    /** Set when the call never ran because it was declined. */
    declined: z.literal(true).optional(),
    ...providerExecuted,
  }),
]);
export type ToolResultRecord = z.infer<typeof ToolResultRecordSchema>;

export const ModelFinishReasonSchema = z.enum([
  'stop',
  'length',
  'content-filter',
  'tool-calls',
  'error',
  'interrupted',
  'other',
]);
export type ModelFinishReason = z.infer<typeof ModelFinishReasonSchema>;

/** How many sources a step keeps, and how long their URLs (longer ones are dropped) and titles (clipped) may be. */
export const SOURCE_LIMITS = { perStep: 100, urlChars: 2048, titleChars: 500 } as const;

/** A web page the model's provider consulted or cited in a step (a web search's sources, URL citations). */
export const SourceRecordSchema = z.object({
  sourceType: z.literal('url'),
  id: z.string().max(256),
  url: z.string().max(SOURCE_LIMITS.urlChars),
  title: z.string().max(SOURCE_LIMITS.titleChars).optional(),
});
export type SourceRecord = z.infer<typeof SourceRecordSchema>;

export const StepRecordSchema = z.object({
  stepNumber: z.number(),
  text: z.string(),
  /** Every call of the step: those the provider ran inside the model call (`providerExecuted`) first. */
  toolCalls: z.array(ToolCallRecordSchema),
  toolResults: z.array(ToolResultRecordSchema),
  finishReason: ModelFinishReasonSchema,
  usage: UsageSchema,
  /** The pages the provider's web search found or the model cited, when there are any. */
  sources: z.array(SourceRecordSchema).max(SOURCE_LIMITS.perStep).optional(),
  /** The model that answered the step, where it was one of the agent's fallback models. */
  model: z.string().max(MAX_ID).optional(),
  /** A step that ended without tool calls in a run with an output schema: its text is that object, checked. */
  objectOk: z.literal(true).optional(),
  /** Why such a step's answer is not the object (not JSON, or it does not fit the schema). */
  objectError: z.string().optional(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunFinishReasonSchema = z.union([ModelFinishReasonSchema, z.literal('suspended')]);
export type RunFinishReason = z.infer<typeof RunFinishReasonSchema>;

/**
 * What a run's workflow returns when it finishes or pauses. The tool calls and results are in
 * `steps` only (results written before this held them twice more, in `toolCalls` and `toolResults`):
 * a large output counts once less against Temporal's payload limit.
 */
export const StoredRunResultSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  text: z.string(),
  steps: z.array(StepRecordSchema),
  /** Set in results written before they were derived from `steps`. */
  toolCalls: z.array(ToolCallRecordSchema).optional(),
  toolResults: z.array(ToolResultRecordSchema).optional(),
  usage: UsageSchema,
  /** `suspended` while the run waits on a tool call. */
  finishReason: RunFinishReasonSchema,
  /** The tool calls the run waits on (empty once it finished). */
  pendingToolCalls: z.array(PendingToolCallSchema),
  /** The most recent pending call, when suspended; `payload` is what the tool passed to `suspend()`. */
  suspendPayload: z
    .object({
      toolCallId: z.string(),
      toolName: z.string(),
      args: JsonValueSchema,
      fingerprint: z.string(),
      requiresApproval: z.boolean(),
      payload: JsonValueSchema.optional(),
    })
    .optional(),
  /** The whole conversation, ending with this run's messages. */
  messages: z.array(MessageSchema),
  /** The run's most recent decisions (`MEMO_DECISIONS`): approvals, declines, resumes, results, accepted or refused. */
  decisions: z.array(DecisionRecordSchema).default([]),
  /** Why a finished run with an output schema has no object; the client raises it as `StructuredOutputError`. */
  objectError: z.string().optional(),
});
export type StoredRunResult = z.output<typeof StoredRunResultSchema>;

/** The most recent pending call of a run that waits, and what its tool passed to `suspend()`. */
export type SuspendPayload = NonNullable<StoredRunResult['suspendPayload']>;

/**
 * Whether the run waits: `finishReason === 'suspended'` narrows a result to one with `suspendPayload`,
 * as Mastra's samples read it (`output.suspendPayload.toolName`).
 */
export type RunOutcome =
  | { finishReason: 'suspended'; suspendPayload: SuspendPayload }
  // A run that waits only on client tools' results ends its step with `tool-calls`, and names the call too.
  | { finishReason: Exclude<RunFinishReason, 'suspended'>; suspendPayload?: SuspendPayload };

/** What a run returns when it finishes or pauses, as the client gives it: every tool call and result of its steps. */
export const RunResultSchema = StoredRunResultSchema.transform(
  ({ toolCalls, toolResults, finishReason, suspendPayload, ...result }, ctx) => {
    const object = finalObject(result);
    const last = result.pendingToolCalls[result.pendingToolCalls.length - 1];
    // A result names its most recent pending call; one written without it still lists the call.
    const waitingOn = suspendPayload ?? (last && suspendPayloadOf(last));
    if (finishReason === 'suspended' && !waitingOn) {
      ctx.addIssue({ code: 'custom', message: 'a suspended run result names no pending call' });
      return z.NEVER;
    }
    const outcome: RunOutcome =
      finishReason === 'suspended'
        ? { finishReason, suspendPayload: waitingOn! }
        : { finishReason, ...(suspendPayload ? { suspendPayload } : {}) };
    return {
      ...result,
      ...outcome,
      toolCalls: toolCalls ?? result.steps.flatMap((s) => s.toolCalls),
      toolResults: toolResults ?? result.steps.flatMap((s) => s.toolResults),
      ...(object !== undefined ? { object } : {}),
    };
  },
);

function suspendPayloadOf(call: z.output<typeof PendingToolCallSchema>): SuspendPayload {
  const { toolCallId, toolName, args, fingerprint, requiresApproval, suspendPayload } = call;
  return {
    toolCallId,
    toolName,
    args,
    fingerprint,
    requiresApproval,
    ...(suspendPayload !== undefined ? { payload: suspendPayload } : {}),
  };
}

/**
 * A finished run's object (`structuredOutput`): its last step's text, which the worker checked against
 * the schema. Kept once, as the text: a large answer counts once less against the payload limit.
 */
export function finalObject(
  result: Pick<StoredRunResult, 'steps' | 'pendingToolCalls' | 'objectError'>,
): JsonValue | undefined {
  const last = result.steps[result.steps.length - 1];
  if (!last?.objectOk || result.objectError !== undefined || result.pendingToolCalls.length > 0) return undefined;
  return objectOfText(last.text);
}
export type RunResult<TObject = JsonValue> = DistributiveOmit<z.output<typeof RunResultSchema>, 'object'> & {
  /** A finished run with an output schema (`structuredOutput`): its answer as that object. */
  object?: TObject;
};

/** `Omit` over each member of a union, so that a discriminant still narrows. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** How many fallback-answered steps the memo lists. */
export const MEMO_MODEL_FALLBACKS = 20;

/**
 * The run's state as its memo shows it, kept by the workflow on every change. Read with
 * DescribeWorkflowExecution or a visibility list, it needs no worker.
 */
export const RunMemoSchema = z.object({
  status: RunStatusSchema,
  /** Grows on every change of the pending calls, so waiters can tell "the next pause" from this one. */
  version: z.number(),
  pendingToolCalls: z.array(PendingToolCallSchema),
  decisions: z.array(DecisionRecordSchema),
  /** Who started the run, when known: they may read it, and may not approve its calls unless allowed. */
  startedBy: PrincipalSchema.optional(),
  /** Who may read the run (the agent's rule; unset: anyone who may act on it). */
  read: AccessRuleSchema.optional(),
  /** What a new message on the run's thread may decide (auto-resume); unset for a run on no thread. */
  autoResume: AutoResumeSettingsSchema.optional(),
  /** How many more calls the run waits on than the memo could list (see `fitMemo`); the run's result lists all. */
  omittedPendingToolCalls: z.number().int().optional(),
  /** The steps one of the agent's fallback models answered, the last {@link MEMO_MODEL_FALLBACKS}. */
  modelFallbacks: z
    .array(z.object({ stepNumber: z.number().int(), model: z.string().max(MAX_ID) }))
    .max(MEMO_MODEL_FALLBACKS)
    .optional(),
});

export type RunMemo = z.infer<typeof RunMemoSchema>;
export const RUN_MEMO_KEY = 'agentRun';
/** The memo key of a run's refusals (see `RefusalSummarySchema`), apart from its memo. */
export const RUN_REFUSALS_MEMO_KEY = 'agentRunRefusals';
