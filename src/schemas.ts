/**
 * The serialisable data that crosses the Temporal boundary: run input and options, the agent spec
 * the workflow sees, and the run result. Every type here is inferred from its zod schema, and the
 * schemas are checked where data enters (client, workflow start, activities).
 *
 * This module is imported by workflow code, so it must stay free of Node APIs and I/O.
 */
import { z } from 'zod';

/** A JSON value, as it travels through Temporal payloads. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/** One tool call in a scripted model step. */
export const ScriptedToolCallSchema = z
  .object({
    toolName: z.string().min(1),
    /** Arguments, sent to the runner as JSON. */
    args: JsonValueSchema.optional(),
    /** Raw argument text, sent as is (to script malformed arguments). Takes precedence over `args`. */
    rawArgs: z.string().optional(),
    /** Defaults to `call-<step>-<index>`. */
    toolCallId: z.string().min(1).optional(),
  })
  .strict();

/** One step of a scripted model: optional text and optional tool calls. */
export const ScriptStepSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(ScriptedToolCallSchema).optional(),
  })
  .strict()
  .refine((s) => s.text !== undefined || (s.toolCalls?.length ?? 0) > 0, {
    message: 'a script step needs text or at least one tool call',
  });

/** The script the offline `scripted` model plays, one entry per model call. */
export const ScriptSchema = z.array(ScriptStepSchema).min(1, 'a script needs at least one step');
export type ScriptedToolCall = z.infer<typeof ScriptedToolCallSchema>;
export type ScriptStep = z.infer<typeof ScriptStepSchema>;
export type Script = z.infer<typeof ScriptSchema>;

export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('tool'), toolName: z.string().min(1) }).strict(),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/** Model call settings passed through to the AI SDK. */
export const ModelSettingsSchema = z
  .object({
    temperature: z.number().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    topP: z.number().optional(),
    topK: z.number().optional(),
    presencePenalty: z.number().optional(),
    frequencyPenalty: z.number().optional(),
    stopSequences: z.array(z.string()).optional(),
    seed: z.number().int().optional(),
  })
  .strict();
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

export const DEFAULT_MAX_STEPS = 10;

/**
 * Options of one run. They are stored with the run in its Temporal history, so they must be
 * serialisable: no functions.
 */
export const RunOptionsSchema = z
  .object({
    /** Model name for this run (`scripted`, `openai/<model>`, ...); defaults to the agent's model. */
    model: z.string().min(1).optional(),
    /** The script for the `scripted` model. */
    script: ScriptSchema.optional(),
    /** Most model calls in the run (default 10). */
    maxSteps: z.number().int().positive().optional(),
    toolChoice: ToolChoiceSchema.optional(),
    /** Names of the tools the model may call in this run; defaults to all of the agent's tools. */
    activeTools: z.array(z.string()).optional(),
    /** Replaces the agent's instructions for this run. */
    instructions: z.string().optional(),
    threadId: z.string().min(1).optional(),
    resourceId: z.string().min(1).optional(),
    modelSettings: ModelSettingsSchema.optional(),
    /** Pause every tool call of the run for approval (tools can also ask for it themselves). */
    requireToolApproval: z.boolean().optional(),
    /**
     * Start a fresh history (continue-as-new) every this many steps; without it, when Temporal
     * suggests it. The run id stays; its result, trail and stream go on.
     */
    continueAsNewEvery: z.number().int().positive().optional(),
    /** Options for the runs of sub-agents, by their key in `agents` (e.g. a model, or a script). */
    get subAgentOptions(): z.ZodOptional<z.ZodRecord<z.ZodString, typeof RunOptionsSchema>> {
      return z.record(z.string(), RunOptionsSchema).optional();
    },
  })
  .strict();
export type RunOptions = z.infer<typeof RunOptionsSchema>;

/**
 * A conversation message, in the AI SDK's `ModelMessage` shape. Checked loosely here (role and
 * content) because the workflow only stores and forwards messages; the AI SDK checks them fully
 * when the model activity sends them.
 */
export const MessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  })
  .loose();
export type Message = z.infer<typeof MessageSchema>;

export const RunInputSchema = z
  .object({
    agentId: z.string().min(1),
    messages: z.array(MessageSchema).min(1, 'a run needs at least one message'),
    options: RunOptionsSchema,
    /**
     * Set by `stream()`: the model activity streams token deltas, and the finished run stays
     * readable for `graceMs` so that subscribers can read its last chunks.
     */
    stream: z.object({ graceMs: z.number().int().nonnegative() }).strict().optional(),
    /** Set for a sub-agent's run: the run and the tool call that delegated to it. */
    parent: z.object({ runId: z.string(), toolCallId: z.string() }).strict().optional(),
    /** What a run that continued as new carries over (the conversation is in `messages`). */
    get carry() {
      return z
        .object({
          spec: AgentSpecSchema,
          steps: z.array(StepRecordSchema),
          decisions: z.array(DecisionRecordSchema),
          version: z.number(),
          /** The run stream's state (`WorkflowStreamState` of @temporalio/workflow-streams). */
          stream: z.record(z.string(), z.unknown()),
        })
        .strict()
        .optional();
    },
  })
  .strict();
export type RunInput = z.infer<typeof RunInputSchema>;

/** Temporal activity settings for one tool; durations are Temporal duration strings or ms. */
export const ToolActivityOptionsSchema = z
  .object({
    startToCloseTimeout: z.union([z.string(), z.number()]).optional(),
    retry: z
      .object({
        maximumAttempts: z.number().int().nonnegative().optional(),
        initialInterval: z.union([z.string(), z.number()]).optional(),
        maximumInterval: z.union([z.string(), z.number()]).optional(),
        backoffCoefficient: z.number().optional(),
        nonRetryableErrorTypes: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    /** Set it for long or crash-prone tools: the worker heartbeats while the tool runs, so a dead worker is noticed this soon. */
    heartbeatTimeout: z.union([z.string(), z.number()]).optional(),
  })
  .strict();
export type ToolActivityOptions = z.infer<typeof ToolActivityOptionsSchema>;

/**
 * What the workflow knows of a tool: its name (the registration key), description and schema, and
 * how it runs: `tool` (execute on the worker), `client` (no execute: the caller supplies the result),
 * `agent` (a sub-agent's run, as a child workflow), `workflow` (a Temporal workflow, as a child).
 */
export const ToolSpecSchema = z.object({
  name: z.string(),
  id: z.string(),
  kind: z.enum(['tool', 'client', 'agent', 'workflow']),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  /** JSON schema the output must fit (workflow tools; tool outputs are checked on the worker). */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** For `agent`: the sub-agent's id, and its key in `agents`. */
  subAgent: z.object({ id: z.string(), key: z.string() }).optional(),
  /** For `workflow`: the workflow type and task queue to start. */
  workflow: z.object({ type: z.string(), taskQueue: z.string().optional() }).optional(),
  requireApproval: z.boolean(),
  /** JSON schema of the data `resume` must send, for tools that may suspend. */
  resumeSchema: z.record(z.string(), z.unknown()).optional(),
  activity: ToolActivityOptionsSchema.optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/** The serialisable description of an agent, recorded in the run's history by `describeAgent`. */
export const AgentSpecSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  instructions: z.string(),
  /** The agent's model name, or undefined when the agent was given a model instance. */
  model: z.string().optional(),
  tools: z.array(ToolSpecSchema),
  defaultOptions: RunOptionsSchema.optional(),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ToolCallRecordSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  args: JsonValueSchema,
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

export const ToolResultRecordSchema = z.discriminatedUnion('isError', [
  z.object({ toolCallId: z.string(), toolName: z.string(), isError: z.literal(false), output: JsonValueSchema }),
  z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    isError: z.literal(true),
    error: z.string(),
    /** Set when the call never ran because it was declined. */
    declined: z.literal(true).optional(),
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

export const StepRecordSchema = z.object({
  stepNumber: z.number(),
  text: z.string(),
  toolCalls: z.array(ToolCallRecordSchema),
  toolResults: z.array(ToolResultRecordSchema),
  finishReason: ModelFinishReasonSchema,
  usage: UsageSchema,
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

/** One hop from a run down to the sub-agent run that waits: that run, and the tool call that delegated to it. */
export const PathHopSchema = z.object({ runId: z.string(), agentId: z.string(), viaToolCallId: z.string() });
export type PathHop = z.infer<typeof PathHopSchema>;

/**
 * A tool call the run waits on: for an approval, for resume data after the tool suspended, or for a
 * client tool's result. A call that waits in a sub-agent's run (at any depth) is listed here too,
 * with `path` leading to it and a `toolCallId` qualified by the delegating calls
 * (`<delegating call>/<inner call>`), so that it is unique in this run.
 */
export const PendingToolCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  args: JsonValueSchema,
  fingerprint: z.string(),
  /** `approval`: approve or decline. `suspend`: resume data. `client`: a client tool's result. */
  kind: z.enum(['approval', 'suspend', 'client']),
  /** true for `approval`; kept for callers that only tell approvals from the rest. */
  requiresApproval: z.boolean(),
  /** The runs below this one that lead to where the call waits; empty when it waits here. */
  path: z.array(PathHopSchema),
  /** What the tool passed to `suspend()`. */
  suspendPayload: JsonValueSchema.optional(),
  /** JSON schema of the resume data the tool takes. */
  resumeSchema: z.record(z.string(), z.unknown()).optional(),
  /** When the run started waiting, ISO 8601. */
  askedAt: z.string(),
});
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

export const DecisionKindSchema = z.enum(['approve', 'decline', 'resume', 'result']);
export type DecisionKind = z.infer<typeof DecisionKindSchema>;

/** What an approve, decline or resume signal carries. */
export const DecisionSignalSchema = z
  .object({
    /** Chosen by the sender, so it can find the verdict in the run's decision trail. */
    decisionId: z.string().min(1),
    /** Default: the most recent pending call of the fitting kind. */
    toolCallId: z.string().min(1).optional(),
    /** When set, the call's fingerprint must equal it (an empty one matches nothing). */
    fingerprint: z.string().optional(),
    /** Who decided, for the trail. */
    by: z.string().max(200).optional(),
    /** Why (a decline's reason reaches the model). */
    reason: z.string().max(2000).optional(),
    resumeData: JsonValueSchema.optional(),
    /** A client tool's result (`result` decisions). */
    result: JsonValueSchema.optional(),
    /** Set when the sender streams the run from here: keep the finished run readable this long. */
    streamGraceMs: z.number().int().nonnegative().optional(),
    /**
     * Set by a client that refused the decision itself: the workflow only records it, so that the
     * history has every decision, and never applies it.
     */
    clientRefusal: z.lazy(() => z.object({ type: RefusalTypeSchema, message: z.string() }).strict()).optional(),
  })
  .strict();
export type DecisionSignal = z.infer<typeof DecisionSignalSchema>;

export const RefusalTypeSchema = z.enum([
  'NothingPending',
  'UnknownToolCall',
  'AlreadyDecided',
  'FingerprintMismatch',
  'WrongPauseKind',
  'InvalidResumeData',
  'InvalidDecision',
]);
export type RefusalType = z.infer<typeof RefusalTypeSchema>;

/** One decision in a run's trail, accepted or refused, with who, when and why. */
export const DecisionRecordSchema = z.object({
  decisionId: z.string(),
  kind: DecisionKindSchema,
  toolCallId: z.string().nullable(),
  toolName: z.string().nullable(),
  by: z.string().nullable(),
  reason: z.string().nullable(),
  at: z.string(),
  accepted: z.boolean(),
  refusal: z.object({ type: RefusalTypeSchema, message: z.string() }).optional(),
});
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

export const RunStatusSchema = z.enum(['running', 'suspended', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

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
});
export type RunMemo = z.infer<typeof RunMemoSchema>;
export const RUN_MEMO_KEY = 'agentRun';

export const RunFinishReasonSchema = z.union([ModelFinishReasonSchema, z.literal('suspended')]);
export type RunFinishReason = z.infer<typeof RunFinishReasonSchema>;

/** What a run returns when it finishes or pauses. */
export const RunResultSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  text: z.string(),
  steps: z.array(StepRecordSchema),
  toolCalls: z.array(ToolCallRecordSchema),
  toolResults: z.array(ToolResultRecordSchema),
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
  /** The run's decision trail: every approve, decline, resume and result, accepted or refused. */
  decisions: z.array(DecisionRecordSchema).default([]),
});
export type RunResult = z.infer<typeof RunResultSchema>;
