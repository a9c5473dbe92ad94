/**
 * `npm run codec-server`: the remote codec endpoint for the Temporal Web UI and CLI, with the codec
 * keys of the environment (`DURABLE_AGENTS_CODEC_KEYS`), for the namespace of the environment
 * (`TEMPORAL_NAMESPACE`). Point the UI at it: `temporal server start-dev --ui-codec-endpoint
 * http://127.0.0.1:8888`, or the UI's codec server setting. See the README, "Payload encryption".
 */
import { serve } from '@hono/node-server';
import { errorMessage } from '../src/index.js';
import { resolveConnection } from '../src/worker/index.js';
import { codecEndpointSettings, createCodecEndpoint } from '../src/server/index.js';
import { describeCodec, EncryptionCodec, loadPayloadCodec } from '../src/codec/index.js';

try {
  const settings = codecEndpointSettings();
  const codec = await loadPayloadCodec();
  if (!(codec instanceof EncryptionCodec))
    throw new Error('no codec keys: set DURABLE_AGENTS_CODEC_KEYS or DURABLE_AGENTS_CODEC_KEYS_FILE');
  const { namespace } = resolveConnection();
  const app = createCodecEndpoint({
    codec,
    token: settings.token,
    corsOrigins: settings.corsOrigins,
    namespaces: [namespace],
    allowedHosts: settings.allowedHosts,
  });
  const server = serve({ fetch: app.fetch, port: settings.port, hostname: settings.host }, (info) => {
    console.error(
      `codec-server: listening on http://${info.address}:${info.port} for namespace "${namespace}" ` +
        `(${describeCodec(codec)}; ${settings.token ? 'bearer token required' : 'no token, loopback only'}; ` +
        `Host: ${settings.allowedHosts.join(', ')}; CORS: ${settings.corsOrigins.join(', ')})`,
    );
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
} catch (err) {
  console.error(`codec-server: ${errorMessage(err)}`);
  process.exit(1);
}
