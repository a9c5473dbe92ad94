/** The options of `createWorker`, and the check that takes only those. */
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import type { Agent } from '../agent.js';
import { conversationCacheProblem } from './activities/model/conversation-cache.js';
import type { NotificationSettings } from './activities/approvals/notify.js';
import type { DecisionKeys } from './activities/approvals/verify-decision.js';
import type { ConnectionSettings } from '../connection/config.js';
import type { ModelFactory } from './models/registry.js';
import type { ModelProvider } from './models/providers.js';
import { rejectUnknownKeys } from '../options.js';
import { modelRetrySpec, type ModelRetry } from '../schemas/model-retry.js';
import { createSearchAttributesSetting } from '../connection/search-attributes.js';
import type { Tracing } from '../tracing/tracing.js';
import type { VersioningSettings } from './versioning.js';

/** The options of `createWorker`. */
export interface CreateWorkerOptions extends ConnectionSettings {
  /** The agents this worker runs. */
  agents: Agent[];
  /**
   * AI SDK providers by the name a model string starts with, e.g. `{ ollama: createOpenAICompatible({ name:
   * 'ollama', baseURL }) }` for `ollama/llama3.2`. They join the built-in ones (`openai`, `openai-responses`,
   * `anthropic`, `google`, `openai-compatible`: see `BUILTIN_PROVIDERS`) in one `createProviderRegistry`,
   * and win over a built-in one of the same name. See docs/guides/models.md.
   */
  providers?: Record<string, ModelProvider>;
  /**
   * Model factories by name prefix that see the run (its script): for fakes of your own. Asked before
   * `providers` and the built-in ones.
   */
  models?: Record<string, ModelFactory>;
  /**
   * Serve the offline `scripted` model, which plays the run's `script`: whoever starts a run then
   * dictates its tool calls. For tests and demos only; off by default.
   */
  enableScriptedModel?: boolean;
  /**
   * How many bytes of JSON of run conversations the model activity keeps (least recently used out), so
   * that a model call need not read from its run the messages it references. Default 64 MiB.
   */
  conversationCacheBytes?: number;
  /**
   * Approvers' Ed25519 public keys, by key id: PEM, or `{ publicKey, principal }` for a key bound to who
   * holds it, which then signs only as that principal, with its roles (docs/operator-identity.md). With
   * them, every decision on runs this worker starts must be signed with one of the private keys (see the
   * docs/guides/security.md); without, a decision is as good as the signal rights of whoever sends it.
   * Default: `DECISION_PUBLIC_KEYS`.
   */
  decisionKeys?: DecisionKeys;
  /**
   * A webhook told when a call of a run this worker starts begins to wait, is decided, escalates or
   * expires: `{ url, secret, inboxUrl? }`, signed with HMAC-SHA256 (see `verifyWebhook` and the
   * docs/guides/http-server.md, "Notifications"). Default: `NOTIFICATIONS_WEBHOOK_URL`, `NOTIFICATIONS_WEBHOOK_SECRET`,
   * `NOTIFICATIONS_INBOX_URL`; `false` sends none whatever the environment says.
   */
  notifications?: NotificationSettings | false;
  /**
   * How long model steps are retried while a provider fails in a way that passes, for agents that set
   * no `modelRetry` of their own. Default `{ window: '6h', maximumInterval: '5m' }`. See docs/guides/models.md.
   */
  modelRetry?: ModelRetry;
  /**
   * Create the runs' search attributes when the namespace lacks them, where the worker's credentials allow
   * (a self-hosted server's operator API; not Temporal Cloud's), rather than refuse to start. Default:
   * `DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES` (`true`/`1`), else false. See docs/guides/cluster.md.
   */
  createSearchAttributes?: boolean;
  /**
   * The payload codec (see `createPayloadCodec`); else the one configured in the environment
   * (`DURABLE_AGENTS_CODEC_KEYS`, see `loadPayloadCodec`). Added after any codecs in `workerOptions`.
   */
  codec?: PayloadCodec;
  /**
   * Where payloads over a threshold go instead of the history (Temporal's external storage, see
   * `createExternalStorage` and docs/large-payloads.md); with it, a tool's output and a run's
   * conversation may be larger (`STORED_PAYLOAD_LIMITS`). Clients must be given the same. Default: the
   * one `DURABLE_AGENTS_PAYLOAD_STORE` configures (see `loadExternalStorage`); `false` keeps every
   * payload in the history whatever the environment says.
   */
  externalStorage?: ExternalStorage | false;
  /**
   * Worker Versioning: the Worker Deployment and build this worker is, and how the runs it starts move
   * between builds (default: pinned to the build that started them; see `DEFAULT_VERSIONING_BEHAVIOR`
   * and docs/upgrading.md). Default: `TEMPORAL_DEPLOYMENT_NAME`, `TEMPORAL_BUILD_ID`,
   * `TEMPORAL_VERSIONING_BEHAVIOR`, `TEMPORAL_SET_CURRENT_VERSION`; unversioned when they are unset;
   * `false` is unversioned whatever the environment says. A versioned build receives tasks only once it
   * is the deployment's current (or ramping) version: `setCurrent`, or the Temporal CLI.
   */
  versioning?: VersioningSettings | false;
  /** A connection to reuse; else one is opened from the settings and closed with the worker. */
  connection?: NativeConnection;
  /**
   * OpenTelemetry tracing (see `createTracing`): spans of the runs started by a tracing client, their
   * activities and model calls. Default: on when the environment names an OTLP endpoint
   * (`OTEL_EXPORTER_OTLP_ENDPOINT`, see docs/guides/cluster.md, "Tracing"); `false` turns it off
   * whatever the environment says.
   */
  tracing?: Tracing | false;
  /**
   * A pre-built workflow bundle (see `bundleWorkflowCode`, with {@link workflowBundleOptions}),
   * to skip bundling at start.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Where the run workflow's bundle is kept between starts (an absolute folder), or `false` to bundle at
   * every start. Default: `DURABLE_AGENTS_WORKFLOW_BUNDLE_CACHE` (a folder, or `off`), else
   * `~/.cache/durable-agents/workflow-bundles`. The first start bundles in a child process; later ones
   * read the bundle while every file in it is unchanged. Not used with `workflowBundle`, or when
   * `workerOptions` has plugins, `bundlerOptions`, workflow interceptor modules or converter paths of its
   * own (those bundle at start, as the SDK does).
   */
  workflowBundleCache?: string | false;
  /**
   * Other Temporal worker options (concurrency, interceptors, ...). `maxCachedWorkflows` defaults to
   * `DEFAULT_MAX_CACHED_WORKFLOWS`, not to the SDK's heap-sized default. Below 40 cached runs,
   * `maxConcurrentWorkflowTaskExecutions` defaults to the cache size (temporalio/sdk-rust#1534).
   */
  workerOptions?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>
  >;
}

/** Every option, so that the compiler names one the list lacks (an option documented but refused). */
const WORKER_OPTION_KEYS: Record<keyof CreateWorkerOptions, true> = {
  agents: true,
  providers: true,
  models: true,
  enableScriptedModel: true,
  conversationCacheBytes: true,
  decisionKeys: true,
  notifications: true,
  modelRetry: true,
  createSearchAttributes: true,
  codec: true,
  externalStorage: true,
  connection: true,
  workflowBundle: true,
  workflowBundleCache: true,
  tracing: true,
  workerOptions: true,
  versioning: true,
  address: true,
  namespace: true,
  profile: true,
  taskQueue: true,
};

/**
 * Refuses an option `createWorker` does not know, and a cache size that is not one, before anything
 * connects (the cache itself is made with the activities).
 */
export function checkWorkerOptions(options: CreateWorkerOptions): void {
  rejectUnknownKeys('createWorker', options, Object.keys(WORKER_OPTION_KEYS));
  if (options.modelRetry !== undefined) modelRetrySpec('createWorker', options.modelRetry);
  createSearchAttributesSetting(options.createSearchAttributes, 'createWorker');
  if (options.conversationCacheBytes === undefined) return;
  const problem = conversationCacheProblem(options.conversationCacheBytes);
  if (problem) throw new RangeError(`createWorker: ${problem}`);
}
