/**
 * A small HTTP server (Hono) in front of {@link AgentClient}, for browser UIs: start runs, stream
 * them as the AI SDK's UI message stream (SSE), list waiting runs, and decide their tool calls.
 * Every request is authenticated (or, with no authentication configured, served to loopback only)
 * and checked against the agents' access policies; bad requests get a 4xx with a JSON error that
 * names the problem, and nothing from inside the server reaches a response.
 */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { Agent } from '../agent.js';
import { canRead, canStart, confinedTenant, readers, tenantCheck, type AccessCheck } from '../approvals/access.js';
import type { AgentClient } from '../client/agent-client.js';
import { checkInput } from '../client/checks.js';
import { failureOf } from '../client/failures.js';
import type { StartOptions } from '../client/runs/run-input.js';
import { suspendedRun, type RunInfo } from '../client/runs/runs.js';
import { pickThreadCall } from '../client/decisions/thread-decisions.js';
import type { ThreadInfo } from '../client/threads.js';
import { shownPending } from '../schemas/shown-pending.js';
import {
  AccessDeniedError,
  decisionRefused,
  RequestRefusedError,
  RunFailedError,
  RunNotFoundError,
  StreamClosedError,
  ThreadNotFoundError,
} from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import type { AccessPolicy, Principal } from '../schemas/access.js';
import type { DecisionKind } from '../schemas/decisions.js';
import type { DecisionRequest } from '../client/decisions/decide.js';
import { IdSchema } from '../schemas/limits.js';
import type { RequestContextValues, RunOptions } from '../schemas/run-options.js';
import type { Authenticator } from './auth/auth.js';
import { serveChatPage } from './chat.js';
import { authGuard, errorBody, hostGuard, LOOPBACK_HOSTS, postGuard, type ServerEnv } from './auth/guards.js';
import { inboxCall, inboxEntries, serveInboxPage } from './inbox.js';
import { publicRunFailure } from './public-errors.js';
import {
  DecisionBodySchema,
  jsonBody,
  StartBodySchema,
  ThreadApprovalBodySchema,
  toModelMessages,
} from './requests.js';
import { shownResult, shownThreadMessages } from './shown-result.js';
import { threadAccess, threadPrivacyOption, type ThreadPrivacy } from './auth/thread-access.js';
import { sse, streamPosition, type SsePosition } from './sse.js';
import { openApiDocument } from './openapi.js';

/** The run options a request may set unless the server says otherwise: none that loosen an agent's policy. */
export const DEFAULT_REQUEST_OPTIONS: ReadonlyArray<keyof RunOptions> = [
  'threadId',
  // Resumes only what the caller could resume by hand; approvals stay the agent's to open to chat.
  'autoResumeSuspendedTools',
  'maxSteps',
  'activeTools',
  'requireToolApproval',
  'toolChoice',
  'modelSettings',
];

/** The options of {@link createServerApp}. */
export interface ServerOptions {
  /**
   * Who is calling (see `bearerTokens`, `jwtAuth`). Without it the server serves loopback clients
   * only, as nobody in particular: for development on one machine.
   */
  authenticate?: Authenticator;
  /** The agents whose access policies say who may start runs (and read them); others are open to any principal. */
  agents?: Agent[];
  /** Host names (or `host:port`) the server answers to; default `localhost`, `127.0.0.1`, `::1`. */
  allowedHosts?: string[];
  /** Origins of web pages allowed to call the server (CORS, and the check on POSTs); default none. */
  allowedOrigins?: string[];
  /** The run options a request may set; default {@link DEFAULT_REQUEST_OPTIONS}. */
  requestOptions?: ReadonlyArray<keyof RunOptions>;
  /** The largest request body, bytes (default 1 MiB): a larger one gets 413. */
  maxBodyBytes?: number;
  /**
   * The request context of a run started here, from who is calling (`(principal) => ({ userId:
   * principal.id })`). A request may not send any key it returns, even one it leaves undefined for a
   * caller (return every key, undefined where there is no value); a request may send others only where
   * `requestOptions` lists `requestContext`. The agent's `requestContextSchema` must name them all.
   */
  requestContext?: (principal: Principal | undefined) => RequestContextValues;
  /**
   * Who may use a thread (read, list, start runs on it, resume its calls by a message): `user` (default)
   * keeps a thread to the principal who began it and those the agents' read rules let in; `tenant` shares
   * it within the tenant. See {@link ThreadPrivacy}.
   */
  threadPrivacy?: ThreadPrivacy;
}

/** Every option of {@link ServerOptions}; any other is refused, naming the nearest. */
export const SERVER_OPTIONS = [
  'authenticate',
  'agents',
  'allowedHosts',
  'allowedOrigins',
  'requestOptions',
  'maxBodyBytes',
  'requestContext',
  'threadPrivacy',
] as const satisfies ReadonlyArray<keyof ServerOptions>;

function allowOrDeny(check: AccessCheck): void {
  if (!check.allowed) throw new AccessDeniedError(check.message);
}

/** The Hono app; serve it with `startServer` (or `@hono/node-server`, or any fetch-style runtime). */
export function createServerApp(client: AgentClient, options: ServerOptions = {}): Hono<ServerEnv> {
  rejectUnknownKeys('createServerApp', options, SERVER_OPTIONS);
  const app = new Hono<ServerEnv>();
  const policies = new Map<string, AccessPolicy | undefined>();
  const addPolicies = (agent: Agent): void => {
    policies.set(agent.id, agent.access);
    Object.values(agent.agents).forEach(addPolicies);
  };
  (options.agents ?? []).forEach(addPolicies);
  const requestOptions = new Set(options.requestOptions ?? DEFAULT_REQUEST_OPTIONS);
  const contextOf = options.requestContext;
  const allowedOrigins = options.allowedOrigins ?? [];
  const threadPrivacy = threadPrivacyOption(options.threadPrivacy);

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

  /**
   * A run the principal may read. Another tenant's run is not found, as a run that does not exist; one
   * the agent's read rule keeps from the principal is refused naming nothing of it.
   */
  const readableRun = async (runId: string, principal: Principal | undefined): Promise<RunInfo> => {
    const info = await client.getRun(runId);
    if (!tenantCheck(principal, info.resourceId).allowed) throw new RunNotFoundError(runId, client.namespace);
    if (!canRead(info.read ?? readers(policies.get(info.agentId ?? '')), info, principal).allowed) {
      throw new AccessDeniedError(`you may not read run "${runId}"`);
    }
    return info;
  };

  /** Whether the principal may use a thread (see thread-access.ts), and if not, why. */
  const threadReadable = (thread: ThreadInfo, principal: Principal | undefined) =>
    threadAccess(thread, principal, (agentId) => policies.get(agentId), threadPrivacy);

  /**
   * A run on a thread is shown the thread's messages: the caller must be allowed to read the thread,
   * if it exists already.
   */
  const mayJoinThread = async (threadId: string, resourceId: string | undefined, principal: Principal | undefined) => {
    const thread = await client.getThreadMessages({ threadId, ...(resourceId ? { resourceId } : {}) }).catch((err) => {
      if (err instanceof ThreadNotFoundError) return undefined;
      throw err;
    });
    const access = thread ? threadReadable(thread, principal) : undefined;
    if (access && !access.allowed)
      throw new AccessDeniedError(`you may not start a run on thread "${threadId}": ${access.why}`);
  };

  /** The resource a request is about: the caller's tenant (an operator's: every one) unless it names another. */
  const threadResource = (c: Context<ServerEnv>): string | undefined => {
    const principal = c.get('principal');
    const asked = c.req.query('resourceId') || confinedTenant(principal);
    const resourceId = checkInput('resourceId', IdSchema.optional(), asked);
    allowOrDeny(tenantCheck(principal, resourceId));
    return resourceId;
  };

  /** A run's stream from a position, as SSE; the UI mapping first goes through what came before it. */
  const streamFrom = async (runId: string, from: SsePosition): Promise<Response> => {
    // Reading what came before also refuses an offset past the end, before the response starts.
    const before = from.offset > 0 ? await client.readChunks(runId, { toOffset: from.offset }) : [];
    return sse(runId, (signal) => client.subscribeBatches(runId, { fromOffset: from.offset, signal }), from, before);
  };

  const startOptions = async (c: Context<ServerEnv>) => {
    const principal = c.get('principal');
    const agentId = c.req.param('agentId')!;
    allowOrDeny(canStart(policies.get(agentId), agentId, principal));
    const body = await jsonBody(c, StartBodySchema);
    const refused = Object.keys(body.options ?? {}).filter((key) => !requestOptions.has(key as keyof RunOptions));
    if (refused.length > 0) {
      throw new RequestRefusedError(
        'OptionNotAllowed',
        `a request may not set ${refused.join(', ')}; this server lets it set: ${[...requestOptions].join(', ')}`,
      );
    }
    const prompt = body.prompt ?? (await toModelMessages(body.messages!));
    const fromServer = contextOf?.(principal) ?? {};
    // A key the server sets from who is calling is never the caller's, also where the server leaves it unset.
    const claimed = Object.keys(body.options?.requestContext ?? {}).filter((key) => key in fromServer);
    if (claimed.length > 0) {
      throw new RequestRefusedError(
        'OptionNotAllowed',
        `requestContext.${claimed.join(', requestContext.')}: set by this server from who is calling, not by a request`,
      );
    }
    const requestContext = { ...body.options?.requestContext, ...fromServer };
    const runOptions: StartOptions = {
      ...body.options,
      ...(Object.keys(requestContext).length > 0 ? { requestContext } : {}),
      // The tenant comes from who is calling, never from the request; an all-tenants operator's runs are of none.
      ...(confinedTenant(principal) ? { resourceId: confinedTenant(principal) } : {}),
      ...(body.runId ? { runId: body.runId } : {}),
      ...(principal ? { principal } : {}),
    };
    if (runOptions.threadId) await mayJoinThread(runOptions.threadId, runOptions.resourceId, principal);
    return { agentId, prompt, options: runOptions };
  };

  app.post('/agents/:agentId/stream', async (c) => {
    const { agentId, prompt, options } = await startOptions(c);
    const stream = await client.stream(agentId, prompt, options);
    return streamFrom(stream.runId, { offset: stream.fromOffset, skip: 0 });
  });

  app.post('/agents/:agentId/generate', async (c) => {
    const { agentId, prompt, options } = await startOptions(c);
    // Read as a stream to its pause or end, so that the answer shows what the stream shows: a display
    // transform's form of a call, never the raw values that the library's own result keeps.
    const stream = await client.stream(agentId, prompt, options);
    const chunks = stream.fromOffset > 0 ? await client.readChunks(stream.runId, { toOffset: stream.fromOffset }) : [];
    for await (const chunk of stream) chunks.push(chunk);
    return c.json(shownResult(await client.next(stream.runId), chunks));
  });

  app.get('/runs/:runId/stream', async (c) => {
    const runId = c.req.param('runId');
    // A reconnecting EventSource keeps its URL and adds Last-Event-ID: that wins over ?offset.
    const from = streamPosition(c.req.query('offset'), c.req.header('last-event-id'));
    if (typeof from === 'string') return c.json(errorBody('InvalidRequest', from), 400);
    const info = await readableRun(runId, c.get('principal')); // 404 or 403 before any stream starts
    if (info.closeTime && from.offset > 0) throw new StreamClosedError(runId, from.offset);
    return streamFrom(runId, from);
  });

  /**
   * The waiting runs a request may see: of the caller's tenant (or the resource it names, refused for
   * another tenant), filtered by agent and thread when asked, and readable to the caller.
   */
  const waitingRuns = async (c: Context<ServerEnv>, agentId: string | undefined): Promise<RunInfo[]> => {
    const principal = c.get('principal');
    const resourceId = threadResource(c);
    const threadId = checkInput('threadId', IdSchema.optional(), c.req.query('threadId') || undefined);
    const runs = await client.listRuns({ status: 'suspended', agentId, threadId, resourceId, limit: Infinity });
    return runs.filter((run) => {
      const read = run.read ?? readers(policies.get(run.agentId ?? ''));
      return canRead(read, run, principal).allowed;
    });
  };

  app.get('/agents/:agentId/suspended-runs', async (c) => {
    const agentId = checkInput('agentId', IdSchema, c.req.param('agentId'));
    // Approvers who did not start the run see its calls as the stream shows them, never the raw values.
    const runs = (await waitingRuns(c, agentId)).map(suspendedRun);
    return c.json({ runs: runs.map((run) => ({ ...run, pendingToolCalls: run.pendingToolCalls.map(shownPending) })) });
  });

  // The inbox's list: every call the caller may see waiting, newest first, as the stream shows it.
  app.get('/inbox/calls', async (c) => {
    const agentId = checkInput('agentId', IdSchema.optional(), c.req.query('agentId') || undefined);
    const principal = c.get('principal');
    const entries = inboxEntries(await waitingRuns(c, agentId), principal);
    const who = principal ? { id: principal.id, name: principal.name, tenant: principal.tenant } : null;
    return c.json({ principal: who, calls: entries });
  });

  // One run's status, waiting calls (as the stream shows them) and decision trail.
  app.get('/runs/:runId', async (c) => {
    const info = await readableRun(c.req.param('runId'), c.get('principal'));
    return c.json({
      runId: info.runId,
      agentId: info.agentId,
      threadId: info.threadId,
      status: info.status,
      closed: info.closeTime !== undefined,
      pendingToolCalls: info.pendingToolCalls.map(inboxCall),
      trail: info.decisions,
      refusals: info.refusals,
    });
  });

  app.get('/threads', async (c) => {
    const resourceId = threadResource(c);
    const threads = await client.listThreads({ ...(resourceId ? { resourceId } : {}), limit: 1000 });
    return c.json({ threads: threads.filter((t) => threadReadable(t, c.get('principal')).allowed) });
  });

  /** A thread the caller may read: within its tenant, every run on it readable to it (else 403). */
  const readableThread = async <T extends ThreadInfo>(
    c: Context<ServerEnv>,
    read: (target: { threadId: string; resourceId?: string }) => Promise<T>,
  ): Promise<T> => {
    const resourceId = threadResource(c);
    const threadId = checkInput('threadId', IdSchema, c.req.param('threadId'));
    const thread = await read({ threadId, ...(resourceId ? { resourceId } : {}) });
    const access = threadReadable(thread, c.get('principal'));
    if (!access.allowed) throw new AccessDeniedError(`you may not read thread "${threadId}": ${access.why}`);
    return thread;
  };
  const messages = (target: { threadId: string; resourceId?: string }) => client.getThreadMessages(target);

  // The thread's calls as their runs' streams showed them: a display transform's form, never the raw values.
  app.get('/threads/:threadId/messages', async (c) => c.json(shownThreadMessages(await readableThread(c, messages))));

  app.get('/threads/:threadId/working-memory', async (c) => {
    const thread = await readableThread(c, messages);
    return c.json({ workingMemory: thread.workingMemory ?? null });
  });

  app.get('/threads/:threadId/tasks', async (c) =>
    c.json(await readableThread(c, (target) => client.getThreadTasks(target))),
  );

  const decide = (kind: DecisionKind) => async (c: Context<ServerEnv>) => {
    const { resumeData, result, args, resolution, output, ...target } = await jsonBody(c, DecisionBodySchema);
    if (kind === 'resume' && resumeData === undefined) {
      return c.json(errorBody('InvalidRequest', 'resume needs "resumeData"'), 400);
    }
    if (kind === 'result' && result === undefined) {
      return c.json(errorBody('InvalidRequest', 'a tool result needs "result"'), 400);
    }
    if (kind === 'resolve' && resolution === undefined) {
      return c.json(errorBody('InvalidRequest', 'resolve needs "resolution": retry, skip or fail'), 400);
    }
    const principal = c.get('principal');
    const request = {
      kind,
      runId: c.req.param('runId')!,
      ...target,
      ...(principal ? { principal } : {}),
      ...(kind === 'resume' ? { resumeData } : {}),
      ...(kind === 'result' ? { result } : {}),
      ...(kind === 'approve' && args !== undefined ? { args } : {}),
      ...(kind === 'resolve' ? { action: resolution, ...(output !== undefined ? { output } : {}) } : {}),
    } as DecisionRequest;
    const stream = await client.decide(request);
    return streamFrom(stream.runId, { offset: stream.fromOffset, skip: 0 });
  };
  app.post('/threads/:threadId/tool-approval', async (c) => {
    const principal = c.get('principal');
    const threadId = checkInput('threadId', IdSchema, c.req.param('threadId'));
    const body = await jsonBody(c, ThreadApprovalBodySchema);
    const resourceId = body.resourceId ?? confinedTenant(principal);
    allowOrDeny(tenantCheck(principal, resourceId));
    // Only the runs this principal may read are searched, so a refusal names no other call.
    const runs = await client.listRuns({ status: 'suspended', threadId, resourceId, limit: Infinity });
    const visible = runs
      .filter((run) => canRead(run.read ?? readers(policies.get(run.agentId ?? '')), run, principal).allowed)
      .map(suspendedRun);
    const picked = pickThreadCall(threadId, visible, { toolCallId: body.toolCallId, fingerprint: body.fingerprint });
    if ('refusal' in picked) throw decisionRefused(`thread:${threadId}`, picked.refusal.type, picked.refusal.message);
    const stream = await client.decide({
      kind: body.approved ? 'approve' : 'decline',
      runId: picked.runId,
      toolCallId: picked.call.toolCallId,
      fingerprint: body.fingerprint,
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
      ...(body.by !== undefined ? { by: body.by } : {}),
      ...(principal ? { principal } : {}),
    } as DecisionRequest);
    return streamFrom(stream.runId, { offset: stream.fromOffset, skip: 0 });
  });
  app.post('/runs/:runId/approve', decide('approve'));
  app.post('/runs/:runId/decline', decide('decline'));
  app.post('/runs/:runId/resume', decide('resume'));
  app.post('/runs/:runId/tool-result', decide('result'));
  app.post('/runs/:runId/resolve', decide('resolve'));

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
