/**
 * The HTTP API as an OpenAPI 3.1 document, served at `GET /openapi.json`: the request bodies are the
 * routes' own zod schemas (the ones `jsonBody` checks requests against) turned into JSON Schema by zod,
 * so the document cannot describe a body the server would refuse. A test checks that every route the
 * app serves is in {@link API_ROUTES} and the other way round.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import {
  BatchDecisionBodySchema,
  GrantBodySchema,
  DecisionBodySchema,
  RunMessageBodySchema,
  StartBodySchema,
  ThreadApprovalBodySchema,
} from './requests.js';

/** One route of the API, as the document lists it. */
export interface ApiRoute {
  method: 'get' | 'post' | 'delete';
  /** Hono's form (`/runs/:runId`). */
  path: string;
  summary: string;
  /** The body it takes, checked by the route with this schema. */
  body?: z.ZodType;
  /** Query parameters by name: what each means. */
  query?: Record<string, string>;
  /** What a success answers. */
  answers: 'json' | 'sse' | 'html' | 'asset' | 'ndjson';
}

const decision = (kind: string, what: string): ApiRoute => ({
  method: 'post',
  path: `/runs/:runId/${kind}`,
  summary: `${what}; answers with the run's stream from there (SSE). 409 AlreadyDecided when another decision won.`,
  body: DecisionBodySchema,
  answers: 'sse',
});

/** Every route `createServerApp` serves (the codec endpoint, a separate app, has its own). */
export const API_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/session', summary: 'Who the request authenticates as.', answers: 'json' },
  { method: 'get', path: '/openapi.json', summary: 'This document.', answers: 'json' },
  {
    method: 'post',
    path: '/agents/:agentId/stream',
    summary: 'Start a run and stream it as a UI message stream (the run id is in the x-run-id header).',
    body: StartBodySchema,
    answers: 'sse',
  },
  {
    method: 'post',
    path: '/agents/:agentId/generate',
    summary: 'Start a run and answer with its result at its first pause or end, as the stream shows it.',
    body: StartBodySchema,
    answers: 'json',
  },
  {
    method: 'get',
    path: '/runs/:runId/stream',
    summary: "A run's stream from an offset (or Last-Event-ID) to its next pause or end.",
    query: { offset: 'the stream offset to read from (default 0)' },
    answers: 'sse',
  },
  {
    method: 'get',
    path: '/agents/:agentId/suspended-runs',
    summary: "A page of the agent's runs waiting on a decision that the caller may see, and the next page's token.",
    query: {
      threadId: 'only this thread',
      resourceId: 'default: the caller’s tenant',
      pageSize: 'runs a page, 1-1000 (default 100)',
      pageToken: 'the nextPageToken of the page before (same filter)',
    },
    answers: 'json',
  },
  {
    method: 'get',
    path: '/inbox/calls',
    summary:
      'The waiting calls the caller may see on a page of waiting runs, for the inbox, and the next page’s token.',
    query: {
      agentId: 'only this agent',
      threadId: 'only this thread',
      resourceId: 'default: the caller’s tenant',
      pageSize: 'runs a page, 1-1000 (default 100)',
      pageToken: 'the nextPageToken of the page before (same filter)',
    },
    answers: 'json',
  },
  {
    method: 'get',
    path: '/inbox/retrying',
    summary:
      'The runs the caller may read whose model step is being retried because its provider fails ' +
      '(of the first 200 running runs in scope).',
    query: { agentId: 'only this agent', threadId: 'only this thread', resourceId: 'default: the caller’s tenant' },
    answers: 'json',
  },
  {
    method: 'get',
    path: '/runs/:runId',
    summary: "A run's state, as its display transforms show it.",
    answers: 'json',
  },
  {
    method: 'get',
    path: '/runs/:runId/receipts',
    summary: "A run's receipts: the hash chain of its decisions, one JSON object a line (agentctl audit verify).",
    answers: 'ndjson',
  },
  {
    method: 'get',
    path: '/threads',
    summary: "A resource's threads.",
    query: { resourceId: 'default: the caller’s tenant' },
    answers: 'json',
  },
  { method: 'get', path: '/threads/:threadId/messages', summary: "A thread's recent messages.", answers: 'json' },
  { method: 'get', path: '/threads/:threadId/working-memory', summary: "A thread's working memory.", answers: 'json' },
  { method: 'get', path: '/threads/:threadId/tasks', summary: "A thread's task list.", answers: 'json' },
  {
    method: 'post',
    path: '/threads/:threadId/tool-approval',
    summary: "Approve or decline the call a run of the thread waits on (Mastra's sendToolApproval).",
    body: ThreadApprovalBodySchema,
    answers: 'sse',
  },
  decision('approve', 'Approve a waiting call (named by its fingerprint)'),
  decision('decline', 'Decline a waiting call'),
  decision('resume', 'Resume a suspended call with resume data'),
  decision('tool-result', "Submit a client tool's result"),
  decision('resolve', 'Resolve a call whose side effect is uncertain: retry, skip or fail'),
  {
    method: 'post',
    path: '/batch-decisions',
    summary:
      'Approve or decline every waiting call of a tool whose arguments meet the conditions, each checked as if ' +
      'decided alone, in the caller’s name; with dryRun, only say what would be decided and what refused.',
    body: BatchDecisionBodySchema,
    answers: 'json',
  },
  {
    method: 'post',
    path: '/runs/:runId/grants',
    summary:
      'A standing grant from a call of the run, in the caller’s name (201): later calls of its tool in its scope ' +
      'whose arguments meet its conditions run without waiting, while the caller could approve them.',
    body: GrantBodySchema,
    answers: 'json',
  },
  {
    method: 'get',
    path: '/agents/:agentId/grants',
    summary: "An agent's grants on a resource that the caller made or may decide.",
    query: { resourceId: 'default: the caller’s tenant' },
    answers: 'json',
  },
  {
    method: 'delete',
    path: '/agents/:agentId/grants/:grantId',
    summary: 'Revoke a grant: it approves nothing from then on.',
    query: { resourceId: 'default: the caller’s tenant' },
    answers: 'json',
  },
  {
    method: 'delete',
    path: '/grants',
    summary:
      'Revoke every live grant one principal made (a leaver’s), in the grant books of the caller’s tenant: ' +
      '{ revoked, refused (a count), failed (books that did not answer), books }.',
    query: {
      createdBy: 'the id of the principal who made them (required)',
      agentId: 'only this agent’s books',
      resourceId: 'default: the caller’s tenant',
    },
    answers: 'json',
  },
  {
    method: 'post',
    path: '/runs/:runId/messages',
    summary: 'A message for a run while it works, shown to its model at the next step (202), or refused (409).',
    body: RunMessageBodySchema,
    answers: 'json',
  },
  { method: 'get', path: '/inbox', summary: 'The approval inbox page.', answers: 'html' },
  { method: 'get', path: '/inbox/inbox.js', summary: "The inbox page's script.", answers: 'asset' },
  { method: 'get', path: '/inbox/batch.js', summary: "The inbox page's batch form.", answers: 'asset' },
  { method: 'get', path: '/inbox/inbox.css', summary: "The inbox page's styles.", answers: 'asset' },
  { method: 'get', path: '/chat', summary: 'The chat page.', answers: 'html' },
  { method: 'get', path: '/chat/chat.css', summary: "The chat page's styles.", answers: 'asset' },
  { method: 'get', path: '/chat/chat.js', summary: "The chat page's script.", answers: 'asset' },
];

const ErrorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { type: { type: 'string' }, message: { type: 'string' } },
      required: ['type', 'message'],
    },
  },
  required: ['error'],
};

const CONTENT: Record<ApiRoute['answers'], string> = {
  json: 'application/json',
  sse: 'text/event-stream',
  html: 'text/html',
  asset: 'text/plain',
  ndjson: 'application/x-ndjson',
};

/** The OpenAPI 3.1 document of the routes. */
export function openApiDocument(): Record<string, unknown> {
  // src/server and lib/server alike sit two folders below the package's manifest.
  const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of API_ROUTES) {
    const params = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name!);
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method] = {
      summary: route.summary,
      parameters: [
        ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...Object.entries(route.query ?? {}).map(([name, description]) => ({
          name,
          in: 'query',
          description,
          schema: { type: 'string' },
        })),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) },
              },
            },
          }
        : {}),
      responses: {
        200: { description: 'Success', content: { [CONTENT[route.answers]]: {} } },
        default: {
          description: 'A refusal: its type and a one-line reason (docs/reference/errors.md)',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'durable-agents HTTP API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
