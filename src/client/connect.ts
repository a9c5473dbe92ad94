/**
 * How `AgentClient.connect` makes its Temporal client: the connection settings, the payload codec, the
 * payload store and the tracing, from the options or else from the environment.
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { checkPayloadStore, loadExternalStorage } from '../codec/external-storage.js';
import { loadPayloadCodec } from '../codec/payload-codec.js';
import { CONNECTION_SETTINGS, resolveConnection } from '../connection/config.js';
import { rejectUnknownKeys } from '../options.js';
import { tracingFromEnv } from '../tracing/config.js';
import type { AgentClientOptions } from './client-options.js';
import { signingKeyFromEnv } from './decisions/signing.js';

/**
 * How a new connection is checked before use: `server` asks the server who it is (GetSystemInfo, what
 * `Connection.connect` does); `channel` only waits for the channel to be ready, for a short-lived process
 * whose first request checks the rest (agentctl: about 40 ms of every command, most of it protobufjs
 * preparing its first encode).
 */
export type ConnectionCheck = 'server' | 'channel';

/** How long a new connection may take, as `Connection.connect`'s default. */
const CONNECT_TIMEOUT_MS = 10_000;

/** What the client is made of: the Temporal client, and what it opened itself (to close with it). */
export async function connectClient(options: AgentClientOptions, check: ConnectionCheck = 'server') {
  rejectUnknownKeys('AgentClient.connect', options, [
    ...CONNECTION_SETTINGS,
    'codec',
    'externalStorage',
    'warn',
    'principal',
    'signingKey',
    'tracing',
  ] satisfies Array<keyof AgentClientOptions>);
  const { connectionOptions, namespace, taskQueue } = resolveConnection(options);
  const codec = options.codec ?? (await loadPayloadCodec());
  const externalStorage =
    options.externalStorage === false ? undefined : (options.externalStorage ?? (await loadExternalStorage()));
  if (externalStorage) await checkPayloadStore(externalStorage, 'client');
  const ownTracing = options.tracing === undefined ? await tracingFromEnv('durable-agents-client') : undefined;
  const tracing = options.tracing || ownTracing;
  const settings = {
    address: connectionOptions.address,
    tls: connectionOptions.tls,
    apiKey: connectionOptions.apiKey,
    metadata: connectionOptions.metadata,
    connectTimeout: CONNECT_TIMEOUT_MS,
  };
  const connection = check === 'server' ? await Connection.connect(settings) : await ReadyConnection.ready(settings);
  const client = new Client({
    connection,
    namespace,
    dataConverter: { payloadCodecs: [codec], ...(externalStorage ? { externalStorage } : {}) },
    ...(tracing ? { interceptors: { workflow: [tracing.clientInterceptor()] } } : {}),
  });
  const { warn, principal, signingKey = signingKeyFromEnv() } = options;
  return { client, taskQueue, ownConnection: connection, ownTracing, warn, principal, signingKey };
}

/**
 * A connection whose channel is ready; an address that does not answer is named, with what to check.
 * A subclass: `untilReady` is the SDK's, protected.
 */
class ReadyConnection extends Connection {
  static async ready(settings: ConnectionOptions): Promise<Connection> {
    const connection = this.lazy(settings) as ReadyConnection;
    try {
      await connection.untilReady(Date.now() + CONNECT_TIMEOUT_MS);
    } catch (err) {
      await connection.close();
      const why = err instanceof Error ? err.message : String(err);
      const address = settings.address ?? 'localhost:7233';
      throw new Error(
        `no Temporal server answered at ${address} within ${CONNECT_TIMEOUT_MS / 1000} s (${why}): check ` +
          'the address (--address, TEMPORAL_ADDRESS or the config profile), the TLS settings and that the server is up',
        { cause: err },
      );
    }
    return connection;
  }
}
