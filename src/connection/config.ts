import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** The task queue when neither an option nor `TEMPORAL_TASK_QUEUE` names one. */
export const DEFAULT_TASK_QUEUE = 'durable-agents';

/** Overrides for the connection settings found in the environment or a config profile. */
export interface ConnectionSettings {
  /** `host:port`; else `TEMPORAL_ADDRESS`, the profile, or `localhost:7233`. */
  address?: string;
  /** Else `TEMPORAL_NAMESPACE`, the profile, or `default`. */
  namespace?: string;
  /** Profile of the Temporal config file (`TEMPORAL_CONFIG_FILE`); else `TEMPORAL_PROFILE` or `default`. */
  profile?: string;
  /** Else `TEMPORAL_TASK_QUEUE` or `durable-agents`. */
  taskQueue?: string;
}

/** The keys of {@link ConnectionSettings}, for options objects that take them. */
export const CONNECTION_SETTINGS = ['address', 'namespace', 'profile', 'taskQueue'] as const satisfies ReadonlyArray<
  keyof ConnectionSettings
>;

export interface ResolvedConnection {
  connectionOptions: NativeConnectionOptions;
  namespace: string;
  taskQueue: string;
}

/**
 * Connection settings the way every Temporal tool reads them: `@temporalio/envconfig` loads the
 * config profile and the `TEMPORAL_*` environment (address, namespace, TLS, API key, gRPC metadata),
 * and explicit settings win.
 */
export function resolveConnection(settings: ConnectionSettings = {}): ResolvedConnection {
  const { connectionOptions, namespace } = loadClientConnectConfig({ profile: settings.profile });
  return {
    connectionOptions: {
      ...connectionOptions,
      address: settings.address ?? connectionOptions.address ?? 'localhost:7233',
    },
    namespace: settings.namespace ?? namespace ?? 'default',
    taskQueue: settings.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  };
}

/**
 * The worker's webhook from the environment: `NOTIFICATIONS_WEBHOOK_URL` and
 * `NOTIFICATIONS_WEBHOOK_SECRET` (both, or neither), and `NOTIFICATIONS_INBOX_URL` for the links.
 */
export function notificationsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { url: string; secret: string; inboxUrl?: string } | undefined {
  const url = env.NOTIFICATIONS_WEBHOOK_URL;
  const secret = env.NOTIFICATIONS_WEBHOOK_SECRET;
  if (!url && !secret) return undefined;
  if (!url || !secret) {
    throw new TypeError(
      'NOTIFICATIONS_WEBHOOK_URL and NOTIFICATIONS_WEBHOOK_SECRET go together: notifications are always signed',
    );
  }
  const inboxUrl = env.NOTIFICATIONS_INBOX_URL;
  return { url, secret, ...(inboxUrl ? { inboxUrl } : {}) };
}
