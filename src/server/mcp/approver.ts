/**
 * The approver over MCP: an MCP server (the official `@modelcontextprotocol/sdk`) whose tools list the
 * waiting calls a principal may see and approve, decline or resume them, each through the client's one
 * decide path, with the same binding (the call's fingerprint) and rules as every other surface. Any MCP
 * client (an editor, a desktop assistant) becomes an approval surface. Served over Streamable HTTP by the
 * HTTP server (`/mcp`, its authentication) and over stdio by `agentctl mcp` (the operator's identity).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { confinedTenant, tenantCheck } from '../../approvals/access.js';
import type { AgentClient } from '../../client/agent-client.js';
import type { DecisionRequest } from '../../client/decisions/decide.js';
import { failureOf } from '../../client/failures.js';
import { AccessDeniedError, decisionRefused, RunNotFoundError } from '../../errors.js';
import { verdictIn, type RunInfo } from '../../client/runs/runs.js';
import type { Principal } from '../../schemas/access.js';
import type { DecisionRecord } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import { boundedJson, IdSchema, MAX_QUALIFIED_ID, MAX_RUN_REF, MAX_TEXT } from '../../schemas/limits.js';
import { inboxEntries } from '../inbox.js';

/** Who the MCP server acts for, and which runs that principal may read. */
export interface ApproverContext {
  client: AgentClient;
  principal: Principal | undefined;
  mayRead: (run: RunInfo) => boolean;
}

/** How long a decision's tool waits for the run's verdict before it answers that the decision was sent. */
const VERDICT_WAIT_MS = 10_000;

/** The most waiting calls `list_waiting_calls` answers with (the newest); it says when there were more. */
export const MAX_LISTED_CALLS = 200;

const target = {
  runId: z.string().min(1).max(MAX_RUN_REF).describe('the run, as list_waiting_calls gives it'),
  toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID).describe('the waiting call'),
  fingerprint: z
    .string()
    .min(1)
    .max(128)
    .describe('the call’s fingerprint, as listed: the decision holds only for exactly that call'),
};

/** The MCP server of one principal: its tools, each checked as the HTTP routes check a request. */
export async function approverMcpServer(ctx: ApproverContext): Promise<McpServer> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: 'durable-agents-approver', version: '1' });
  server.registerTool(
    'list_waiting_calls',
    {
      description:
        'Lists the tool calls that wait for a decision and that you may see, newest first: each with its run, ' +
        'arguments (as the agent displays them), the tool’s preview where it makes one (the fingerprint covers it), ' +
        'fingerprint, and whether you may decide it (and if not, why).',
      // Strict, as every input here: a key the tool does not take (a `principal`, changed `args`) is refused.
      inputSchema: z.object({ agentId: IdSchema.optional(), threadId: IdSchema.optional() }).strict(),
      annotations: { readOnlyHint: true },
    },
    async ({ agentId, threadId }) => answer(() => waitingCalls(ctx, agentId, threadId)),
  );
  const decision = (kind: 'approve' | 'decline' | 'resume', description: string, extra: z.ZodRawShape) =>
    server.registerTool(
      `${kind}_call`,
      {
        description,
        inputSchema: z.object({ ...target, ...extra }).strict(),
        annotations: { destructiveHint: kind === 'approve' },
      },
      async (input) => answer(() => decide(ctx, { kind, ...(input as Omit<McpDecision, 'kind'>) })),
    );
  decision('approve', 'Approves a waiting call: the tool runs with the arguments listed.', {});
  decision('decline', 'Declines a waiting call: the tool does not run, and the model is told (with the reason).', {
    reason: z.string().max(MAX_TEXT).optional().describe('why: the model reads it'),
  });
  decision('resume', 'Resumes a suspended call with the data its resume schema asks for.', {
    resumeData: boundedJson().describe('the data, fitting the call’s resumeSchema'),
  });
  // Standing grants, as the client lists and revokes them: the principal's tenant, what it made or may decide.
  const book = {
    agentId: IdSchema.describe('the agent whose grants'),
    resourceId: IdSchema.optional().describe('the resource (tenant); default: yours'),
  };
  const bookOf = (agentId: string, resourceId: string | undefined) => {
    const resource = resourceId ?? confinedTenant(ctx.principal);
    return {
      agentId,
      ...(resource ? { resourceId: resource } : {}),
      ...(ctx.principal ? { principal: ctx.principal } : {}),
    };
  };
  server.registerTool(
    'list_grants',
    {
      description:
        "Lists an agent's standing grants that you made or may decide: the tool and conditions each covers, " +
        'its scope, until when, how often used, and whether revoked.',
      inputSchema: z.object(book).strict(),
      annotations: { readOnlyHint: true },
    },
    async ({ agentId, resourceId }) =>
      answer(async () => ({ grants: await ctx.client.grants.list(bookOf(agentId, resourceId)) })),
  );
  server.registerTool(
    'revoke_grant',
    {
      description: 'Revokes a standing grant you made or may decide: it approves nothing from then on.',
      inputSchema: z.object({ ...book, grantId: IdSchema.describe('the grant, as list_grants gives it') }).strict(),
    },
    async ({ agentId, resourceId, grantId }) =>
      answer(async () => ({ ...(await ctx.client.grants.revoke({ ...bookOf(agentId, resourceId), grantId })) })),
  );
  server.registerTool(
    'revoke_grants_made_by',
    {
      description:
        'Revokes every live standing grant one principal made (someone who left, or lost a role) in the books ' +
        'of your tenant; says how many you may not revoke, and which books did not answer.',
      inputSchema: z
        .object({
          createdBy: IdSchema.describe('the principal who made them'),
          agentId: IdSchema.optional().describe("only this agent's books (default: every agent's)"),
          resourceId: IdSchema.optional().describe("only this resource's book (default: your tenant's)"),
        })
        .strict(),
    },
    // The client keeps a principal of a tenant to its own books (and refuses another tenant's resource).
    async ({ createdBy, agentId, resourceId }) =>
      answer(async () => ({
        ...(await ctx.client.grants.revokeMadeBy({
          createdBy,
          ...(agentId ? { agentId } : {}),
          ...(resourceId ? { resourceId } : {}),
          ...(ctx.principal ? { principal: ctx.principal } : {}),
        })),
      })),
  );
  return server;
}

async function waitingCalls(ctx: ApproverContext, agentId: string | undefined, threadId: string | undefined) {
  const { client, principal, mayRead } = ctx;
  const resourceId = confinedTenant(principal);
  const filter = { status: 'suspended' as const, agentId, threadId, resourceId, limit: Number.POSITIVE_INFINITY };
  const runs = (await client.listRuns(filter)).filter(mayRead);
  const entries = inboxEntries(runs, principal);
  return {
    calls: entries.slice(0, MAX_LISTED_CALLS).map(({ trail: _trail, ...entry }) => entry),
    more: Math.max(0, entries.length - MAX_LISTED_CALLS),
  };
}

/** A decision as the tools take it: always on a named call of a named run, bound to its fingerprint. */
interface McpDecision {
  kind: 'approve' | 'decline' | 'resume';
  runId: string;
  toolCallId: string;
  fingerprint: string;
  reason?: string;
  resumeData?: JsonValue;
}

/** Checked and sent in the principal's name; the run's verdict, once it has taken it (at most 10 s). */
async function decide(ctx: ApproverContext, request: McpDecision) {
  const { client, principal, mayRead } = ctx;
  // Another tenant's run is not found, one the principal may not read is refused, before anything is sent.
  const run = await client.getRun(request.runId);
  if (!tenantCheck(principal, run.resourceId).allowed) throw new RunNotFoundError(run.runId, client.namespace);
  if (!mayRead(run)) throw new AccessDeniedError(`you may not read run "${run.runId}"`);
  const decision = { ...request, ...(principal ? { principal } : {}) } as DecisionRequest;
  const sent = await client.decide(decision, { then: 'sent' });
  const deadline = Date.now() + VERDICT_WAIT_MS;
  let verdict: DecisionRecord | undefined;
  while (!(verdict = verdictIn(await client.getRun(sent.runId), sent.decisionId)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!verdict)
    return { decisionId: sent.decisionId, status: 'sent', note: 'no worker has taken it yet; it stays queued' };
  if (!verdict.accepted) throw decisionRefused(sent.runId, verdict.refusal!.type, verdict.refusal!.message);
  // One approval of several a call needs is accepted, and the call waits on: the count says so.
  const counted = verdict.quorum ? { quorum: verdict.quorum, waitsOn: verdict.quorum.count < verdict.quorum.of } : {};
  return {
    decisionId: sent.decisionId,
    status: 'accepted',
    kind: verdict.kind,
    toolCallId: verdict.toolCallId,
    ...counted,
  };
}

/**
 * A tool's answer: the value as JSON text and structured content, or, for a refusal or failure, an error
 * result with its type and one-line reason (never a protocol error: the client shows it to its user).
 */
async function answer(run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const value = await run();
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (err) {
    const failure = failureOf(err);
    if (!failure.expected) {
      const id = crypto.randomUUID();
      console.error(`mcp approver: unexpected error ${id}`, err);
      return { isError: true, content: [{ type: 'text', text: `InternalError: internal error ${id}; see the log` }] };
    }
    return { isError: true, content: [{ type: 'text', text: `${failure.type}: ${failure.message}` }] };
  }
}
