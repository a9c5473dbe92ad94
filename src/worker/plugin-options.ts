/**
 * What `DurableAgentsPlugin` takes, and the checks of it that need no connection: no option it does not
 * know, and none of the environment's settings that only `fromEnvironment` loads left out.
 */
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import { CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from '../codec/keyring.js';
import type { Tracing } from '../tracing/tracing.js';
import type { CreateWorkerOptions } from './worker-options.js';

/**
 * What the plugin needs: the agents and their settings as `createWorker` takes them, and the codec,
 * payload store and tracing, which only `fromEnvironment` reads from the environment.
 */
export interface DurableAgentsPluginOptions extends Pick<
  CreateWorkerOptions,
  | 'agents'
  | 'providers'
  | 'models'
  | 'enableScriptedModel'
  | 'conversationCacheBytes'
  | 'decisionKeys'
  | 'notifications'
  | 'modelRetry'
  | 'createSearchAttributes'
> {
  /**
   * The payload codec, added last to the worker's and client's codecs. Default: payloads in clear;
   * while the environment sets codec keys, a plugin without a codec is refused (`fromEnvironment` reads them).
   */
  codec?: PayloadCodec;
  /** The payload store for payloads over its threshold (docs/large-payloads.md). Default: none. */
  externalStorage?: ExternalStorage;
  /** OpenTelemetry tracing of runs started by a tracing client. Default: none. */
  tracing?: Tracing;
}

export const PLUGIN_OPTION_KEYS: Record<keyof DurableAgentsPluginOptions, true> = {
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
  tracing: true,
};

/**
 * The environment's codec keys and payload store are read asynchronously, by `fromEnvironment`: a
 * plugin made without them while the environment sets them would write payloads in clear that the
 * operator asked to encrypt or to store, so it is refused.
 */
export function refuseUnloadedEnvironment({ codec, externalStorage }: DurableAgentsPluginOptions): void {
  const unloaded = [
    ...(codec ? [] : [CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV].map((name) => [name, 'codec'] as const)),
    ...(externalStorage ? [] : [['DURABLE_AGENTS_PAYLOAD_STORE', 'externalStorage'] as const]),
  ].find(([name]) => process.env[name]?.trim());
  if (!unloaded) return;
  throw new TypeError(
    `DurableAgentsPlugin: ${unloaded[0]} is set, but the plugin was given no ${unloaded[1]}: make it with ` +
      '`await DurableAgentsPlugin.fromEnvironment({ ... })`, which loads it, or pass `' +
      unloaded[1] +
      '`',
  );
}
