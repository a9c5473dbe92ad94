/**
 * How `AgentClient.connect` makes its Temporal client: the connection settings, the payload codec, the
 * payload store and the tracing, from the options or else from the environment.
 */
import { Client, Connection } from '@temporalio/client';
import { checkPayloadStore, loadExternalStorage } from '../codec/external-storage.js';
import { loadPayloadCodec } from '../codec/payload-codec.js';
import { CONNECTION_SETTINGS, resolveConnection } from '../connection/config.js';
import { rejectUnknownKeys } from '../options.js';
import { tracingFromEnv } from '../tracing/config.js';
import type { AgentClientOptions } from './client-options.js';
import { signingKeyFromEnv } from './decisions/signing.js';

/** What the client is made of: the Temporal client, and what it opened itself (to close with it). */
export async function connectClient(options: AgentClientOptions) {
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
  const connection = await Connection.connect({
    address: connectionOptions.address,
    tls: connectionOptions.tls,
    apiKey: connectionOptions.apiKey,
    metadata: connectionOptions.metadata,
  });
  const client = new Client({
    connection,
    namespace,
    dataConverter: { payloadCodecs: [codec], ...(externalStorage ? { externalStorage } : {}) },
    ...(tracing ? { interceptors: { workflow: [tracing.clientInterceptor()] } } : {}),
  });
  const { warn, principal, signingKey = signingKeyFromEnv() } = options;
  return { client, taskQueue, ownConnection: connection, ownTracing, warn, principal, signingKey };
}
