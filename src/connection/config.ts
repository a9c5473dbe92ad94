import { readFileSync } from 'node:fs';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { z } from 'zod';
import { PrincipalSchema } from '../schemas/access.js';
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

/** A key bound to who holds it, as the keys file gives it (see `BoundDecisionKey`). */
const BoundKeyEntrySchema = z
  .object({ publicKey: z.string(), principal: PrincipalSchema.omit({ via: true }) })
  .strict();

/**
 * The approvers' keys file: key id to Ed25519 public key (PEM), or to `{ publicKey, principal }` for a
 * key bound to who holds it. Workers read it from `DECISION_PUBLIC_KEYS`; `agentctl --identity` reads
 * the same file.
 */
export type DecisionKeysFile = Record<string, string | z.infer<typeof BoundKeyEntrySchema>>;

/** The keys file's text, checked: the keys, or what is wrong with it (naming fields, never quoting a key). */
export function readDecisionKeys(text: string): { keys: DecisionKeysFile } | { problem: string } {
  const shape = 'give {"<key id>": "<PEM>" or {"publicKey": "<PEM>", "principal": {"id": …, "roles"?: […]}}}';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: `not JSON; ${shape}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { problem: shape };
  // No prototype: a key id "__proto__" is a key id like any other.
  const keys: DecisionKeysFile = Object.create(null) as DecisionKeysFile;
  const problems: string[] = [];
  for (const [keyId, entry] of Object.entries(json)) {
    if (keyId.length === 0 || keyId.length > 256) problems.push(`a key id of ${keyId.length} characters (1 to 256)`);
    if (typeof entry === 'string') {
      keys[keyId] = entry;
      continue;
    }
    const parsed = BoundKeyEntrySchema.safeParse(entry);
    if (parsed.success) keys[keyId] = parsed.data;
    // zod's messages name what was expected, never the value given (a key, say).
    else problems.push(...parsed.error.issues.map((i) => `${[keyId, ...i.path].join('.')}: ${i.message}`));
  }
  return problems.length > 0 ? { problem: `${shape}: ${problems.join('; ')}` } : { keys };
}

/** The approvers' public keys the environment names: `DECISION_PUBLIC_KEYS`, a JSON file or the JSON itself. */
export function decisionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): DecisionKeysFile | undefined {
  const source = env.DECISION_PUBLIC_KEYS;
  if (!source) return undefined;
  const text = source.trimStart().startsWith('{') ? source : readFileSync(source, 'utf8');
  const read = readDecisionKeys(text);
  if ('problem' in read) throw new TypeError(`DECISION_PUBLIC_KEYS: ${read.problem}`);
  return read.keys;
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
