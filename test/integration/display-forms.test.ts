/**
 * Every HTTP answer shows a call as the run's stream showed it (issue 25, item 6). The probe found the
 * raw values a display transform hides (a full account number) in POST /generate's `messages` and in
 * GET /threads/:id/messages, which the inbox's conversation panel reads. Here the tool's display
 * transform masks the number; its transcript keeps it whole, since the model needs it.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent } from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import type { RunResult, Script } from '../../src/index.js';
import { startWorker, type TestWorker } from '../helpers.js';

const ACCOUNT = 'DE89370400440532013000';

const accountTool = createTool({
  id: 'account',
  description: 'The customer’s account',
  inputSchema: z.object({ iban: z.string() }),
  execute: async ({ iban }) => ({ iban, balance: 12 }),
  transform: {
    display: {
      input: (args) => ({ iban: `****${(args as { iban: string }).iban.slice(-4)}` }),
      output: (output) => ({ ...(output as object), iban: '[masked]' }),
    },
  },
});

const bankAgent = defineAgent({
  id: 'display-bank',
  name: 'Bank',
  instructions: 'You look accounts up.',
  model: 'scripted',
  tools: { account: accountTool },
});

const script: Script = [{ toolCalls: [{ toolName: 'account', args: { iban: ACCOUNT } }] }, { text: 'Balance: 12.' }];
const TOKEN = 'display-forms-token-0123456789';

let w: TestWorker;
let server: ServerType;
let base: string;

beforeAll(async () => {
  w = await startWorker([bankAgent]);
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ [TOKEN]: { id: 'ann' } }),
    agents: [bankAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

it('shows the display form in /generate’s answer and in the thread’s messages, never the raw values', async () => {
  const threadId = `display-${crypto.randomUUID()}`;
  const res = await fetch(`${base}/agents/display-bank/generate`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: 'my balance?', options: { script, threadId } }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).not.toContain(ACCOUNT);
  const answer = JSON.parse(text) as RunResult;
  expect(answer.text).toBe('Balance: 12.');
  expect(JSON.stringify(answer.messages)).toContain('****3000');

  const thread = await fetch(`${base}/threads/${threadId}/messages`, { headers });
  expect(thread.status).toBe(200);
  const shown = await thread.text();
  expect(shown).not.toContain(ACCOUNT);
  expect(shown).toContain('****3000');
  expect(shown).toContain('[masked]');

  // The application's own library keeps the transcript's values: it is theirs.
  const own = await w.client.getThreadMessages({ threadId });
  expect(JSON.stringify(own.messages)).toContain(ACCOUNT);
  expect(own.shown).toBeDefined();
});
