/** Serving the HTTP app on a port, safely: no authentication means loopback only. */
import { serve, type ServerType } from '@hono/node-server';
import type { AgentClient } from '../client/agent-client.js';
import { rejectUnknownKeys } from '../options.js';
import { createServerApp } from './app.js';
import { SERVER_OPTIONS, type ServerOptions } from './server-options.js';
import { isLoopback } from './auth/guards.js';

export interface StartServerOptions extends ServerOptions {
  /** The address to listen on (default `127.0.0.1`). */
  hostname?: string;
  /** The port (default 3000; 0 picks a free one). */
  port?: number;
}

/**
 * Serves the app. It refuses to listen anywhere but loopback without authentication, since anyone
 * who can reach it could then start runs and decide their tool calls, and to start on a namespace that
 * lacks the runs' search attributes (`SearchAttributesMissingError`; see `AgentClient.checkSearchAttributes`).
 */
export async function startServer(client: AgentClient, options: StartServerOptions = {}): Promise<ServerType> {
  const { hostname = '127.0.0.1', port = 3000, ...app } = options;
  rejectUnknownKeys('startServer', app, SERVER_OPTIONS);
  if (!app.authenticate && !isLoopback(hostname)) {
    throw new Error(
      `refusing to serve on ${hostname} without authentication: anyone who reaches it could start runs and approve ` +
        'their tool calls. Configure authentication (SERVER_TOKENS, SERVER_JWKS_URL, or createServerApp({ ' +
        'authenticate })), or listen on 127.0.0.1.',
    );
  }
  if (!isLoopback(hostname) && !app.allowedHosts) {
    throw new Error(
      `serving on ${hostname}: say which Host names clients reach it by (allowedHosts, SERVER_ALLOWED_HOSTS); ` +
        'requests with any other Host are refused, so that a DNS-rebinding page cannot use the server',
    );
  }
  // A namespace without the runs' search attributes would fail every list and inbox request: say so now.
  await client.checkSearchAttributes();
  const server = serve({ fetch: createServerApp(client, app).fetch, hostname, port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return server;
}
