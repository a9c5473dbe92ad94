/**
 * `durable-agents/worker`: what a worker process loads to run agents: `createWorker` and `runWorker`,
 * the Temporal plugin for a worker of your own, the workflow bundle's options, versioning, and the
 * model registry.
 */
export {
  createWorker,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  runWorker,
  workflowBundleOptions,
  workflowInterceptorModules,
  workflowPreloadModules,
  workflowsPath,
} from './worker.js';
export type { AgentWorker } from './worker.js';
export type { CreateWorkerOptions } from './worker-options.js';
export { DurableAgentsPlugin } from './plugin.js';
export type { DurableAgentsPluginOptions } from './plugin-options.js';
export { DEFAULT_VERSIONING_BEHAVIOR, setCurrentVersion, versioningFromEnv } from './versioning.js';
export type { VersioningSettings } from './versioning.js';
export { AgentRegistry } from './registry.js';
export { ScriptedLanguageModel } from './models/scripted.js';
export { ModelResolver } from './models/registry.js';
export type { ModelContext, ModelFactory, ModelSources } from './models/registry.js';
export { BUILTIN_PROVIDERS } from './models/providers.js';
export type { BuiltinProvider, ModelProvider } from './models/providers.js';
export type { NotificationSettings } from './activities/approvals/notify.js';
export type { DecisionKeys } from './activities/approvals/verify-decision.js';
export { DEFAULT_TASK_QUEUE, resolveConnection } from '../connection/config.js';
export type { ConnectionSettings } from '../connection/config.js';
