/**
 * Threads are their users' over HTTP: within one tenant, a user neither lists, reads nor posts to
 * another's thread, and so cannot answer the question their run waits on; the agents' read rules still
 * let their readers in. `threadPrivacy: 'tenant'` shares threads within the tenant again, and even then
 * a message answers only a call its sender may decide, at the server and in the run.
 */
import type { ServerType } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, type RunResult, type ScriptStep } from '../../src/index.js';
import { type ThreadInfo } from '../../src/client/index.js';
import { createServerApp, bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { autoResumeUpdate } from '../../src/protocol/run-messages.js';
import { askTool } from '../fixtures/agents.js';
import { bankAgent, people as bankPeople, transferScript } from '../fixtures/bank.js';
import { historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

/** No access rules: any principal of the tenant may start, read and decide its runs. */
const chatAgent = defineAgent({
  id: 'private-chat',
  name: 'Chat',
  instructions: 'You book tables.',
  model: 'scripted',
  tools: { ask: askTool },
  defaultOptions: { autoResumeSuspendedTools: true },
});
/** Anyone reads its runs; only tellers decide their calls. */
const deskAgent = defineAgent({ ...chatAgent, id: 'teller-desk', access: { decide: ['role:teller'] } });

/** The bank's people, in a tenant of this file's own: other files list the bank's tenant's threads. */
const tenant = `privacy-${randomUUID()}`;
const people = Object.fromEntries(
  Object.entries(bankPeople).map(([name, { token, principal }]) => [
    name,
    { token: `${token}-privacy`, principal: { ...principal, tenant } },
  ]),
) as typeof bankPeople;
type Person = keyof typeof people;
let w: TestWorker;
const servers: ServerType[] = [];
let userBase: string;
let tenantBase: string;

beforeAll(async () => {
  w = await startWorker([chatAgent, deskAgent, bankAgent]);
  const tokens = Object.fromEntries(Object.values(people).map((p) => [p.token, p.principal]));
  const serve = async (threadPrivacy?: 'tenant') => {
    const server = await startServer(w.client, {
      port: 0,
      authenticate: bearerTokens(tokens),
      agents: [chatAgent, deskAgent, bankAgent],
      requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
      ...(threadPrivacy ? { threadPrivacy } : {}),
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  userBase = await serve();
  tenantBase = await serve('tenant');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await w?.stop();
});

function get(base: string, path: string, who: Person) {
  return fetch(`${base}${path}`, { headers: { authorization: `Bearer ${people[who].token}` } });
}

async function generate(base: string, who: Person, agent: string, prompt: string, options: Record<string, unknown>) {
  const res = await fetch(`${base}/agents/${agent}/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${people[who].token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, options }),
  });
  return { status: res.status, text: await res.text() };
}

const extracted = (resumeData: unknown): ScriptStep[] => [{ text: JSON.stringify({ resumeData, missing: null }) }];
const askFor = (question: string): ScriptStep => ({ toolCalls: [{ toolName: 'ask', args: { question } }] });

/** Tina's run on a new thread of `agent`, waiting on her question. */
async function tinaWaits(agent: string): Promise<{ threadId: string; run: RunResult }> {
  const threadId = `private-${randomUUID()}`;
  const res = await generate(userBase, 'tina', agent, 'Book a table. My card is 4111-SECRET.', {
    threadId,
    script: [askFor('For how many?'), { text: 'Booked for 4.' }],
  });
  expect(res.status).toBe(200);
  const run = JSON.parse(res.text) as RunResult;
  expect(run.finishReason).toBe('suspended');
  return { threadId, run };
}

async function errorOf(res: { status: number; text: string }) {
  return { status: res.status, ...(JSON.parse(res.text) as { error: { type: string; message: string } }).error };
}

describe("threads are their users' (threadPrivacy 'user', the default)", () => {
  it("keeps another user of the tenant from listing, reading or posting to a user's thread", async () => {
    const threadId = `private-${randomUUID()}`;
    const first = await generate(userBase, 'tina', 'private-chat', 'My card is 4111-SECRET.', {
      threadId,
      script: [{ text: 'Noted, tina.' }],
    });
    expect(first.status).toBe(200);

    const listed = (await (await get(userBase, '/threads', 'nora')).json()) as { threads: ThreadInfo[] };
    expect(listed.threads.map((t) => t.threadId)).not.toContain(threadId);
    for (const path of ['messages', 'working-memory', 'tasks']) {
      const res = await get(userBase, `/threads/${threadId}/${path}`, 'nora');
      const text = await res.text();
      expect(res.status).toBe(403);
      expect(text).not.toMatch(/SECRET|Noted/);
      expect(JSON.parse(text)).toEqual({
        error: {
          type: 'AccessDenied',
          message:
            `Access denied: you may not read thread "${threadId}": it is another user's (this server keeps each ` +
            "thread to the user who started it: threadPrivacy 'user')",
        },
      });
    }
    const posted = await generate(userBase, 'nora', 'private-chat', 'What is the card?', {
      threadId,
      script: [{ text: 'x' }],
    });
    expect(await errorOf(posted)).toMatchObject({ status: 403, type: 'AccessDenied' });
    expect(posted.text).not.toMatch(/SECRET|Noted/);
    expect((await w.client.getThreadMessages({ threadId, resourceId: tenant })).turnCount).toBe(1);

    // The owner lists, reads and goes on.
    const own = (await (await get(userBase, '/threads', 'tina')).json()) as { threads: ThreadInfo[] };
    expect(own.threads.find((t) => t.threadId === threadId)).toMatchObject({ owner: 'tina' });
    const read = await get(userBase, `/threads/${threadId}/messages`, 'tina');
    expect(read.status).toBe(200);
    expect(await read.text()).toContain('Noted, tina.');
    const again = await generate(userBase, 'tina', 'private-chat', 'Thanks.', { threadId, script: [{ text: 'Bye.' }] });
    expect(again.status).toBe(200);
    expect((await w.client.getThreadMessages({ threadId, resourceId: tenant })).turnCount).toBe(2);
  });

  it("lets in those the agents' read rules admit", async () => {
    const threadId = `bank-${randomUUID()}`;
    const res = await generate(userBase, 'tina', 'bank-agent', 'send 5 to bob', {
      threadId,
      script: transferScript(5),
    });
    expect(res.status).toBe(200);
    // The bank agent's runs are read by its approvers: ann reads tina's thread, nora does not.
    expect((await get(userBase, `/threads/${threadId}/messages`, 'ann')).status).toBe(200);
    expect((await get(userBase, `/threads/${threadId}/messages`, 'nora')).status).toBe(403);
  });

  it("does not let another user's message answer the question a user's run waits on", async () => {
    const { threadId, run } = await tinaWaits('private-chat');
    const nora = await generate(userBase, 'nora', 'private-chat', 'Four of us', {
      threadId,
      script: extracted({ answer: '4' }),
    });
    expect(await errorOf(nora)).toMatchObject({ status: 403, type: 'AccessDenied' });
    const waiting = await w.client.getRun(run.runId);
    expect(waiting.status).toBe('suspended');
    expect(waiting.decisions).toEqual([]);
    // Tina's own message answers it.
    const tina = await generate(userBase, 'tina', 'private-chat', 'Four of us', {
      threadId,
      script: extracted({ answer: '4' }),
    });
    expect(tina.status).toBe(200);
    expect(JSON.parse(tina.text)).toMatchObject({ runId: run.runId, text: 'Booked for 4.' });
  });

  it('refuses a privacy setting it does not know', () => {
    expect(() => createServerApp(w.client, { threadPrivacy: 'everyone' as never })).toThrow(
      /threadPrivacy is "user" .* or "tenant" .*, not "everyone"/,
    );
  });
});

describe("threads shared within the tenant (threadPrivacy 'tenant')", () => {
  it("lists and reads the tenant's threads again", async () => {
    const threadId = `shared-${randomUUID()}`;
    await generate(tenantBase, 'tina', 'private-chat', 'Hello all.', { threadId, script: [{ text: 'Hi.' }] });
    const listed = (await (await get(tenantBase, '/threads', 'nora')).json()) as { threads: ThreadInfo[] };
    expect(listed.threads.map((t) => t.threadId)).toContain(threadId);
    expect((await get(tenantBase, `/threads/${threadId}/messages`, 'nora')).status).toBe(200);
  });

  it('answers a waiting call by message only for one who may decide it, at the server and in the run', async () => {
    const { threadId, run } = await tinaWaits('teller-desk');
    // Nora may read the thread, but not decide the teller desk's calls: her message is refused.
    const nora = await generate(tenantBase, 'nora', 'teller-desk', 'Four of us', {
      threadId,
      script: extracted({ answer: '4' }),
    });
    expect(await errorOf(nora)).toMatchObject({
      status: 403,
      type: 'NotAllowed',
      message: expect.stringContaining('a message may not answer this call'),
    });
    // Sent to the run directly, in her name: refused before the run accepts it, nothing recorded.
    const accepted = async () =>
      (await historyEventTypes(w.client, run.runId)).filter(
        (e) => e === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      ).length;
    const acceptedBefore = await accepted();
    const call = run.pendingToolCalls[0]!;
    const raw = await w.client.temporal.workflow
      .getHandle(run.runId)
      .executeUpdate(autoResumeUpdate, {
        args: [
          {
            decisionId: randomUUID(),
            toolCallId: call.toolCallId,
            message: 'Four of us',
            principal: people.nora.principal,
            script: extracted({ answer: '4' }),
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((raw as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'NotAllowed' });
    expect(await accepted()).toBe(acceptedBefore);
    expect(await historyEventTypes(w.client, run.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    const waiting = await w.client.getRun(run.runId);
    expect(waiting.status).toBe('suspended');
    expect(waiting.decisions).toEqual([]);
    expect(waiting.refusals.count).toBe(0);
    // Tina, a teller, answers by message.
    const tina = await generate(tenantBase, 'tina', 'teller-desk', 'Four of us', {
      threadId,
      script: extracted({ answer: '4' }),
    });
    expect(tina.status).toBe(200);
    expect(JSON.parse(tina.text)).toMatchObject({ runId: run.runId, text: 'Booked for 4.' });
  });
});
