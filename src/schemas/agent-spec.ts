/**
 * What the workflow knows of an agent and its tools: names, descriptions, JSON schemas and flags,
 * recorded in the run's history by `describeAgent`. Sandbox-safe.
 */
import { z } from 'zod';
import { AccessPolicySchema } from './access.js';
import { ApprovalDeadlineSpecSchema } from './deadline.js';
import { MAX_DECLINE_MESSAGE, MAX_ID } from './limits.js';
import { ModelRetrySpecSchema } from './model-retry.js';
import { RunOptionsSchema, type RunOptions } from './run-options.js';
import { MemoryOptionsSchema } from './thread.js';
import { DISPLAY_STAGES, TRANSCRIPT_STAGES } from './transform-stages.js';

const Duration = z.union([z.string(), z.number()]);

/** Temporal activity settings for one tool; durations are Temporal duration strings or ms. */
export const ToolActivityOptionsSchema = z
  .object({
    startToCloseTimeout: Duration.optional(),
    retry: z
      .object({
        maximumAttempts: z.number().int().nonnegative().optional(),
        initialInterval: Duration.optional(),
        maximumInterval: Duration.optional(),
        backoffCoefficient: z.number().optional(),
        nonRetryableErrorTypes: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    /**
     * Set it for long or crash-prone tools: the worker heartbeats while the tool runs, so a dead worker
     * is noticed this soon.
     */
    heartbeatTimeout: Duration.optional(),
  })
  .strict();
export type ToolActivityOptions = z.infer<typeof ToolActivityOptionsSchema>;

const JsonSchemaObject = z.record(z.string(), z.unknown());

/** Where a web search is to seem to come from, roughly: the providers' `userLocation`. */
const UserLocationSchema = z
  .object({
    type: z.literal('approximate'),
    country: z.string().max(MAX_ID).optional(),
    city: z.string().max(MAX_ID).optional(),
    region: z.string().max(MAX_ID).optional(),
    timezone: z.string().max(MAX_ID).optional(),
  })
  .strict();

/** Domains without "http(s)://", subdomains included: at most 100. */
const DomainsSchema = z.array(z.string().min(1).max(MAX_ID)).max(100).optional();

/**
 * The options of a provider's native web search, by provider: plain data, recorded with the agent's
 * spec: OpenAI's, those of `openai.tools.webSearch()` (Responses API `web_search`); Anthropic's and
 * Google's, those of their packages' own web search tools.
 */
export const WebSearchOptionsSchema = z
  .object({
    openai: z
      .object({
        /** Fetch live content (default), or use cached and indexed results only. */
        externalWebAccess: z.boolean().optional(),
        /** Domains without "http(s)://"; subdomains included. At most 100 each. */
        filters: z
          .object({
            allowedDomains: DomainsSchema,
            blockedDomains: DomainsSchema,
          })
          .strict()
          .optional(),
        searchContextSize: z.enum(['low', 'medium', 'high']).optional(),
        userLocation: UserLocationSchema.optional(),
      })
      .strict()
      .optional(),
    /** Anthropic's `web_search` (`anthropic.tools.webSearch_20250305()`). */
    anthropic: z
      .object({
        /** Most searches in one model call. */
        maxUses: z.number().int().min(1).max(100).optional(),
        /** Only these domains; not with `blockedDomains`. At most 100. */
        allowedDomains: DomainsSchema,
        /** Never these domains. At most 100. */
        blockedDomains: DomainsSchema,
        userLocation: UserLocationSchema.optional(),
      })
      .strict()
      .refine((o) => !(o.allowedDomains && o.blockedDomains), 'set allowedDomains or blockedDomains, not both')
      .optional(),
    /** Gemini's grounding with Google Search (`google.tools.googleSearch()`). */
    google: z
      .object({
        /** Only results published between these times (RFC 3339). */
        timeRangeFilter: z
          .object({ startTime: z.string().max(MAX_ID), endTime: z.string().max(MAX_ID) })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type WebSearchOptions = z.infer<typeof WebSearchOptionsSchema>;

/** What an agent owns and may let a run set after all (`overridable`). */
export const OVERRIDABLE = ['model', 'instructions', 'providerOptions'] as const;
export type Overridable = (typeof OVERRIDABLE)[number];

/** A tool the model's provider runs itself, inside the model call: what the model activity asks the provider for. */
export const ProviderToolSchema = z.object({ type: z.literal('web-search'), options: WebSearchOptionsSchema });
export type ProviderToolSpec = z.infer<typeof ProviderToolSchema>;

/** The stages of a call that transforms change. */
const TransformStagesSchema = z.object({
  display: z.array(z.enum(DISPLAY_STAGES)),
  transcript: z.array(z.enum(TRANSCRIPT_STAGES)),
});

/** What every kind of tool has: its name (the registration key), description and input schema. */
const toolBase = {
  name: z.string(),
  id: z.string(),
  description: z.string(),
  inputSchema: JsonSchemaObject,
  requireApproval: z.boolean(),
  /** How long a call of it may wait for approval, and whom it escalates to first (overrides the agent's). */
  approvalDeadline: ApprovalDeadlineSpecSchema.optional(),
  /** The stages of a call that the tool's or the agent's transforms change (the code is on the worker). */
  transform: TransformStagesSchema.optional(),
  /** The tool has a `toModelOutput`: outputs that did not come from its `execute` are shaped on the worker. */
  modelOutput: z.boolean().optional(),
};

/**
 * What the workflow knows of a tool, by how it runs: `tool` (execute on the worker), `client` (no
 * execute: the caller supplies the result), `agent` (a sub-agent's run, as a child workflow),
 * `workflow` (a Temporal workflow, as a child), `provider` (the model's provider runs it inside the
 * model call: nothing waits for it, and the run only records what the provider did).
 */
export const ToolSpecSchema = z.discriminatedUnion('kind', [
  z.object({
    ...toolBase,
    kind: z.literal('tool'),
    /** JSON schema of the data `resume` must send, for tools that may suspend. */
    resumeSchema: JsonSchemaObject.optional(),
    activity: ToolActivityOptionsSchema.optional(),
    /** The tool may run twice for one call without harm: an approved call of it is retried like any other. */
    idempotent: z.boolean().optional(),
    /** An MCP server's tool: its key in `mcpServers`. A call waits out the server's being down. */
    mcpServer: z.string().optional(),
    /** The tool has a `preview`: a call that needs approval shows it, and is bound to it (`previewTool`). */
    preview: z.boolean().optional(),
  }),
  z.object({
    ...toolBase,
    kind: z.literal('client'),
    /** A client tool the run brought (`clientTools`): its `requireApproval` is the run's, not the agent's. */
    fromRun: z.literal(true).optional(),
  }),
  z.object({
    ...toolBase,
    kind: z.literal('agent'),
    /** The sub-agent's id, and its key in `agents`. */
    subAgent: z.object({ id: z.string(), key: z.string() }),
  }),
  z.object({
    ...toolBase,
    kind: z.literal('workflow'),
    /** JSON schema the workflow's result must fit. */
    outputSchema: JsonSchemaObject.optional(),
    /** The workflow type and task queue to start. */
    workflow: z.object({ type: z.string(), taskQueue: z.string().optional() }),
  }),
  z.object({ ...toolBase, kind: z.literal('provider'), provider: ProviderToolSchema }),
]);
export type ToolSpec = z.infer<typeof ToolSpecSchema>;
export type ToolSpecOf<K extends ToolSpec['kind']> = Extract<ToolSpec, { kind: K }>;

/** The serialisable description of an agent, recorded in the run's history by `describeAgent`. */
export const AgentSpecSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  instructions: z.string(),
  /** The agent's model name, or undefined when the agent was given a model instance. */
  model: z.string().optional(),
  /** Models that answer a step, in order, when the model's provider fails. */
  fallbackModels: z.array(z.string().max(MAX_ID)).max(4).optional(),
  tools: z.array(ToolSpecSchema),
  /** The agent's options: defaults for what callers may set, bounds (approval, tools, steps) runs may tighten. */
  defaultOptions: RunOptionsSchema.optional(),
  /** Who may start, read and decide. */
  access: AccessPolicySchema.optional(),
  /** Agent-owned options a run may set after all (e.g. the model, for a test or a comparison). */
  overridable: z.array(z.enum(OVERRIDABLE)).optional(),
  /** Set when the worker has decision keys: every decision must carry a valid signature. */
  signedDecisions: z.boolean().optional(),
  /** The agent's approval deadline, for calls of tools that set none. */
  approvalDeadline: ApprovalDeadlineSpecSchema.optional(),
  /** What the model is told of a declined call: `'mastra'`, or a text with placeholders (see `defineAgent`). */
  declineMessage: z.string().max(MAX_DECLINE_MESSAGE).optional(),
  /** Set when the worker sends notifications: the run tells its webhook when calls wait, are decided or expire. */
  notifications: z.boolean().optional(),
  /**
   * Set when the worker has a payload store (external storage): the larger limits of a tool's output
   * and the conversation it keeps to (`STORED_PAYLOAD_LIMITS`); else `INLINE_PAYLOAD_LIMITS`.
   */
  payloadLimits: z.object({ maxToolOutputBytes: z.number(), maxConversationBytes: z.number() }).optional(),
  /** JSON schema of what a run's request context may hold; without it, a run may carry none. */
  requestContextSchema: JsonSchemaObject.optional(),
  /** The stages the agent's own transforms change, for tools a run brings along (`clientTools`). */
  agentTransform: TransformStagesSchema.optional(),
  /** Which of the agent's hooks exist (the code is on the worker): the run calls them around every tool call. */
  hooks: z.object({ beforeToolCall: z.boolean(), afterToolCall: z.boolean() }).optional(),
  /** How runs on a thread see its earlier messages (`lastMessages`). */
  memory: MemoryOptionsSchema.optional(),
  /** How long a model step is retried while its provider fails (the agent's, else the worker's; else the default). */
  modelRetry: ModelRetrySpecSchema.optional(),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/**
 * The spec as the run uses it. Specs recorded before tools had a `kind` (in the histories of runs
 * started then) describe tools that execute on the worker.
 */
export function withToolKinds(spec: AgentSpec): AgentSpec {
  // Typed as today's spec, but recorded data may lack the field: test it as data.
  const kindOf = (tool: ToolSpec): ToolSpec['kind'] | undefined => (tool as { kind?: ToolSpec['kind'] }).kind;
  return { ...spec, tools: spec.tools.map((tool) => (kindOf(tool) ? tool : { ...tool, kind: 'tool' })) };
}

/**
 * The spec with the run's own client tools (`clientTools`, `toolsets`) after the agent's tools: the
 * caller supplies their results. Only the agent's transforms apply to them. A run without any has the
 * agent's spec as it is (a name both have is refused before, by `effectiveRunOptions`).
 */
export function withClientTools(spec: AgentSpec, clientTools: RunOptions['clientTools']): AgentSpec {
  const entries = Object.entries(clientTools ?? {});
  if (entries.length === 0) return spec;
  const added = entries.map(([name, tool]): ToolSpec => ({
    name,
    id: name,
    kind: 'client',
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    requireApproval: tool.requireApproval ?? false,
    fromRun: true,
    ...(spec.agentTransform ? { transform: spec.agentTransform } : {}),
  }));
  return { ...spec, tools: [...spec.tools, ...added] };
}

/** The input of every `agent-<key>` tool: the task for the sub-agent. */
export const SubAgentInputSchema = z
  .object({
    prompt: z.string().min(1).describe('The task for the sub-agent, as a self-contained instruction'),
    context: z.string().optional().describe('Anything else the sub-agent should know'),
  })
  .strict();
