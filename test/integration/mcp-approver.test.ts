/**
 * The approver over MCP, driven by the official MCP SDK's client: over Streamable HTTP, behind the HTTP
 * server's bearer tokens, and over stdio from `agentctl mcp`. Each principal sees and decides exactly what
 * the HTTP routes let it: another tenant finds no run, a principal outside the tool's rule and the run's
 * own starter are refused, a stale fingerprint decides nothing; the run keeps waiting after each refusal.
 */
import type { ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/index.js';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { bankAgent, people, transferScript, transferTool } from '../fixtures/bank.js';
import { defineAgent } from '../../src/index.js';
import { historyEventTypes, startWorker, temporalAddress, type TestWorker } from '../helpers.js';

type Person = keyof typeof people;

/** The bank's transfers, which its approvers may also allow in advance. */
const grantsBank = defineAgent({
  id: 'mcp-grants-bank',
  name: 'Bank with grants',
  model: 'scripted',
  tools: { transfer: transferTool },
  access: { decide: ['role:approver'], grants: { tools: ['transfer'] } },
});

let w: TestWorker;
let server: ServerType;
let base: string;
beforeAll(async () => {
  w = await startWorker([bankAgent, toolboxAgent, grantsBank]);
  const tokens = Object.fromEntries(Object.values(people).map((p) => [p.token, p.principal]));
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens(tokens),
    agents: [bankAgent, grantsBank],
    mcpApprover: true,
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

/** An MCP client over Streamable HTTP, signed in as `who`. */
async function mcpAs(who: Person): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${people[who].token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A tool's answer: its JSON, or its error text. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
  };
  const text = result.content[0]!.text;
  return result.isError ? { error: text } : (JSON.parse(text) as Record<string, unknown>);
}

/** A transfer run of tenant acme, started by `who` (Tina), waiting for approval. */
async function pausedTransfer(who: Person = 'tina'): Promise<RunResult> {
  const paused = await w.client.generate('bank-agent', 'send 10 to bob', {
    model: 'scripted',
    script: transferScript(10),
    resourceId: 'acme',
    principal: people[who].principal,
  } as never);
  expect(paused.finishReason).toBe('suspended');
  return paused;
}

async function stillWaiting(runId: string): Promise<void> {
  const info = await w.client.getRun(runId);
  expect(info.status).toBe('suspended');
  expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
}

describe('the approver over Streamable HTTP', () => {
  it('lists what the principal may see, and approves in its name with the HTTP routes’ rules', async () => {
    const paused = await pausedTransfer();
    const { runId } = paused;
    const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
    const ann = await mcpAs('ann');
    const tools = await ann.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      'approve_call',
      'decline_call',
      'list_grants',
      'list_waiting_calls',
      'resume_call',
      'revoke_grant',
      'revoke_grants_made_by',
    ]);
    const listed = (await call(ann, 'list_waiting_calls', { agentId: 'bank-agent' })) as {
      calls: Array<{ runId: string; mayDecide: boolean; call: { fingerprint: string } }>;
    };
    expect(listed.calls.find((c) => c.runId === runId)).toMatchObject({ mayDecide: true, call: { fingerprint } });

    // Another tenant sees nothing of it and finds no run.
    const bert = await mcpAs('bert');
    const bertList = (await call(bert, 'list_waiting_calls', {})) as { calls: Array<{ runId: string }> };
    expect(bertList.calls.map((c) => c.runId)).not.toContain(runId);
    const target = { runId, toolCallId, fingerprint };
    expect(await call(bert, 'approve_call', target)).toEqual({ error: expect.stringMatching(/^RunNotFoundError: /) });
    // Principals of the tenant: one the agent's read rule keeps out, one outside the tool's rule, and the
    // run's own starter, who may approve others' runs only: refused.
    expect(await call(await mcpAs('nora'), 'approve_call', target)).toEqual({
      error: `AccessDenied: Access denied: you may not read run "${runId}"`,
    });
    expect(await call(await mcpAs('tina'), 'approve_call', target)).toEqual({
      error: expect.stringMatching(/^NotAllowed: .*"tina" may not decide tool call .*allowed: role:approver$/),
    });
    const own = await pausedTransfer('sam');
    const ownCall = own.pendingToolCalls[0]!;
    const ownTarget = { runId: own.runId, toolCallId: ownCall.toolCallId, fingerprint: ownCall.fingerprint };
    expect(await call(await mcpAs('sam'), 'approve_call', ownTarget)).toEqual({
      error: expect.stringMatching(/^SelfApproval: /),
    });
    await stillWaiting(own.runId);
    // A key the tool does not take is refused, not dropped: a principal of one's choosing, changed arguments.
    for (const extra of [{ principal: { id: 'ann' } }, { args: { to: 'eve', amount: 10_000 } }]) {
      expect(await call(bert, 'approve_call', { ...target, ...extra })).toEqual({
        error: expect.stringMatching(/Unrecognized key/),
      });
    }
    // A fingerprint of another call decides nothing.
    expect(await call(ann, 'approve_call', { ...target, fingerprint: 'f'.repeat(64) })).toEqual({
      error: expect.stringMatching(/^FingerprintMismatch: /),
    });
    await stillWaiting(runId);

    expect(await call(ann, 'approve_call', target)).toMatchObject({ status: 'accepted', kind: 'approve' });
    const done = await w.client.result(runId);
    expect(done.toolResults[0]).toMatchObject({ isError: false });
    expect(done.decisions).toEqual([
      expect.objectContaining({ kind: 'approve', principal: expect.objectContaining({ id: 'ann' }) }),
    ]);
    for (const client of [ann, bert]) await client.close();
  });

  it('declines with the reason the model reads, and answers nobody without a token', async () => {
    const paused = await pausedTransfer();
    const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
    const ann = await mcpAs('ann');
    const declined = await call(ann, 'decline_call', { runId: paused.runId, toolCallId, fingerprint, reason: 'no' });
    expect(declined).toMatchObject({ status: 'accepted', kind: 'decline' });
    expect((await w.client.result(paused.runId)).decisions).toEqual([
      expect.objectContaining({ kind: 'decline', reason: 'no' }),
    ]);
    await ann.close();
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('standing grants over MCP', () => {
  it('lists the grants a principal made or may decide, and revokes them, in its tenant only', async () => {
    const paused = await w.client.generate('mcp-grants-bank', 'send 10 to bob', {
      model: 'scripted',
      script: transferScript(10),
      resourceId: 'acme',
      principal: people.tina.principal,
    } as never);
    const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
    const grant = await w.client.grants.create({
      runId: paused.runId,
      toolCallId,
      fingerprint,
      scope: 'run',
      where: ['amount<=50'],
      principal: people.ann.principal,
    });
    const ann = await mcpAs('ann');
    const listed = (await call(ann, 'list_grants', { agentId: 'mcp-grants-bank' })) as {
      grants: Array<{ grantId: string }>;
    };
    expect(listed.grants.map((g) => g.grantId)).toEqual([grant.grantId]);
    // Nora (no approver) sees none and revokes nothing; Bert, of another tenant, reaches no book of acme's.
    expect(await call(await mcpAs('nora'), 'list_grants', { agentId: 'mcp-grants-bank' })).toEqual({ grants: [] });
    expect(
      await call(await mcpAs('nora'), 'revoke_grant', { agentId: 'mcp-grants-bank', grantId: grant.grantId }),
    ).toEqual({
      error: expect.stringMatching(/^AccessDenied: .*may not revoke grant/),
    });
    const bert = await call(await mcpAs('bert'), 'list_grants', { agentId: 'mcp-grants-bank', resourceId: 'acme' });
    expect(bert).toEqual({ error: expect.stringMatching(/^InvalidInputError: .*another tenant/) });
    // A key the tool does not take is refused, never dropped.
    expect(
      await call(ann, 'revoke_grant', { agentId: 'mcp-grants-bank', grantId: grant.grantId, everyone: true }),
    ).toMatchObject({
      error: expect.stringMatching(/everyone/),
    });
    expect(await call(ann, 'revoke_grant', { agentId: 'mcp-grants-bank', grantId: grant.grantId })).toMatchObject({
      grantId: grant.grantId,
      revoked: { by: { id: 'ann' } },
    });
    // A leaver's grants, all at once: Nora is refused each, Ann revokes her own.
    const again = await w.client.grants.create({
      runId: paused.runId,
      toolCallId,
      fingerprint,
      scope: 'run',
      where: ['amount<=20'],
      principal: people.ann.principal,
    });
    const madeBy = { createdBy: 'ann', agentId: 'mcp-grants-bank' };
    expect(await call(await mcpAs('nora'), 'revoke_grants_made_by', madeBy)).toMatchObject({
      revoked: [],
      refused: 1,
      failed: [],
    });
    expect(await call(ann, 'revoke_grants_made_by', madeBy)).toMatchObject({
      revoked: [{ grantId: again.grantId, revoked: { by: { id: 'ann' } } }],
      refused: 0,
      failed: [],
    });
    await w.client.decide({ kind: 'decline', runId: paused.runId, fingerprint, principal: people.ann.principal });
  });
});

describe('the approver over stdio (agentctl mcp)', () => {
  it('lists and approves as the operator agentctl acts as', async () => {
    const paused = await w.client.generate('toolbox-agent', 'go', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'guarded', args: { target: 'stdio' } }] }, { text: 'Done.' }],
    });
    const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/agentctl.js', '--address', temporalAddress(), '--namespace', 'default', '--as', 'ops-1', 'mcp'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const listed = (await call(client, 'list_waiting_calls', { agentId: 'toolbox-agent' })) as {
        calls: Array<{ runId: string; mayDecide: boolean }>;
      };
      expect(listed.calls.find((c) => c.runId === paused.runId)).toMatchObject({ mayDecide: true });
      const approved = await call(client, 'approve_call', { runId: paused.runId, toolCallId, fingerprint });
      expect(approved).toMatchObject({ status: 'accepted' });
      const done = await w.client.result(paused.runId);
      expect(done.decisions).toEqual([
        expect.objectContaining({ kind: 'approve', principal: expect.objectContaining({ id: 'ops-1' }) }),
      ]);
    } finally {
      await client.close();
    }
  });
});
