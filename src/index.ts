/** The public API: define tools and agents, run workers, start and follow runs. */
export { createTool } from './tools/create-tool.js';
export type { AnyTool, Tool, ToolConfig, ToolExecutionContext, ToolLogger } from './tools/create-tool.js';
export { defineAgent } from './agent.js';
export type { Agent, AgentConfig } from './agent.js';
export { createWorker, runWorker, workflowsPath } from './worker.js';
export type { AgentWorker, CreateWorkerOptions } from './worker.js';
export { AgentClient } from './client/agent-client.js';
export type { AgentClientOptions, RunPrompt, StartOptions } from './client/agent-client.js';
export { resolveConnection, DEFAULT_TASK_QUEUE } from './config.js';
export type { ConnectionSettings } from './config.js';
export { ScriptedLanguageModel } from './models/scripted.js';
export { builtinModels, resolveModel } from './models/registry.js';
export type { ModelContext, ModelFactory } from './models/registry.js';
export * from './errors.js';
export type {
  AgentSpec,
  JsonValue,
  Message,
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
