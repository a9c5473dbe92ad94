/**
 * The routes of runs: start one (streamed, or answered whole), read its stream from any position, its
 * status and trail, and the waiting runs and calls a caller may see.
 */
import { withObject } from '../../client/runs/structured-result.js';
import type { Context, Hono } from 'hono';
import { confinedTenant } from '../../approvals/access.js';
import { receiptLine } from '../../approvals/receipts.js';
import type { AgentClient } from '../../client/agent-client.js';
import { checkInput } from '../../client/checks.js';
import type { StartOptions } from '../../client/runs/run-input.js';
import { suspendedRun } from '../../client/runs/runs.js';
import { RequestRefusedError, StreamClosedError } from '../../errors.js';
import { IdSchema } from '../../schemas/limits.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { shownPending } from '../../schemas/shown-pending.js';
import { errorBody, type ServerEnv } from '../auth/guards.js';
import { inboxCall, inboxEntries, inboxRetrying } from '../inbox.js';
import { queryParams } from '../query-params.js';
import { jsonBody, StartBodySchema, toModelMessages } from '../requests.js';
import { DEFAULT_REQUEST_OPTIONS, type ServerOptions } from '../server-options.js';
import { shownResult } from '../shown-result.js';
import { sse, streamPosition, type SsePosition } from '../sse.js';
import type { RouteAccess } from './access.js';

/** What a list of waiting runs takes besides the agent: the resource and thread, and the page. */
const WAITING_PARAMS = ['threadId', 'resourceId', 'pageSize', 'pageToken'] as const;

/** A run's stream from a position, as SSE; the UI mapping first goes through what came before it. */
export async function streamFrom(client: AgentClient, runId: string, from: SsePosition): Promise<Response> {
  // Reading what came before also refuses an offset past the end, before the response starts.
  const before = from.offset > 0 ? await client.readChunks(runId, { toOffset: from.offset }) : [];
  return sse(runId, (signal) => client.subscribeBatches(runId, { fromOffset: from.offset, signal }), from, before);
}

export function serveRunRoutes(
  app: Hono<ServerEnv>,
  client: AgentClient,
  access: RouteAccess,
  options: ServerOptions,
): void {
  const requestOptions = new Set(options.requestOptions ?? DEFAULT_REQUEST_OPTIONS);
  const contextOf = options.requestContext;

  const startOptions = async (c: Context<ServerEnv>) => {
    const principal = c.get('principal');
    const agentId = c.req.param('agentId')!;
    access.mayStart(agentId, principal);
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
    if (runOptions.threadId) await access.mayJoinThread(runOptions.threadId, runOptions.resourceId, principal);
    return { agentId, prompt, options: runOptions };
  };

  app.post('/agents/:agentId/stream', async (c) => {
    const { agentId, prompt, options } = await startOptions(c);
    const stream = await client.stream(agentId, prompt, options);
    return streamFrom(client, stream.runId, { offset: stream.fromOffset, skip: 0 });
  });

  app.post('/agents/:agentId/generate', async (c) => {
    const { agentId, prompt, options } = await startOptions(c);
    // Read as a stream to its pause or end, so that the answer shows what the stream shows: a display
    // transform's form of a call, never the raw values that the library's own result keeps.
    const stream = await client.stream(agentId, prompt, options);
    const chunks = stream.fromOffset > 0 ? await client.readChunks(stream.runId, { toOffset: stream.fromOffset }) : [];
    for await (const chunk of stream) chunks.push(chunk);
    // As `generate`: a run that finished without the structured output it was asked for is a 422.
    const result = await withObject(await client.next(stream.runId));
    return c.json(shownResult(result, chunks));
  });

  app.get('/runs/:runId/stream', async (c) => {
    const runId = c.req.param('runId');
    // A reconnecting EventSource keeps its URL and adds Last-Event-ID: that wins over ?offset.
    const from = streamPosition(c.req.query('offset'), c.req.header('last-event-id'));
    if (typeof from === 'string') return c.json(errorBody('InvalidRequest', from), 400);
    const info = await access.readableRun(runId, c.get('principal')); // 404 or 403 before any stream starts
    if (info.closeTime && from.offset > 0) throw new StreamClosedError(runId, from.offset);
    return streamFrom(client, runId, from);
  });

  app.get('/agents/:agentId/suspended-runs', async (c) => {
    const agentId = checkInput('agentId', IdSchema, c.req.param('agentId'));
    const query = queryParams(c, 'GET /agents/:agentId/suspended-runs', WAITING_PARAMS);
    const { runs, nextPageToken } = await access.waitingPage(c, agentId, query);
    // Approvers who did not start the run see its calls as the stream shows them, never the raw values.
    const shown = runs
      .map(suspendedRun)
      .map((run) => ({ ...run, pendingToolCalls: run.pendingToolCalls.map(shownPending) }));
    return c.json({ runs: shown, ...(nextPageToken ? { nextPageToken } : {}) });
  });

  // The inbox's list: every call the caller may see waiting on a page of runs (newest first), as the
  // stream shows it.
  app.get('/inbox/calls', async (c) => {
    const query = queryParams(c, 'GET /inbox/calls', ['agentId', ...WAITING_PARAMS]);
    const agentId = checkInput('agentId', IdSchema.optional(), query.agentId);
    const principal = c.get('principal');
    const { runs, nextPageToken } = await access.waitingPage(c, agentId, query);
    const who = principal ? { id: principal.id, name: principal.name, tenant: principal.tenant } : null;
    return c.json({
      principal: who,
      calls: inboxEntries(runs, principal),
      ...(nextPageToken ? { nextPageToken } : {}),
    });
  });

  // The inbox's other list: runs whose model step is being retried because its provider fails.
  app.get('/inbox/retrying', async (c) => {
    const agentId = checkInput('agentId', IdSchema.optional(), c.req.query('agentId') || undefined);
    const { runs, skipped, capped } = await access.retryingRuns(c, agentId);
    return c.json({ runs: runs.map(inboxRetrying), skipped, capped });
  });

  // One run's status, waiting calls (as the stream shows them) and decision trail.
  app.get('/runs/:runId', async (c) => {
    const info = await access.readableRun(c.req.param('runId'), c.get('principal'));
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

  // Read as the trail is: who may read the run may read its receipts.
  app.get('/runs/:runId/receipts', async (c) => {
    const info = await access.readableRun(c.req.param('runId'), c.get('principal'));
    const receipts = await client.receipts({ runId: info.runId });
    const lines = receipts.map((receipt) => `${receiptLine(receipt)}\n`).join('');
    return c.body(lines, 200, { 'content-type': 'application/x-ndjson' });
  });
}
