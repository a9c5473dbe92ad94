/**
 * What `DurableAgentsPlugin` takes, and the checks of it that need no connection: no option it does not
 * know, and none of the environment's settings that only `fromEnvironment` loads left out.
 */
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import type { Agent } from '../agent.js';
import { CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from '../codec/keyring.js';
import type { Tracing } from '../tracing/tracing.js';
import type { NotificationSettings } from './activities/approvals/notify.js';
import type { DecisionKeys } from './activities/approvals/verify-decision.js';
import type { ModelFactory } from './models/registry.js';

/** What the plugin needs: the agents, and what `createWorker` would otherwise read from the environment. */
export interface DurableAgentsPluginOptions {
  /** The agents the worker runs. */
  agents: Agent[];
  /** Extra model providers by name prefix, next to the built-in `openai` and `openai-responses`. */
  models?: Record<string, ModelFactory>;
  /** Serve the offline `scripted` model (tests and demos only: whoever starts a run dictates its tool calls). */
  enableScriptedModel?: boolean;
  /** Bytes of run conversations the model activity caches (default 64 MiB). */
  conversationCacheBytes?: number;
  /**
   * Approvers' public keys: every decision must then be signed (see `CreateWorkerOptions.decisionKeys`).
   * Default: `DECISION_PUBLIC_KEYS`.
   */
  decisionKeys?: DecisionKeys;
  /** The webhook for waiting calls. Default: `NOTIFICATIONS_WEBHOOK_*`; `false` sends none. */
  notifications?: NotificationSettings | false;
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
  models: true,
  enableScriptedModel: true,
  conversationCacheBytes: true,
  decisionKeys: true,
  notifications: true,
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
