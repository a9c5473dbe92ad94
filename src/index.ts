/** The public API: define tools and agents, run workers, start and follow runs. */
export { createTool } from './tools/create-tool.js';
export { RequestContext } from './tools/request-context.js';
export type {
  AnyTool,
  Tool,
  ToolConfig,
  ToolDataChunk,
  ToolExecutionContext,
  ToolHookContext,
  ToolLogger,
  ToolStreamWriter,
} from './tools/create-tool.js';
export type { CheckingSchema, SchemaInput, SchemaOutput, ToolSchema } from './tools/schema.js';
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
export { defineAgent, defineWorkflowTool } from './agent.js';
export type { AgentHooks, BeforeToolCallResult, ToolCallEnd, ToolCallHookContext } from './tools/hooks.js';
export type { Agent, AgentConfig, AgentTool, WorkflowTool } from './agent.js';
export type { McpServerConfig } from './tools/mcp.js';
export { SubAgentInputSchema } from './schemas/agent-spec.js';
export {
  createWorker,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  runWorker,
  workflowBundleOptions,
  workflowInterceptorModules,
  workflowPreloadModules,
  workflowsPath,
} from './worker/worker.js';
export type { AgentWorker, CreateWorkerOptions } from './worker/worker.js';
export { DEFAULT_VERSIONING_BEHAVIOR, setCurrentVersion, versioningFromEnv } from './worker/versioning.js';
export type { VersioningSettings } from './worker/versioning.js';
export type { NotificationSettings } from './worker/activities/approvals/notify.js';
export {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyWebhook,
  webhookDeliveryLog,
  WebhookReplayError,
  WebhookVerificationError,
} from './notifications/webhook.js';
export type { VerifyWebhookOptions, WebhookDeliveryLog, WebhookHeaders } from './notifications/webhook.js';
export type { WebhookPayload, NotificationType } from './schemas/notification.js';
export type { ApprovalDeadline, DeadlineDuration } from './schemas/deadline.js';
export { AgentRegistry } from './worker/registry.js';
export { otlpFromEnv, tracingFromEnv, TracingConfigError } from './tracing/config.js';
export type { OtlpProtocol } from './tracing/config.js';
export type { Tracing, TracingOptions } from './tracing/tracing.js';
export { AgentClient } from './client/agent-client.js';
export type { AgentHandle, AgentSuspendedRun } from './client/agent-handle.js';
export type { AgentClientOptions, ClientBehaviour } from './client/client-options.js';
export type { Resolving } from './client/decisions/decisions.js';
export type { SigningKey } from './client/decisions/signing.js';
export { DEFAULT_STREAM_GRACE_MS } from './client/runs/run-input.js';
export type { RunPrompt, StartOptions, StreamOptions } from './client/runs/run-input.js';
export type { ClientToolInput } from './client/runs/client-tools.js';
export { RunStream } from './client/stream/run-stream.js';
export type { Decision, DecisionTarget, SentDecision } from './client/decisions/decisions.js';
export type { ThreadToolApproval } from './client/decisions/thread-decisions.js';
export type { RunBuild, RunFilter, RunInfo, SuspendedRun } from './client/runs/runs.js';
export type { BuildInfo } from './client/runs/builds.js';
export type { ThreadFilter, ThreadInfo, ThreadMessages, ThreadTasks, WorkingMemory } from './client/threads.js';
export { DEFAULT_LAST_MESSAGES } from './schemas/thread.js';
export type { MemoryOptions } from './schemas/thread.js';
export type { WorkingMemoryOptions } from './schemas/working-memory.js';
export { DEFAULT_WORKING_MEMORY_CHARS, MAX_WORKING_MEMORY_CHARS } from './schemas/working-memory.js';
export { toolRunOutcome } from './client/tools.js';
export type { ToolRunOptions, ToolRunStarted } from './client/tools.js';
export type { ToolInfo, ToolOwner } from './schemas/tool-info.js';
export type { PrincipalInput } from './client/identity.js';
export { failureOf } from './client/failures.js';
export type { Failure } from './client/failures.js';
export { RunChunkSchema } from './schemas/stream-chunks.js';
export type {
  AgentProgress,
  AgentProgressChunk,
  ClientChunk,
  DataChunk,
  ProgressEvent,
  RunChunk,
  RunStreamChunk,
  ToolCallPayload,
} from './schemas/stream-chunks.js';
export { createServerApp, DEFAULT_REQUEST_OPTIONS } from './server/app.js';
export type { ServerOptions } from './server/app.js';
export type { ThreadPrivacy } from './server/auth/thread-access.js';
export { startServer } from './server/serve.js';
export type { StartServerOptions } from './server/serve.js';
export { bearerTokens, describeTenancy } from './server/auth/auth.js';
export type { Authenticator, BearerTokensOptions, Tenancy, TenancyMode } from './server/auth/auth.js';
export { DEFAULT_MAX_TOKEN_LIFETIME, jwtAuth } from './server/auth/jwt-auth.js';
export type { JwtAuthOptions, JwtClaimNames } from './server/auth/jwt-auth.js';
export { authenticatorFromEnv } from './server/auth/auth-env.js';
export { UiChunkMapper } from './server/ui-message-chunks.js';
export type {
  RunMessageMetadata,
  RunUIMessageChunk,
  ToolSuspendedData,
  ToolUncertainData,
} from './server/ui-message-chunks.js';
export { createCodecEndpoint, assertCodecEndpointExposure } from './server/codec/codec-endpoint.js';
export type { CodecEndpointOptions } from './server/codec/codec-endpoint.js';
export { codecEndpointSettings } from './server/codec/codec-endpoint-settings.js';
export type { CodecEndpointSettings } from './server/codec/codec-endpoint-settings.js';
export { createPayloadCodec, describeCodec, failureConverterPath, loadPayloadCodec } from './codec/payload-codec.js';
export type { CodecKeysOptions } from './codec/payload-codec.js';
export {
  createExternalStorage,
  DEFAULT_PAYLOAD_STORE_THRESHOLD,
  describeExternalStorage,
  FILE_DRIVER_NAME,
  FileStorageDriver,
  loadExternalStorage,
  payloadStoreFromEnv,
} from './codec/external-storage.js';
export type { PayloadStoreSettings } from './codec/external-storage.js';
export { INLINE_PAYLOAD_LIMITS, STORED_PAYLOAD_LIMITS } from './schemas/limits.js';
export type { PayloadLimits } from './schemas/limits.js';
export { EncryptionCodec } from './codec/encryption-codec.js';
export { UnkeyedCodec } from './codec/unkeyed-codec.js';
export { CODEC_CURRENT_KEY_ENV, CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from './codec/keyring.js';
export type { CodecKey, Keyring } from './codec/keyring.js';
export { CodecConfigError, PayloadDecryptError, UnknownCodecKeyError } from './codec/errors.js';
export { resolveConnection, DEFAULT_TASK_QUEUE } from './connection/config.js';
export type { ConnectionSettings } from './connection/config.js';
export { ScriptedLanguageModel } from './worker/models/scripted.js';
export { builtinModels, resolveModel } from './worker/models/registry.js';
export type { ModelContext, ModelFactory } from './worker/models/registry.js';
export * from './errors.js';
export type { AgentSpec, ToolSpec } from './schemas/agent-spec.js';
export type { DecisionRecord, PathHop, PendingToolCall, RefusalType } from './schemas/decisions.js';
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
