/**
 * The names the root entry exported in 0.2 that belong to another entry now, kept for one minor version
 * (see CHANGELOG.md, 0.3.0): import them from `durable-agents/worker`, `/client`, `/server`, `/codec` or
 * `/tracing`. They load their entry when first used (with `require`, which Node 22 does for ES modules),
 * so that importing the root still loads neither the Temporal worker nor its client. Values that are
 * plain data come from modules that load nothing heavy.
 */
import { createRequire } from 'node:module';

type WorkerEntry = typeof import('./worker/index.js');
type ClientEntry = typeof import('./client/index.js');
type ServerEntry = typeof import('./server/index.js');
type CodecEntry = typeof import('./codec/index.js');

const require = createRequire(import.meta.url);
const entry = {
  worker: (): WorkerEntry => require('./worker/index.js') as WorkerEntry,
  client: (): ClientEntry => require('./client/index.js') as ClientEntry,
  server: (): ServerEntry => require('./server/index.js') as ServerEntry,
  codec: (): CodecEntry => require('./codec/index.js') as CodecEntry,
};

type Fn = (...args: never[]) => unknown;

/** A function of an entry, loading the entry at its first call. */
function lazyFunction<E, K extends keyof E>(load: () => E, name: K): E[K] {
  return ((...args: never[]) => (load()[name] as Fn)(...args)) as E[K];
}

/** A class (or an object) of an entry: a stand-in that loads the entry when it is first used. */
function lazyValue<E, K extends keyof E>(load: () => E, name: K, callable = false): E[K] {
  const real = () => load()[name] as object;
  const target = callable ? function () {} : {};
  return new Proxy(target, {
    construct: (_t, args) => Reflect.construct(real() as new (...a: unknown[]) => object, args),
    apply: (_t, self, args) => Reflect.apply(real() as Fn, self, args),
    get: (_t, key) => Reflect.get(real(), key),
    has: (_t, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_t, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key);
      return found ? { ...found, configurable: true } : undefined;
    },
  }) as E[K];
}

// Worker: import them from `durable-agents/worker`.
/** @deprecated Import it from `durable-agents/worker`. */
export const createWorker: WorkerEntry['createWorker'] = lazyFunction(entry.worker, 'createWorker');
/** @deprecated Import it from `durable-agents/worker`. */
export const runWorker: WorkerEntry['runWorker'] = lazyFunction(entry.worker, 'runWorker');
/** @deprecated Import it from `durable-agents/worker`. */
export const setCurrentVersion: WorkerEntry['setCurrentVersion'] = lazyFunction(entry.worker, 'setCurrentVersion');
/** @deprecated Import it from `durable-agents/worker`. */
export const versioningFromEnv: WorkerEntry['versioningFromEnv'] = lazyFunction(entry.worker, 'versioningFromEnv');
/** @deprecated Import it from `durable-agents/worker`. */
export const AgentRegistry: WorkerEntry['AgentRegistry'] = lazyValue(entry.worker, 'AgentRegistry', true);
/** @deprecated Import it from `durable-agents/worker`. */
export type AgentRegistry = InstanceType<WorkerEntry['AgentRegistry']>;
/** @deprecated Import it from `durable-agents/worker`. */
export const ScriptedLanguageModel: WorkerEntry['ScriptedLanguageModel'] = lazyValue(
  entry.worker,
  'ScriptedLanguageModel',
  true,
);
/** @deprecated Import it from `durable-agents/worker`. */
export type ScriptedLanguageModel = InstanceType<WorkerEntry['ScriptedLanguageModel']>;

// Client: import them from `durable-agents/client`.
/** @deprecated Import it from `durable-agents/client`. */
export const toolRunOutcome: ClientEntry['toolRunOutcome'] = lazyFunction(entry.client, 'toolRunOutcome');
/** @deprecated Import it from `durable-agents/client`. */
export const failureOf: ClientEntry['failureOf'] = lazyFunction(entry.client, 'failureOf');
/** @deprecated Import it from `durable-agents/client`. */
export const resolveConnection: ClientEntry['resolveConnection'] = lazyFunction(entry.client, 'resolveConnection');
/** @deprecated Import it from `durable-agents/client`. */
export const AgentClient: ClientEntry['AgentClient'] = lazyValue(entry.client, 'AgentClient', true);
/** @deprecated Import it from `durable-agents/client`. */
export type AgentClient = InstanceType<ClientEntry['AgentClient']>;
/** @deprecated Import it from `durable-agents/client`. */
export const RunStream: ClientEntry['RunStream'] = lazyValue(entry.client, 'RunStream', true);
/** @deprecated Import it from `durable-agents/client`. */
export type RunStream = InstanceType<ClientEntry['RunStream']>;

// Server: import them from `durable-agents/server`.
/** @deprecated Import it from `durable-agents/server`. */
export const createServerApp: ServerEntry['createServerApp'] = lazyFunction(entry.server, 'createServerApp');
/** @deprecated Import it from `durable-agents/server`. */
export const startServer: ServerEntry['startServer'] = lazyFunction(entry.server, 'startServer');
/** @deprecated Import it from `durable-agents/server`. */
export const bearerTokens: ServerEntry['bearerTokens'] = lazyFunction(entry.server, 'bearerTokens');
/** @deprecated Import it from `durable-agents/server`. */
export const describeTenancy: ServerEntry['describeTenancy'] = lazyFunction(entry.server, 'describeTenancy');
/** @deprecated Import it from `durable-agents/server`. */
export const jwtAuth: ServerEntry['jwtAuth'] = lazyFunction(entry.server, 'jwtAuth');
/** @deprecated Import it from `durable-agents/server`. */
export const authenticatorFromEnv: ServerEntry['authenticatorFromEnv'] = lazyFunction(
  entry.server,
  'authenticatorFromEnv',
);
/** @deprecated Import it from `durable-agents/server`. */
export const createCodecEndpoint: ServerEntry['createCodecEndpoint'] = lazyFunction(
  entry.server,
  'createCodecEndpoint',
);
/** @deprecated Import it from `durable-agents/server`. */
export const assertCodecEndpointExposure: ServerEntry['assertCodecEndpointExposure'] = lazyFunction(
  entry.server,
  'assertCodecEndpointExposure',
);
/** @deprecated Import it from `durable-agents/server`. */
export const codecEndpointSettings: ServerEntry['codecEndpointSettings'] = lazyFunction(
  entry.server,
  'codecEndpointSettings',
);
/** @deprecated Import it from `durable-agents/server`. */
export const UiChunkMapper: ServerEntry['UiChunkMapper'] = lazyValue(entry.server, 'UiChunkMapper', true);
/** @deprecated Import it from `durable-agents/server`. */
export type UiChunkMapper = InstanceType<ServerEntry['UiChunkMapper']>;

// Codec: import them from `durable-agents/codec`.
/** @deprecated Import it from `durable-agents/codec`. */
export const createPayloadCodec: CodecEntry['createPayloadCodec'] = lazyFunction(entry.codec, 'createPayloadCodec');
/** @deprecated Import it from `durable-agents/codec`. */
export const describeCodec: CodecEntry['describeCodec'] = lazyFunction(entry.codec, 'describeCodec');
/** @deprecated Import it from `durable-agents/codec`. */
export const loadPayloadCodec: CodecEntry['loadPayloadCodec'] = lazyFunction(entry.codec, 'loadPayloadCodec');
/** @deprecated Import it from `durable-agents/codec`. */
export const createExternalStorage: CodecEntry['createExternalStorage'] = lazyFunction(
  entry.codec,
  'createExternalStorage',
);
/** @deprecated Import it from `durable-agents/codec`. */
export const describeExternalStorage: CodecEntry['describeExternalStorage'] = lazyFunction(
  entry.codec,
  'describeExternalStorage',
);
/** @deprecated Import it from `durable-agents/codec`. */
export const loadExternalStorage: CodecEntry['loadExternalStorage'] = lazyFunction(entry.codec, 'loadExternalStorage');
/** @deprecated Import it from `durable-agents/codec`. */
export const payloadStoreFromEnv: CodecEntry['payloadStoreFromEnv'] = lazyFunction(entry.codec, 'payloadStoreFromEnv');
/** @deprecated Import it from `durable-agents/codec`. */
export const FileStorageDriver: CodecEntry['FileStorageDriver'] = lazyValue(entry.codec, 'FileStorageDriver', true);
/** @deprecated Import it from `durable-agents/codec`. */
export type FileStorageDriver = InstanceType<CodecEntry['FileStorageDriver']>;
/** @deprecated Import it from `durable-agents/codec`. */
export const EncryptionCodec: CodecEntry['EncryptionCodec'] = lazyValue(entry.codec, 'EncryptionCodec', true);
/** @deprecated Import it from `durable-agents/codec`. */
export type EncryptionCodec = InstanceType<CodecEntry['EncryptionCodec']>;
/** @deprecated Import it from `durable-agents/codec`. */
export const UnkeyedCodec: CodecEntry['UnkeyedCodec'] = lazyValue(entry.codec, 'UnkeyedCodec', true);
/** @deprecated Import it from `durable-agents/codec`. */
export type UnkeyedCodec = InstanceType<CodecEntry['UnkeyedCodec']>;

// Plain data, and code that loads nothing heavy, as it was.
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export {
  DEFAULT_MAX_CACHED_WORKFLOWS,
  workflowBundleOptions,
  workflowInterceptorModules,
  workflowPreloadModules,
  workflowsPath,
} from './worker/bundle/paths.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { DEFAULT_VERSIONING_BEHAVIOR } from './worker/versioning.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { DEFAULT_STREAM_GRACE_MS } from './schemas/stream-grace.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
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
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { INLINE_PAYLOAD_LIMITS, STORED_PAYLOAD_LIMITS } from './schemas/limits.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { CODEC_CURRENT_KEY_ENV, CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from './codec/keyring.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { CodecConfigError, PayloadDecryptError, UnknownCodecKeyError } from './codec/errors.js';
/** @deprecated Import these from their entry (see CHANGELOG.md, 0.3.0). */
export { otlpFromEnv, tracingFromEnv, TracingConfigError } from './tracing/config.js';
