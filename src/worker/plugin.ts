/**
 * The Temporal worker plugin that hosts agent runs in a team's own worker, the way Temporal's own
 * integrations do (`@temporalio/ai-sdk`'s `AiSdkPlugin`): `Worker.create({ plugins: [plugin], ... })`
 * adds the run workflows to the worker's workflows, the model and tool activities to its activities,
 * the payload codec to its data converter, and the tracing interceptors and sinks. `createWorker` is
 * this plugin on a worker of its own.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ClientOptions } from '@temporalio/client';
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, Worker, WorkerOptions } from '@temporalio/worker';
import { loadPayloadCodec } from '../codec/payload-codec.js';
import { UnkeyedCodec } from '../codec/unkeyed-codec.js';
import { checkPayloadStore, loadExternalStorage } from '../codec/external-storage.js';
import { workerDataConverter } from '../codec/undecodable.js';
import { notificationsFromEnv } from '../connection/config.js';
import { decisionKeysFromEnv } from '../connection/decision-keys.js';
import { checkSearchAttributes, createSearchAttributesSetting } from '../connection/search-attributes.js';
import { warnWorker } from './runtime-log.js';
import { rejectUnknownKeys } from '../options.js';
import { STORED_PAYLOAD_LIMITS } from '../schemas/limits.js';
import { tracingFromEnv, workflowSpanSinks } from '../tracing/config.js';
import type { Tracing } from '../tracing/tracing.js';
import { createActivities } from './activities/index.js';
import { checkNotificationSettings } from './activities/approvals/notify.js';
import { McpConnections } from './activities/tools/mcp-connections.js';
import { conversationCacheProblem } from './activities/model/conversation-cache.js';
import { workflowInterceptorModules, workflowPreloadModules, workflowsPath } from './bundle/paths.js';
import { ModelResolver, scriptedModel } from './models/registry.js';
import { AgentRegistry } from './registry.js';
import { modelRetrySpec } from '../schemas/model-retry.js';
import { PLUGIN_OPTION_KEYS, refuseUnloadedEnvironment, type DurableAgentsPluginOptions } from './plugin-options.js';
import { shutdownOnceRunning } from './shutdown.js';

/** The workflow names the run workflows take in a worker: a team's workflow of the same name is refused. */
const RUN_WORKFLOWS = ['agentRun', 'agentThread', 'listAgentTools', 'agentGrants'];

/**
 * The longest the worker holds an activity's heartbeats back (the SDK's default: 0.8 of its heartbeat
 * timeout, 8 s for a tool's 10 s). Held that long, one heartbeat lost to a frontend that restarts or a
 * network that blinks timed the call out, and the call ran a second time: 56 of 200 tools mid-call
 * did, at a frontend restart of a few seconds (test/e2e/cluster-faults.test.ts). Every 2 s rides out an
 * outage of most of the timeout, for one heartbeat request every 2 s a call at most.
 */
const HEARTBEAT_THROTTLE = '2 seconds';

/**
 * A Temporal plugin (`SimplePlugin` of `@temporalio/plugin`) that makes any worker a host of agent runs.
 * Give it to `Worker.create({ plugins })` beside the team's own `workflowsPath` and `activities`; give
 * the same plugin to the team's `Client` (or use `AgentClient`) so that both share the payload codec.
 */
export class DurableAgentsPlugin extends SimplePlugin {
  /** Every agent the plugin serves, sub-agents included. */
  readonly registry: AgentRegistry;
  readonly codec: PayloadCodec | undefined;
  readonly externalStorage: ExternalStorage | undefined;
  readonly tracing: Tracing | undefined;
  readonly #mcp: McpConnections;
  readonly #createSearchAttributes: boolean;

  constructor(options: DurableAgentsPluginOptions) {
    rejectUnknownKeys('DurableAgentsPlugin', options, Object.keys(PLUGIN_OPTION_KEYS));
    refuseUnloadedEnvironment(options);
    const createSearchAttributes = createSearchAttributesSetting(options.createSearchAttributes, 'DurableAgentsPlugin');
    if (options.conversationCacheBytes !== undefined) {
      const problem = conversationCacheProblem(options.conversationCacheBytes);
      if (problem) throw new RangeError(`DurableAgentsPlugin: ${problem}`);
    }
    const registry = new AgentRegistry(options.agents);
    const notificationSettings =
      options.notifications === false ? undefined : (options.notifications ?? notificationsFromEnv());
    const mcp = new McpConnections();
    const { codec, externalStorage, tracing } = options;
    const activities = createActivities(
      registry,
      new ModelResolver({
        models: { ...(options.enableScriptedModel ? { scripted: scriptedModel } : {}), ...options.models },
        ...(options.providers ? { providers: options.providers } : {}),
      }),
      mcp,
      {
        decisionKeys: options.decisionKeys ?? decisionKeysFromEnv(),
        tracing,
        notifications: notificationSettings ? checkNotificationSettings(notificationSettings) : undefined,
        conversationCacheBytes: options.conversationCacheBytes,
        payloadLimits: externalStorage ? STORED_PAYLOAD_LIMITS : undefined,
        payloadStore: externalStorage
          ? {
              threshold: externalStorage.payloadSizeThreshold,
              takesWrites: () => checkPayloadStore(externalStorage, 'worker'),
            }
          : undefined,
        modelRetry:
          options.modelRetry === undefined ? undefined : modelRetrySpec('DurableAgentsPlugin', options.modelRetry),
      },
    );
    super({
      name: 'durable-agents',
      activities: (existing: object | undefined) => withoutClash(existing, activities),
      dataConverter: (existing) => workerDataConverter(existing, codec ?? new UnkeyedCodec(), externalStorage),
      runContext: async (next) => {
        try {
          await next();
        } finally {
          await mcp.close();
        }
      },
    });
    this.registry = registry;
    this.codec = codec;
    this.externalStorage = externalStorage;
    this.tracing = tracing;
    this.#mcp = mcp;
    this.#createSearchAttributes = createSearchAttributes;
  }

  /**
   * The plugin with what the environment configures filled in, as `createWorker` reads it: the codec
   * keys (`DURABLE_AGENTS_CODEC_KEYS`), the payload store (`DURABLE_AGENTS_PAYLOAD_STORE`, checked that
   * it takes a write) and tracing (`OTEL_EXPORTER_OTLP_ENDPOINT`).
   */
  static async fromEnvironment(options: DurableAgentsPluginOptions): Promise<DurableAgentsPlugin> {
    rejectUnknownKeys('DurableAgentsPlugin.fromEnvironment', options, Object.keys(PLUGIN_OPTION_KEYS));
    const externalStorage = options.externalStorage ?? (await loadExternalStorage());
    if (externalStorage) await checkPayloadStore(externalStorage, 'worker');
    return new DurableAgentsPlugin({
      ...options,
      codec: options.codec ?? (await loadPayloadCodec()),
      externalStorage,
      tracing: options.tracing ?? (await tracingFromEnv('durable-agents-worker')),
    });
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = this.withRunWorkflows(super.configureWorker(options));
    const { interceptors } = configured;
    return {
      ...configured,
      maxHeartbeatThrottleInterval: configured.maxHeartbeatThrottleInterval ?? HEARTBEAT_THROTTLE,
      interceptors: {
        ...interceptors,
        activity: [...(this.tracing?.workerInterceptors().activity ?? []), ...(interceptors?.activity ?? [])],
      },
      sinks: { ...configured.sinks, ...workflowSpanSinks(this.tracing) },
    };
  }

  /**
   * Before the worker takes a task: its namespace has every search attribute runs write (a run
   * without one would fail its workflow tasks); otherwise the worker does not start.
   */
  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const { connection, namespace } = worker.options;
    const refused = connection
      ? await checkSearchAttributes(connection.operatorService, namespace, {
          warn: warnWorker,
          create: this.#createSearchAttributes,
          who: 'the worker',
        }).then(
          () => undefined,
          (err: unknown) => err,
        )
      : undefined;
    if (refused === undefined) return super.runWorker(worker, next);
    // A worker that never ran keeps its hold on the connection, which then cannot close: it is started and
    // shut down as soon as it runs (plugins after this one may start it a little later), and the refusal
    // is what `run()` rejects with.
    const running = super.runWorker(worker, next);
    await shutdownOnceRunning(worker, running);
    await running.catch(() => undefined);
    throw refused;
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.withRunWorkflows(super.configureReplayWorker(options));
  }

  /** For a pre-built bundle (`bundleWorkflowCode({ plugins: [plugin], workflowsPath })`): the run workflows in it. */
  override configureBundler(options: BundleOptions): BundleOptions {
    const { workflowInterceptorModules: theirs, preloadModules, webpackConfigHook } = options;
    return {
      ...options,
      workflowsPath: ownWorkflowsPath(options.workflowsPath),
      webpackConfigHook: resolvingBeside(options.workflowsPath, webpackConfigHook),
      workflowInterceptorModules: oursThenTheirs(workflowInterceptorModules, theirs),
      preloadModules: oursThenTheirs(workflowPreloadModules, preloadModules),
    };
  }

  override configureClient(options: ClientOptions): ClientOptions {
    // The client encodes what the worker decodes: the same codec last, and the same payload store.
    const { dataConverter } = options;
    return {
      ...options,
      dataConverter: {
        ...dataConverter,
        payloadCodecs: [...(dataConverter?.payloadCodecs ?? []), this.codec ?? new UnkeyedCodec()],
        ...(this.externalStorage ? { externalStorage: this.externalStorage } : {}),
      },
    };
  }

  /** Closes the MCP connections its tools opened (a worker run through the plugin does this itself). */
  async close(): Promise<void> {
    await this.#mcp.close();
  }

  /**
   * The run workflows beside the worker's own, bundled with their interceptor and preloaded modules. A
   * pre-built bundle has them in it already, when it was bundled with this plugin.
   */
  private withRunWorkflows<O extends WorkerOptions | ReplayWorkerOptions>(options: O): O {
    if (options.workflowBundle) return options;
    const { interceptors, bundlerOptions } = options;
    return {
      ...options,
      workflowsPath: ownWorkflowsPath(options.workflowsPath),
      interceptors: {
        ...interceptors,
        workflowModules: oursThenTheirs(workflowInterceptorModules, interceptors?.workflowModules),
      },
      bundlerOptions: {
        ...bundlerOptions,
        webpackConfigHook: resolvingBeside(options.workflowsPath, bundlerOptions?.webpackConfigHook),
        preloadModules: oursThenTheirs(workflowPreloadModules, bundlerOptions?.preloadModules),
      },
    };
  }
}

/** The team's activities and ours; a name both define is refused rather than one silently replacing the other. */
function withoutClash(existing: object | undefined, ours: object): object {
  const clash = Object.keys(ours).filter((name) => existing && name in existing);
  if (clash.length > 0) {
    throw new TypeError(
      `DurableAgentsPlugin: the worker's activity ${clash.map((n) => `"${n}"`).join(', ')} clashes with the ` +
        `agent runs' own; rename yours`,
    );
  }
  return { ...existing, ...ours };
}

/**
 * One workflows module for the bundler: the team's and the run workflows. Written once per pair of paths
 * (named by their hash), since a worker bundles from a file, into a folder of this process's own that
 * only its user can write (mkdtemp, mode 0700): the worker runs what the file says, and a shared folder
 * in /tmp would let another local user put code there first.
 */
function ownWorkflowsPath(existing: string | undefined): string {
  if (!existing) return workflowsPath;
  // The worker configures, then its bundler configures again with what the worker was given.
  if (existing === workflowsPath || combinedFrom.has(existing)) return existing;
  combinedDir ??= mkdtempSync(join(tmpdir(), 'durable-agents-workflows-'));
  const source =
    `// The team's workflows and durable-agents' run workflows, bundled together by the worker.\n` +
    `export * from ${JSON.stringify(existing)};\n` +
    `export { ${RUN_WORKFLOWS.join(', ')} } from ${JSON.stringify(workflowsPath)};\n`;
  const file = join(combinedDir, `${createHash('sha256').update(source).digest('hex').slice(0, 16)}.js`);
  writeFileSync(file, source);
  combinedFrom.set(file, existing);
  return file;
}

let combinedDir: string | undefined;

/** The team's workflows file of each combined file. */
const combinedFrom = new Map<string, string>();

/** Our modules first, each once, then theirs (a second configuration adds nothing). */
function oursThenTheirs(ours: string[], theirs: string[] | undefined): string[] {
  return [...ours, ...(theirs ?? []).filter((m) => !ours.includes(m))];
}

type ConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * The bundler resolves its generated entry's imports (`@temporalio/workflow`) from the folder of the
 * workflows file, which for the combined file is the temporary folder: it looks where the team's
 * workflows file would, so that the bundle has the team's one copy of the workflow library.
 */
function resolvingBeside(existing: string | undefined, hook: ConfigHook | undefined): ConfigHook | undefined {
  const team = existing && (combinedFrom.get(existing) ?? (existing === workflowsPath ? undefined : existing));
  if (!team || hook?.name === 'resolvingBesideHook') return hook;
  const library = createRequire(team).resolve('@temporalio/workflow/package.json');
  const modules = dirname(dirname(dirname(library)));
  return function resolvingBesideHook(config) {
    const resolve = config.resolve ?? {};
    const withModules = {
      ...config,
      resolve: { ...resolve, modules: [...(resolve.modules ?? ['node_modules']), modules] },
    };
    return hook ? hook(withModules) : withModules;
  };
}
