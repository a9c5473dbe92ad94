/**
 * `npm run server`: the HTTP server for browser approval UIs, in front of the runs in the Temporal
 * namespace from the environment. Run a worker next to it (`npm run worker`).
 *
 * - `HOST` (default 127.0.0.1), `PORT` (default 3000).
 * - Authentication, one of: `SERVER_DEV_TOKEN`; `SERVER_TOKENS` (JSON: token to principal); or
 *   `SERVER_JWKS_URL` with `SERVER_JWT_ISSUER`, `SERVER_JWT_AUDIENCE` and `SERVER_JWT_TENANTS`
 *   (`required` or `none`; optionally `SERVER_JWT_ALL_TENANTS_ROLE`, `SERVER_JWT_MAX_LIFETIME`). Without
 *   any, it serves loopback clients only. It says at start which tenancy it enforces.
 * - `SERVER_ALLOWED_HOSTS`, `SERVER_ALLOWED_ORIGINS`: comma-separated lists.
 */
import { errorMessage } from '../src/index.js';
import { AgentClient } from '../src/client/index.js';
import { authenticatorFromEnv, DEFAULT_REQUEST_OPTIONS, describeTenancy, startServer } from '../src/server/index.js';
import { exampleAgents } from './agents.js';

const list = (value: string | undefined) => (value ? value.split(',').map((s) => s.trim()) : undefined);

let authenticate: ReturnType<typeof authenticatorFromEnv>;
try {
  // Before connecting: a configuration error is one line (never a token), not a stack.
  authenticate = authenticatorFromEnv();
} catch (err) {
  console.error(`server: ${errorMessage(err)}`);
  process.exit(1);
}
const client = await AgentClient.connect();
const hostname = process.env.HOST ?? '127.0.0.1';
const server = await startServer(client, {
  hostname,
  port: Number(process.env.PORT ?? 3000),
  authenticate,
  agents: exampleAgents,
  // The example agents play the scripted model: a request may send its script.
  requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  allowedHosts: list(process.env.SERVER_ALLOWED_HOSTS),
  allowedOrigins: list(process.env.SERVER_ALLOWED_ORIGINS),
});
const address = server.address();
const where = typeof address === 'object' && address ? `${address.address}:${address.port}` : hostname;
console.error(`server: ${describeTenancy(authenticate)}`);
console.error(
  `server: listening on http://${where} (namespace "${client.namespace}", task queue "${client.taskQueue}"; ` +
    `${authenticate ? 'bearer authentication' : 'no authentication: loopback clients only'}); ` +
    `approval inbox: http://${where}/inbox; chat: http://${where}/chat?agent=AGENT`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void client.close().then(() => process.exit(0)));
  });
}
