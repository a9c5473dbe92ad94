/**
 * Threads over HTTP: a principal lists the threads of its tenant and reads their messages, with every
 * worker down; another tenant sees none of them, and an agent's read policy holds for its threads.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { AgentClient, type ThreadInfo, type ThreadMessages } from '../../src/client/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { bankAgent, people, transferScript } from '../fixtures/bank.js';
import { startWorker, temporalAddress, waitFor } from '../helpers.js';

const chatAgent = defineAgent({ id: 'http-chat', name: 'Chat', model: 'scripted' });

let server: ServerType;
let base: string;
let client: AgentClient;

type Person = keyof typeof people;

function get(path: string, who: Person) {
  return fetch(`${base}${path}`, { headers: { authorization: `Bearer ${people[who].token}` } });
}

async function generate(who: Person, agent: string, prompt: string, options: Record<string, unknown>) {
  const res = await fetch(`${base}/agents/${agent}/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${people[who].token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, options }),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  const w = await startWorker([chatAgent, bankAgent]);
  client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue: w.taskQueue });
  const tokens = Object.fromEntries(Object.values(people).map((p) => [p.token, p.principal]));
  server = await startServer(client, {
    port: 0,
    authenticate: bearerTokens(tokens),
    agents: [chatAgent, bankAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await generate('tina', 'http-chat', 'hello', { threadId: 'chat-1', script: [{ text: 'hi tina' }] });
  await generate('tina', 'http-chat', 'again', { threadId: 'chat-1', script: [{ text: 'hi again' }] });
  await generate('tina', 'bank-agent', 'send 5 to bob', { threadId: 'bank-1', script: transferScript(5) });
  await waitFor('acme threads listed', async () => {
    const listed = await client.listThreads({ resourceId: 'acme' });
    return listed.length === 2 && listed.every((t) => t.messageCount >= 2) ? listed : undefined;
  });
  // Every read below is served with no worker up.
  await w.stop();
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await client?.close();
});

describe('threads over HTTP, with no worker up', () => {
  it("lists the caller's tenant's threads, and reads a thread's messages", async () => {
    const listed = await get('/threads', 'tina');
    expect(listed.status).toBe(200);
    const { threads } = (await listed.json()) as { threads: ThreadInfo[] };
    expect(threads.map((t) => t.threadId).sort()).toEqual(['bank-1', 'chat-1']);
    expect(threads.every((t) => t.resourceId === 'acme')).toBe(true);

    const res = await get('/threads/chat-1/messages', 'tina');
    expect(res.status).toBe(200);
    const thread = (await res.json()) as ThreadMessages;
    expect(thread.messages.map((m) => [m.role, JSON.stringify(m.content)])).toEqual([
      ['user', JSON.stringify('hello')],
      ['assistant', JSON.stringify([{ type: 'text', text: 'hi tina' }])],
      ['user', JSON.stringify('again')],
      ['assistant', JSON.stringify([{ type: 'text', text: 'hi again' }])],
    ]);
  });

  it('keeps tenants apart', async () => {
    const listed = (await (await get('/threads', 'bert')).json()) as { threads: ThreadInfo[] };
    expect(listed.threads).toEqual([]);
    const other = await get('/threads?resourceId=acme', 'bert');
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { type: string } }).error.type).toBe('AccessDenied');
    // Bert's own tenant has no such thread: he learns nothing of acme's.
    const read = await get('/threads/chat-1/messages', 'bert');
    expect(read.status).toBe(404);
    expect(((await read.json()) as { error: { type: string } }).error.type).toBe('ThreadNotFoundError');
  });

  it("holds an agent's read policy for the threads its runs took part in", async () => {
    // Tina's threads are hers (threadPrivacy 'user'; see http-thread-privacy.test.ts): Nora lists none.
    const listed = (await (await get('/threads', 'nora')).json()) as { threads: ThreadInfo[] };
    expect(listed.threads.map((t) => t.threadId)).toEqual([]);
    expect((await get('/threads/bank-1/messages', 'nora')).status).toBe(403);
    expect((await get('/threads/bank-1/messages', 'ann')).status).toBe(200);
  });

  it('refuses a run on a thread the caller may not read: its model would be shown the thread', async () => {
    const res = await fetch(`${base}/agents/http-chat/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${people.nora.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'what happened here?', options: { threadId: 'bank-1', script: [{ text: 'x' }] } }),
    });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: { type: string; message: string } };
    expect(error).toEqual({
      type: 'AccessDenied',
      message: 'Access denied: you may not start a run on thread "bank-1": it holds runs of agents you may not read',
    });
  });
});
