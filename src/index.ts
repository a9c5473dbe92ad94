/** The public API: define tools and agents, run workers, start and follow runs. */
export { createTool } from './tools/create-tool.js';
export type {
  AnyTool,
  Tool,
  ToolConfig,
  ToolExecutionContext,
  ToolHookContext,
  ToolLogger,
} from './tools/create-tool.js';
export { defineAgent, defineWorkflowTool, SubAgentInputSchema } from './agent.js';
export type { Agent, AgentConfig, WorkflowTool } from './agent.js';
export { createWorker, runWorker, workflowsPath } from './worker.js';
export type { AgentWorker, CreateWorkerOptions } from './worker.js';
export { AgentClient, DEFAULT_STREAM_GRACE_MS, RunStream } from './client/agent-client.js';
export type {
  AgentClientOptions,
  DecisionTarget,
  RunInfo,
  RunPrompt,
  SentDecision,
  StartOptions,
  StreamOptions,
  SuspendedRun,
} from './client/agent-client.js';
export { RunChunkSchema } from './stream-chunks.js';
export { createServerApp } from './server/app.js';
export { UiChunkMapper } from './server/ui-message-chunks.js';
export type { RunMessageMetadata, RunUIMessageChunk, ToolSuspendedData } from './server/ui-message-chunks.js';
export type { RunChunk, RunStreamChunk } from './stream-chunks.js';
export { resolveConnection, DEFAULT_TASK_QUEUE } from './config.js';
export type { ConnectionSettings } from './config.js';
export { ScriptedLanguageModel } from './models/scripted.js';
export { builtinModels, resolveModel } from './models/registry.js';
export type { ModelContext, ModelFactory } from './models/registry.js';
export * from './errors.js';
export type {
  AgentSpec,
  DecisionRecord,
  JsonValue,
  Message,
  PathHop,
  PendingToolCall,
  RefusalType,
  RunFinishReason,
  RunStatus,
  ModelSettings,
  RunOptions,
  RunResult,
  Script,
  ScriptStep,
  StepRecord,
  ToolCallRecord,
  ToolChoice,
  ToolResultRecord,
  Usage,
} from './schemas.js';
export type { ToolModelOutput } from './activities/contracts.js';
