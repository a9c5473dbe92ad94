/**
 * A small HTTP server (Hono) in front of {@link AgentClient}, for browser UIs: start runs, stream
 * them as the AI SDK's UI message stream (SSE), list waiting runs, and decide their tool calls.
 * Every request is authenticated (or, with no authentication configured, served to loopback only)
 * and checked against the agents' access policies; bad requests get a 4xx with a JSON error that
 * names the problem, and nothing from inside the server reaches a response.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { AgentClient } from '../client/agent-client.js';
import { failureOf } from '../client/failures.js';
import { RunFailedError } from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import { serveChatPage } from './chat.js';
import { authGuard, errorBody, hostGuard, LOOPBACK_HOSTS, postGuard, type ServerEnv } from './auth/guards.js';
import { threadPrivacyOption } from './auth/thread-access.js';
import { serveInboxPage } from './inbox.js';
import { publicRunFailure } from './public-errors.js';
import { openApiDocument } from './openapi.js';
import { SERVER_OPTIONS, type ServerOptions } from './server-options.js';
import { PageSeal } from './page-seal.js';
import { RouteAccess } from './routes/access.js';
import { serveDecisionRoutes } from './routes/decisions.js';
import { serveGrantRoutes } from './routes/grants.js';
import { serveMessageRoutes } from './routes/messages.js';
import { serveRunRoutes } from './routes/runs.js';
import { serveThreadRoutes } from './routes/threads.js';

/** The Hono app; serve it with `startServer` (or `@hono/node-server`, or any fetch-style runtime). */
export function createServerApp(client: AgentClient, options: ServerOptions = {}): Hono<ServerEnv> {
  rejectUnknownKeys('createServerApp', options, SERVER_OPTIONS);
  const app = new Hono<ServerEnv>();
  const pageSeal = new PageSeal(options.pageTokenKey);
  const access = new RouteAccess(client, options.agents ?? [], threadPrivacyOption(options.threadPrivacy), pageSeal);
  const allowedOrigins = options.allowedOrigins ?? [];

  app.use(hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS));
  if (allowedOrigins.length > 0) {
    app.use(
      cors({
        origin: allowedOrigins,
        allowMethods: ['GET', 'POST'],
        allowHeaders: ['authorization', 'content-type', 'last-event-id'],
        exposeHeaders: ['x-run-id'],
      }),
    );
  }
  app.use(postGuard(allowedOrigins, options.maxBodyBytes ?? 1024 * 1024));
  // The pages and their files hold no data; what they read is behind authentication, registered below.
  serveInboxPage(app);
  serveChatPage(app);
  app.use(authGuard(options.authenticate));

  // The API as OpenAPI 3.1, behind the same guards as every route (see openapi.ts).
  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  // Who the pages are signed in as (null: a server with no authentication, loopback only).
  app.get('/session', (c) => {
    const principal = c.get('principal');
    return c.json({
      principal: principal ? { id: principal.id, name: principal.name, tenant: principal.tenant } : null,
    });
  });

  serveRunRoutes(app, client, access, options);
  serveThreadRoutes(app, client, access);
  serveDecisionRoutes(app, client, access);
  serveGrantRoutes(app, client, access);
  serveMessageRoutes(app, client);
  if (options.mcpApprover) {
    // The approver over MCP (Streamable HTTP, stateless): in the name of who the request authenticated as.
    app.post('/mcp', async (c) => {
      const { serveApproverMcp } = await import('./mcp/http.js');
      const principal = c.get('principal');
      return serveApproverMcp(c.req.raw, { client, principal, mayRead: (run) => access.mayRead(run, principal) });
    });
  }

  app.notFound((c) => c.json(errorBody('NotFound', `no route ${c.req.method} ${c.req.path}`), 404));
  app.onError((err) => {
    if (err instanceof HTTPException) return err.getResponse();
    const failure = failureOf(err);
    if (!failure.expected) {
      // The caller learns that something broke, not what: the details are for the server's log.
      const id = crypto.randomUUID();
      console.error(`server: unexpected error ${id}`, err);
      return Response.json(errorBody('InternalError', `internal error ${id}; see the server log`), { status: 500 });
    }
    const message =
      err instanceof RunFailedError
        ? `Run "${err.runId}" failed: ${publicRunFailure(err.failureType, err.reason)}`
        : failure.message;
    return Response.json(errorBody(failure.type, message), { status: failure.httpStatus });
  });
  return app;
}
