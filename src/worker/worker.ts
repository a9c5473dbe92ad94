import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { describeCodec, loadPayloadCodec } from '../codec/payload-codec.js';
import { checkSearchAttributes, createSearchAttributesSetting } from '../connection/search-attributes.js';
import { warnWorker } from './runtime-log.js';
import { checkPayloadStore, describeExternalStorage, loadExternalStorage } from '../codec/external-storage.js';
import { notificationsFromEnv, resolveConnection } from '../connection/config.js';
import { checkNotificationSettings } from './activities/approvals/notify.js';
import { AgentRegistry } from './registry.js';
import { tracingFromEnv } from '../tracing/config.js';
import type { Tracing } from '../tracing/tracing.js';
import { checkWorkerOptions, type CreateWorkerOptions } from './worker-options.js';

export type { CreateWorkerOptions } from './worker-options.js';
import {
  checkVersioning,
  DEFAULT_VERSIONING_BEHAVIOR,
  setCurrentVersion,
  versioningFromEnv,
  type VersioningSettings,
} from './versioning.js';
import { DEFAULT_MAX_CACHED_WORKFLOWS, workflowsPath, workflowBundleOptions } from './bundle/paths.js';
import { bundleCacheDir, cachedRunBundle } from './bundle/cache.js';
import { failureConverterPath } from '../codec/payload-codec.js';
import { UnkeyedCodec } from '../codec/unkeyed-codec.js';
import { DurableAgentsPlugin } from './plugin.js';
import { shutdownOnceRunning } from './shutdown.js';

export {
  DEFAULT_MAX_CACHED_WORKFLOWS,
  workflowBundleOptions,
  workflowInterceptorModules,
  workflowPreloadModules,
  workflowsPath,
} from './bundle/paths.js';

/** The SDK's default number of workflow task slots (`maxConcurrentWorkflowTaskExecutions`). */
const SDK_WORKFLOW_TASK_SLOTS = 40;

/**
 * Workflow task slots no more than the cache holds. The sticky and normal pollers share permits capped
 * at the cache size, but the core balances them by the slot count; with the SDK's 40 slots beside a
 * smaller cache the balancer never engages, one poller starves, and workflow tasks wait out a 10 s
 * schedule-to-start timeout (temporalio/sdk-rust#1534; a worker with `maxCachedWorkflows: 2` stalled a
 * run 10 to 100 s at a time). The SDK's own cap of the slots to the cache does not reach the slot
 * supplier it builds, so the cap is set here.
 */
function workflowTaskSlots(options: CreateWorkerOptions['workerOptions']): {
  maxConcurrentWorkflowTaskExecutions?: number;
} {
  const cache = options?.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS;
  if (options?.tuner || options?.maxConcurrentWorkflowTaskExecutions !== undefined) return {};
  if (!Number.isInteger(cache) || cache <= 0 || cache >= SDK_WORKFLOW_TASK_SLOTS) return {};
  return { maxConcurrentWorkflowTaskExecutions: Math.max(cache, 2) };
}

/**
 * The run workflow's bundle from the cache (see bundle/cache.ts), unless the worker's own options could
 * change what goes into it: then the SDK bundles at start, as it would.
 */
async function runBundle(
  options: CreateWorkerOptions,
  codec: PayloadCodec,
  dir: string,
): Promise<WorkerOptions['workflowBundle'] | undefined> {
  const own = options.workerOptions;
  const converters = own?.dataConverter?.payloadConverterPath ?? own?.dataConverter?.failureConverterPath;
  if (own?.plugins?.length || own?.bundlerOptions || own?.interceptors?.workflowModules || converters) {
    return undefined;
  }
  return cachedRunBundle(
    {
      workflowsPath,
      workflowInterceptorModules: workflowBundleOptions.workflowInterceptorModules,
      preloadModules: workflowBundleOptions.preloadModules,
      ...(codec instanceof UnkeyedCodec ? {} : { failureConverterPath }),
    },
    dir,
  );
}

/** A worker, and how to close the connection it opened. */
export interface AgentWorker {
  worker: Worker;
  /** Every agent the worker serves, sub-agents included. */
  agentIds: string[];
  /** The agents and tools it serves: `registry.listTools()`, `registry.getTool(id)`. */
  registry: AgentRegistry;
  taskQueue: string;
  namespace: string;
  codec: PayloadCodec;
  /** Where payloads over its threshold go, when the worker has a payload store. */
  externalStorage: ExternalStorage | undefined;
  /** The tracing the worker reports to, when it traces. */
  tracing: Tracing | undefined;
  /** The worker's deployment and build, when it is versioned. */
  versioning: VersioningSettings | undefined;
  /** Runs until {@link AgentWorker.shutdown} (or a signal, see {@link runWorker}) and closes its connection. */
  run(): Promise<void>;
  /**
   * Stops the worker, at any time: unlike `worker.shutdown()`, which throws until the worker polls, a
   * stop asked for while it still starts (or before `run()`) takes effect as soon as it runs. `run()`
   * resolves once the worker has stopped.
   */
  shutdown(): void;
}

/** Creates a Temporal worker that runs the given agents: the run workflow and its activities. */
export async function createWorker(options: CreateWorkerOptions): Promise<AgentWorker> {
  checkWorkerOptions(options);
  // Read before connecting, as checkWorkerOptions checked it: a bad setting leaves no connection open.
  const create = createSearchAttributesSetting(options.createSearchAttributes, 'createWorker');
  const bundleCache = options.workflowBundle ? undefined : bundleCacheDir(options.workflowBundleCache);
  const { connectionOptions, namespace, taskQueue } = resolveConnection(options);
  const notificationSettings =
    options.notifications === false ? undefined : (options.notifications ?? notificationsFromEnv());
  const notifications = notificationSettings ? checkNotificationSettings(notificationSettings) : undefined;
  const versioning =
    options.versioning === false ? undefined : checkOptional(options.versioning ?? versioningFromEnv());
  if (versioning && options.workerOptions?.workerDeploymentOptions)
    throw new TypeError('createWorker: give either `versioning` or `workerOptions.workerDeploymentOptions`, not both');
  // Before connecting: bad codec keys or tracing settings fail here without a connection to close.
  const codec = options.codec ?? (await loadPayloadCodec());
  const externalStorage =
    options.externalStorage === false
      ? undefined
      : (options.externalStorage ??
        options.workerOptions?.dataConverter?.externalStorage ??
        (await loadExternalStorage()));
  // A worker that could not store a tool's output would find out only once it ran the tool.
  if (externalStorage) await checkPayloadStore(externalStorage, 'worker');
  const ownTracing = options.tracing === undefined ? await tracingFromEnv('durable-agents-worker') : undefined;
  const ownConnection = options.connection ? undefined : await NativeConnection.connect(connectionOptions);
  const connection = options.connection ?? ownConnection!;
  // Before a worker holds the connection: a namespace without the runs' search attributes is refused here.
  const check = { warn: warnWorker, create, who: 'the worker' };
  await checkSearchAttributes(connection.operatorService, namespace, check).catch(async (err: unknown) => {
    await ownConnection?.close();
    await ownTracing?.shutdown();
    throw err;
  });
  const tracing = options.tracing || ownTracing;
  const plugin = new DurableAgentsPlugin({
    agents: options.agents,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.enableScriptedModel ? { enableScriptedModel: true } : {}),
    ...(options.conversationCacheBytes !== undefined ? { conversationCacheBytes: options.conversationCacheBytes } : {}),
    ...(options.decisionKeys ? { decisionKeys: options.decisionKeys } : {}),
    ...(options.modelRetry ? { modelRetry: options.modelRetry } : {}),
    createSearchAttributes: create,
    notifications: notifications ?? false,
    codec,
    ...(externalStorage ? { externalStorage } : {}),
    ...(tracing ? { tracing } : {}),
  });
  const registry = plugin.registry;
  const workflowBundle = options.workflowBundle ?? (bundleCache && (await runBundle(options, codec, bundleCache)));
  const worker = await Worker.create({
    ...options.workerOptions,
    // After the spread: `maxCachedWorkflows: undefined` means the default, not the SDK's heap-sized one.
    maxCachedWorkflows: options.workerOptions?.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
    ...workflowTaskSlots(options.workerOptions),
    connection,
    namespace,
    taskQueue,
    // The plugin adds the run workflows, their activities, the codec and tracing (see plugin.ts).
    plugins: [plugin, ...(options.workerOptions?.plugins ?? [])],
    ...(versioning
      ? {
          workerDeploymentOptions: {
            version: { deploymentName: versioning.deploymentName, buildId: versioning.buildId },
            useWorkerVersioning: true,
            defaultVersioningBehavior: versioning.behavior ?? DEFAULT_VERSIONING_BEHAVIOR,
          },
        }
      : {}),
    ...(workflowBundle ? { workflowBundle } : {}),
  }).catch(async (err: unknown) => {
    await ownTracing?.shutdown();
    throw err;
  });
  let running: Promise<void> | undefined;
  let stopAsked = false;
  return {
    worker,
    shutdown() {
      if (stopAsked) return;
      stopAsked = true;
      if (running) void shutdownOnceRunning(worker, running);
    },
    agentIds: registry.ids(),
    registry,
    taskQueue,
    namespace,
    codec,
    externalStorage,
    tracing,
    versioning,
    async run() {
      try {
        running = worker.run();
        if (stopAsked) void shutdownOnceRunning(worker, running);
        if (versioning?.setCurrent) {
          // The server takes a version as current only once it has seen this worker's pollers.
          await setCurrentVersion(connection.workflowService, namespace, versioning).catch(async (err: unknown) => {
            await shutdownOnceRunning(worker, running!);
            await running!.catch(() => undefined);
            throw err;
          });
        }
        await running;
      } finally {
        await ownConnection?.close();
        // What the last tasks traced goes out before the process ends.
        await ownTracing?.shutdown();
      }
    },
  };
}

/**
 * The worker entry point: connects from the environment (or a Temporal config profile), runs the
 * agents, and shuts down gracefully on SIGTERM and SIGINT: it stops polling, lets running tasks
 * finish within the shutdown grace time, then exits.
 */
export async function runWorker(options: CreateWorkerOptions): Promise<void> {
  const { worker, run, taskQueue, namespace, agentIds, codec, externalStorage, tracing, versioning } =
    await createWorker({
      ...options,
      workerOptions: { shutdownGraceTime: '10 seconds', ...options.workerOptions },
    });
  // The SDK's own shutdown-signal handling stops the worker on SIGTERM/SIGINT (Runtime's shutdownSignals).
  console.error(
    `worker: serving ${agentIds.join(', ')} on task queue "${taskQueue}" in namespace "${namespace}"; ` +
      describeCodec(codec) +
      `; ${describeExternalStorage(externalStorage)}` +
      (versioning
        ? `; build "${versioning.buildId}" of deployment "${versioning.deploymentName}", ` +
          `runs ${versioning.behavior ?? DEFAULT_VERSIONING_BEHAVIOR}` +
          (versioning.setCurrent ? ', made current once it polls' : '')
        : '') +
      (tracing ? '; tracing runs started by tracing clients' : ''),
  );
  await run();
  console.error(`worker: stopped (${worker.getState()})`);
}

function checkOptional(settings: VersioningSettings | undefined): VersioningSettings | undefined {
  return settings ? checkVersioning(settings) : undefined;
}
