/**
 * What an agent is made of, as `defineAgent` takes it: its model, instructions, tools and policy. Its
 * sub-agents are added by `AgentConfig` (src/agent.ts), the one option that names an agent.
 */
import type { LanguageModel } from 'ai';
import type { z } from 'zod';
import type { Overridable } from './schemas/agent-spec.js';
import type { AccessPolicy } from './schemas/access.js';
import type { ApprovalDeadline } from './schemas/deadline.js';
import type { RunOptions } from './schemas/run-options.js';
import type { ModelRetry } from './schemas/model-retry.js';
import type { MemoryOptions } from './schemas/thread.js';
import type { ProviderTool } from './tools/builtin/web-search.js';
import type { AnyTool } from './tools/create-tool.js';
import type { AgentHooks } from './tools/hooks.js';
import type { McpServerConfig } from './tools/mcp.js';
import type { ToolTransforms } from './tools/transforms.js';
import type { WorkflowTool } from './tools/workflow-tool.js';
import type { Memory } from './memory.js';
import type { StructuredOutput } from './structured-output.js';

/** The options of `defineAgent` but its sub-agents (`AgentConfig` adds them). */
export interface AgentOptions {
  /** The id runs are started with, e.g. `client.generate('weather-agent', ...)`. */
  id: string;
  name: string;
  description?: string;
  /** The system instructions (none by default, as in Mastra's examples). */
  instructions?: string;
  /**
   * A model name the worker resolves (`scripted`, `openai/gpt-4o-mini`, ...), or an AI SDK
   * `LanguageModel` instance, which lives on the worker and is used for every run of this agent.
   */
  model: string | LanguageModel;
  /**
   * Models to answer a step, in order, when the model's provider fails before it streamed anything (a
   * rate limit, an outage, a refusal): model names the worker resolves, at most 4. The step records which
   * model answered it. A run that sets its own `model` (where the agent allows it) has no fallbacks.
   */
  fallbackModels?: string[];
  /**
   * Tools keyed by the name the model calls them by: tools made with `createTool`, and `webSearchTool`
   * (the model provider's own web search, which the provider runs inside the model call).
   */
  tools?: Record<string, AgentTool>;
  /**
   * MCP servers whose tools the agent offers, by name: `{ command, args?, env?, cwd? }` (a local server
   * over stdio, started by the worker) or `{ url, headers? }` (Streamable HTTP). Each tool is named
   * `<server>_<tool>`, as Mastra's `MCPClient.listTools()` names them. The worker connects and lists the
   * tools when a run starts; every call is an activity on the worker, with approval (`requireApproval`:
   * `true` or the tool names that need it), hooks, transforms and the idempotency key as for any tool.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** Temporal workflows: each key becomes a tool `workflow-<key>` that runs the workflow as a child. */
  workflows?: Record<string, WorkflowTool>;
  /**
   * The agent's options for every run. What callers may set (thread, resource, model settings, tool
   * choice) are defaults; the approval policy (`requireToolApproval`), the tools (`activeTools`) and
   * the step limit (`maxSteps`, default 10) are bounds a run may only tighten.
   */
  defaultOptions?: RunOptions;
  /** Who may start runs of this agent, read them, and decide their tool calls (see docs/guides/security.md). */
  access?: AccessPolicy;
  /**
   * How long any call of the agent may wait for approval, for tools that set no `approvalDeadline` of
   * their own (sub-agents', workflows', MCP servers' and client tools' calls too): see `createTool`.
   */
  approvalDeadline?: ApprovalDeadline;
  /**
   * What the model is told when a person declines one of the agent's calls. Default: `The call of tool
   * "<name>" was declined by <who>: <reason>. It did not run.`, as a denial (the AI SDK's
   * `execution-denied`). `'mastra'`: Mastra's words, `Tool call was not approved by the user`, as the
   * tool's result, so that a port of Mastra code sees what Mastra's model saw. Or a text of your own, with
   * the placeholders `{toolName}`, `{by}` (who declined) and `{reason}` (empty where there is none), as a
   * denial. The application's result keeps the decline as it is (`declined: true`) whatever the wording.
   */
  declineMessage?: string;
  /**
   * The agent owns its model, its instructions and its provider options (`modelSettings.providerOptions`,
   * which can raise what a call costs or change what the provider keeps); list here those a run may set
   * after all (a test, a comparison of models). Default: none.
   */
  overridable?: Overridable[];
  /** Code around every tool call of the agent: `beforeToolCall` may skip a call, `afterToolCall` observes. */
  hooks?: AgentHooks;
  /**
   * Transforms for every call of the agent, whatever its tool (own tools, sub-agents, workflows, client
   * tools): they apply after the tool's own transform of the same stage. See docs/guides/tools.md, "Transforms".
   */
  transform?: ToolTransforms;
  /**
   * What a run's request context may hold (a zod object schema): a run whose `requestContext` fails
   * it, or any request context where the agent has no schema, is refused (`RunOptionsNotAllowed`).
   */
  requestContextSchema?: z.ZodType;
  /**
   * How runs on a thread (`threadId`, within a `resourceId`) see the thread's earlier messages, with
   * Mastra's names: `lastMessages` (default 10; 0 shows none), and `workingMemory: { enabled: true,
   * template?, maxChars? }`: a working memory kept per thread, which the model is shown on every run of
   * the thread and replaces with the built-in tool `updateWorkingMemory`. A supervisor's
   * `subAgentContext` says what its sub-agents see of its thread: `'prompt'` (the default: only the task
   * it passes them) or `'thread'` (the thread's last messages too, read-only), for all of them or by key
   * in `agents` (`{ researcher: 'thread' }`). Mastra's `new Memory({ options })` is taken too. See
   * docs/guides/threads-and-memory.md.
   */
  memory?: MemoryOptions | Memory;
  /**
   * How long a model step is retried while the model's provider fails in a way that passes (rate
   * limits, overload, 5xx, network errors, timeouts): `{ window: '6h', maximumInterval: '5m' }` by
   * default, or the worker's `modelRetry`. A provider's `Retry-After` is honoured. Failures that do not
   * pass (a bad request, a wrong key, an unknown model, a conversation over the context) are not
   * retried. See docs/guides/models.md.
   */
  modelRetry?: ModelRetry;
  /**
   * The final answer of every run is an object that fits `schema` (zod, or a Standard Schema with a JSON
   * schema): the model is asked for JSON in its provider's JSON mode and the answer is checked
   * (`result.object`). A run may replace it with its own `structuredOutput`. See docs/guides/models.md.
   */
  structuredOutput?: StructuredOutput;
}

/** A tool an agent may have: its own code (`createTool`), or one the model's provider runs (`webSearchTool`). */
export type AgentTool = AnyTool | ProviderTool;
