/**
 * `durable-agents`: what defining agents and tools takes, in any process: `defineAgent` (or Mastra's
 * `new Agent`), `createTool`, the built-in tools, the data types and the typed errors. It loads neither
 * the Temporal worker nor its client: a worker imports `durable-agents/worker`, an application that
 * starts and decides runs `durable-agents/client`, an HTTP server `durable-agents/server`, payload
 * encryption `durable-agents/codec`, workflow code `durable-agents/workflow`, tests `durable-agents/testing`.
 */
export { Agent, defineAgent, defineWorkflowTool } from './agent.js';
export type { AgentConfig, AgentOptions, AgentTool, WorkflowTool } from './agent.js';
export { createTool } from './tools/create-tool.js';
export { RequestContext } from './tools/request-context.js';
export type { AnyTool, Tool, ToolConfig } from './tools/create-tool.js';
export type {
  ToolDataChunk,
  ToolExecutionContext,
  ToolHookContext,
  ToolLogger,
  ToolPreviewContext,
  ToolStreamWriter,
} from './tools/tool-context.js';
export type { CheckingSchema, SchemaInput, SchemaOutput, ToolSchema } from './tools/schema.js';
export type { AgentHooks, BeforeToolCallResult, ToolCallEnd, ToolCallHookContext } from './tools/hooks.js';
export type { McpServerConfig } from './tools/mcp.js';
export { webFetchTool } from './tools/builtin/web-fetch.js';
export { createWebSearchTool, webSearchTool } from './tools/builtin/web-search.js';
export type { ProviderTool, WebSearchOptions } from './tools/builtin/web-search.js';
export { askUserTool } from './tools/builtin/ask-user.js';
export type { AskUserAnswer, AskUserInput, AskUserSuspendPayload } from './tools/builtin/ask-user.js';
export { submitPlanTool } from './tools/builtin/submit-plan.js';
export type { PlanReview, PlanVerdict } from './tools/builtin/submit-plan.js';
export { taskCheckTool, taskCompleteTool, taskUpdateTool, taskWriteTool } from './tools/builtin/tasks.js';
export type { TaskCheckOutput, TaskListOutput } from './tools/builtin/tasks.js';
export { TASK_LIMITS } from './schemas/tasks.js';
export type { Task, TaskStatus, TaskSummary } from './schemas/tasks.js';
export { SubAgentInputSchema } from './schemas/agent-spec.js';
export type { AgentSpec, ToolSpec } from './schemas/agent-spec.js';
export { DEFAULT_LAST_MESSAGES } from './schemas/thread.js';
export type { MemoryOptions } from './schemas/thread.js';
export { Memory, type MemoryConfig } from './memory.js';
export type { WorkingMemoryOptions } from './schemas/working-memory.js';
export { DEFAULT_WORKING_MEMORY_CHARS, MAX_WORKING_MEMORY_CHARS } from './schemas/working-memory.js';
export type { ApprovalDeadline, DeadlineDuration } from './schemas/deadline.js';
export type { ModelRetry } from './schemas/model-retry.js';
export type { OutputSchema, StructuredObject, StructuredOutput } from './structured-output.js';
export type { WebhookPayload, NotificationType } from './schemas/notification.js';
export type { ToolInfo, ToolOwner } from './schemas/tool-info.js';
export { RunChunkSchema } from './schemas/stream-chunks.js';
export type { DataChunk } from './schemas/data-chunks.js';
export type {
  AgentProgress,
  AgentProgressChunk,
  ClientChunk,
  ProgressEvent,
  RunChunk,
  RunStreamChunk,
  ToolCallPayload,
} from './schemas/stream-chunks.js';
export type { DecisionRecord, PathHop, PendingToolCall, RefusalSummary, RefusalType } from './schemas/decisions.js';
export { ALL_TENANTS } from './schemas/access.js';
export type { AccessPolicy, AccessRule, Principal, ToolAccess } from './schemas/access.js';
export type { JsonValue } from './schemas/json.js';
export type { Message } from './schemas/message.js';
export type { ClientToolSpec, ModelSettings, RunOptions, ToolChoice } from './schemas/run-options.js';
export type {
  RunFinishReason,
  RunResult,
  RunStatus,
  SourceRecord,
  StepRecord,
  ToolCallRecord,
  ToolResultRecord,
  Usage,
} from './schemas/run-result.js';
export type { Script, ScriptStep } from './schemas/script.js';
export type { ToolModelOutput } from './schemas/tool-output.js';
export type { PayloadLimits } from './schemas/limits.js';
export * from './errors.js';

// The names of 0.2 that other entries own now, for one minor version (deprecated; see CHANGELOG.md).
export * from './deprecated.js';
export type {
  AgentWorker,
  CreateWorkerOptions,
  DecisionKeys,
  ModelContext,
  ModelFactory,
  NotificationSettings,
  VersioningSettings,
} from './worker/index.js';
export type {
  AgentClientOptions,
  AgentHandle,
  AgentSuspendedRun,
  BuildInfo,
  ClientBehaviour,
  ClientToolInput,
  ConnectionSettings,
  Decision,
  DecisionTarget,
  Failure,
  PrincipalInput,
  Resolving,
  RunBuild,
  RunFilter,
  RunInfo,
  RunPrompt,
  SentDecision,
  SigningKey,
  StartOptions,
  StreamOptions,
  SuspendedRun,
  ThreadFilter,
  ThreadInfo,
  ThreadMessages,
  ThreadTasks,
  ThreadToolApproval,
  ToolRunOptions,
  ToolRunStarted,
  VerifyWebhookOptions,
  WebhookDeliveryLog,
  WebhookHeaders,
  WorkingMemory,
} from './client/index.js';
export type {
  Authenticator,
  BearerTokensOptions,
  CodecEndpointOptions,
  CodecEndpointSettings,
  JwtAuthOptions,
  JwtClaimNames,
  RunMessageMetadata,
  RunUIMessageChunk,
  ServerOptions,
  StartServerOptions,
  Tenancy,
  TenancyMode,
  ThreadPrivacy,
  ToolSuspendedData,
  ToolUncertainData,
} from './server/index.js';
export type { CodecKey, CodecKeysOptions, Keyring, PayloadStoreSettings } from './codec/index.js';
export type { OtlpProtocol } from './tracing/config.js';
export type { Tracing, TracingOptions } from './tracing/tracing.js';
