/**
 * `npm run server`: the HTTP server for browser approval UIs, on PORT (default 3000), in front of
 * the runs in the Temporal namespace from the environment. Run a worker next to it (`npm run worker`).
 */
import { serve } from '@hono/node-server';
import { AgentClient } from '../src/index.js';
import { createServerApp } from '../src/server/app.js';

const client = await AgentClient.connect();
const port = Number(process.env.PORT ?? 3000);
const server = serve(
  { fetch: createServerApp(client).fetch, port, hostname: process.env.HOST ?? '127.0.0.1' },
  (info) => {
    console.error(
      `server: listening on http://${info.address}:${info.port} (namespace "${client.namespace}", task queue "${client.taskQueue}")`,
    );
  },
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void client.close().then(() => process.exit(0)));
  });
}
