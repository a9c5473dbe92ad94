/**
 * The chat page in a real browser (headless Chromium, driven by playwright-core): a worker and the HTTP
 * server with a bearer token; Ada signs in, chats with an agent until it asks to approve a transfer,
 * approves in the chat, reloads while the answer streams and sees it go on with nothing lost or repeated,
 * then answers an `ask_user` question from its options, and declines a call with a reason. The model is
 * scripted by the prompt, and holds the answer half-written until the test has reloaded the page.
 *
 * `CHAT_SCREENSHOT=docs/chat.png npx vitest run test/e2e/chat.test.ts` also saves the README's picture.
 */
import type { ServerType } from '@hono/node-server';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askUserTool, createTool, defineAgent, type Script } from '../../src/index.js';
import { ScriptedLanguageModel } from '../../src/worker/index.js';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { startWorker, type TestWorker } from '../helpers.js';
import { chromiumPath } from './chromium.js';

/** Where the model holds its answer until the test lets it go on: a word of its own in the scripted text. */
const PAUSE = '⏸';
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

const TRANSFER_PROMPT = 'Send 5 euros to Bob';
const COLOUR_PROMPT = 'Pick a colour for me';
const DECLINED_PROMPT = 'Send 9000 euros to Trudy';
const ATTIC_PROMPT = 'Search the attic for my keys';
const CELLAR_MESSAGE = 'Also look in the cellar';
const FIRST_HALF = 'Sent 5 euros to Bob.';
const SECOND_HALF = 'The receipt is on its way, and Bob says thanks.';

/** What the model answers, by the prompt of the run (each message the person sends starts a run). */
const SCRIPTS: Record<string, Script> = {
  [TRANSFER_PROMPT]: [
    { toolCalls: [{ toolName: 'transfer', args: { to: 'Bob', amount: 5, account: 'DE44-SECRET' } }] },
    { text: `${FIRST_HALF} ${PAUSE} ${SECOND_HALF}` },
  ],
  [DECLINED_PROMPT]: [
    { toolCalls: [{ toolName: 'transfer', args: { to: 'Trudy', amount: 9000, account: 'X' } }] },
    { text: 'I did not send it.' },
  ],
  [ATTIC_PROMPT]: [{ toolCalls: [{ toolName: 'search', args: { room: 'attic' } }] }, { text: 'unused' }],
  // The run's second step, once the message sent while it searched is the last the person wrote.
  [CELLAR_MESSAGE]: [{ text: 'unused' }, { text: 'No keys in the attic, nor in the cellar.' }],
  [COLOUR_PROMPT]: [
    { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which colour?', options: ['red', 'green', 'blue'] } }] },
    { text: 'Green it is.' },
  ],
};

function lastUserText(prompt: LanguageModelV4Prompt): string {
  const user = prompt.filter((m) => m.role === 'user').at(-1);
  return (user?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The scripted model, its script chosen by the run's prompt; it stops at {@link PAUSE} until released. */
class ChatTestModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'chat-test';
  readonly modelId = 'chat-test';
  readonly supportedUrls = {};

  constructor(private readonly priorSteps: number) {}

  private scripted(options: LanguageModelV4CallOptions): ScriptedLanguageModel {
    const prompt = lastUserText(options.prompt);
    const script = SCRIPTS[prompt];
    if (!script) throw new Error(`chat.test.ts has no script for the prompt ${JSON.stringify(prompt)}`);
    return new ScriptedLanguageModel(script, this.priorSteps);
  }

  doGenerate(options: LanguageModelV4CallOptions) {
    return this.scripted(options).doGenerate(options);
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const { stream, ...rest } = await this.scripted(options).doStream(options);
    const paused = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      async transform(part, controller) {
        if (part.type === 'text-delta' && part.delta.startsWith(PAUSE)) return released;
        controller.enqueue(part);
      },
    });
    return { ...rest, stream: stream.pipeThrough(paused) };
  }
}

const transferTool = createTool({
  id: 'chat-transfer',
  description: 'Sends money',
  inputSchema: z.object({ to: z.string(), amount: z.number(), account: z.string() }),
  requireApproval: true,
  execute: async ({ to, amount }) => ({ sent: amount, to }),
  // The stream, and so the chat, never shows the account number.
  transform: { display: { input: (args) => ({ ...(args as object), account: '****' }) } },
});

/** Searches until the test lets it finish, so that the person can write while the agent works. */
let searching = false;
let finishSearch!: () => void;
const searchFinished = new Promise<void>((resolve) => (finishSearch = resolve));
const searchTool = createTool({
  id: 'chat-search',
  description: 'Searches a room',
  inputSchema: z.object({ room: z.string() }),
  execute: async ({ room }) => {
    searching = true;
    await searchFinished;
    return { room, found: [] };
  },
});

const agentId = `chat-agent-${randomUUID().slice(0, 8)}`;
const chatAgent = defineAgent({
  id: agentId,
  name: 'Chat',
  instructions: 'You send money and ask.',
  model: 'chat-test/any',
  tools: { transfer: transferTool, ask_user: askUserTool, search: searchTool },
  // In a chat the person approves the calls of the runs they start.
  access: { selfApproval: true },
});

const TOKEN = `ada-${randomUUID()}`;

let w: TestWorker;
let server: ServerType;
let base: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const executablePath = chromiumPath();
  w = await startWorker([chatAgent], {
    models: { 'chat-test': (_id, context) => new ChatTestModel(context.priorSteps ?? 0) },
  });
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ [TOKEN]: { id: 'ada', name: 'Ada' } }),
    agents: [chatAgent],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 900, height: 900 } });
});
afterAll(async () => {
  release?.();
  finishSearch?.();
  await browser?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

/** A condition the page meets once the run got that far. */
const eventually = <T>(check: () => Promise<T>) => expect.poll(check, { timeout: 30_000, interval: 100 });

const assistant = (p: Page): Locator => p.locator('#messages li.message.assistant');
/** The text of the agent's answers as the page shows them, tool calls left out. */
const answerText = async (p: Page): Promise<string> =>
  (await assistant(p).locator('.text').allTextContents()).map((t) => t.trim()).join(' ');

async function send(p: Page, text: string): Promise<void> {
  await p.locator('#prompt').fill(text);
  await p.getByRole('button', { name: 'Send' }).click();
}

describe('the chat page', () => {
  it('serves the page with a strict CSP and needs a sign-in', async () => {
    const res = await fetch(`${base}/chat`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = await fetch(`${base}/chat/chat.js`);
    expect(script.status).toBe(200);
    expect((await fetch(`${base}/session`)).status).toBe(401);

    await page.goto(`${base}/chat?agent=${agentId}`);
    await page.locator('#token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.locator('#sign-in-error').textContent()).toMatch(/refused this token/);
    await page.locator('#token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.locator('#who').textContent()).toBe('Signed in as Ada (ada)');
    expect(await page.locator('h1').textContent()).toBe(`Chat with ${agentId}`);
  });

  it('asks for approval in the chat; approved, the answer streams, and a reload mid-answer loses and repeats nothing', async () => {
    await send(page, TRANSFER_PROMPT);
    const call = assistant(page).locator('.tool').first();
    await eventually(() => call.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    expect(await page.locator('#messages li.message.user').textContent()).toContain(TRANSFER_PROMPT);
    const shownArgs = JSON.parse((await call.locator('code').textContent())!);
    expect(shownArgs).toEqual({ to: 'Bob', amount: 5, account: '****' });
    expect(await page.content()).not.toContain('DE44-SECRET');

    await call.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => call.locator('pre.output').textContent()).toBe(
      JSON.stringify({ sent: 5, to: 'Bob' }, null, 2),
    );
    // The model has written half of its answer and holds the rest.
    await eventually(() => answerText(page)).toBe(FIRST_HALF);
    expect(await page.locator('#status').textContent()).toBe('The agent is answering…');

    const reconnects: Array<Record<string, string>> = [];
    page.on('request', (req) => {
      if (/\/runs\/[^/]+\/stream/.test(req.url())) reconnects.push(req.headers());
    });
    await page.reload();
    // After the reload: the conversation as it was, the half answer once, the call approved and done.
    await eventually(() => answerText(page)).toBe(FIRST_HALF);
    expect(await page.locator('#messages li.message.user').allTextContents()).toEqual([`You${TRANSFER_PROMPT}`]);
    expect(await assistant(page).locator('.tool pre.output').textContent()).toContain('"sent": 5');
    expect(await assistant(page).getByRole('button', { name: 'Approve' }).count()).toBe(0);
    // The run's stream was read on from the last event the page had shown, not from its start.
    expect(reconnects).toHaveLength(1);
    expect(Number(reconnects[0]!['last-event-id']!.split(':')[0])).toBeGreaterThan(0);

    release();
    await eventually(() => answerText(page)).toBe(`${FIRST_HALF} ${SECOND_HALF}`);
    await eventually(() => page.locator('#status').textContent()).toBe('');
    expect(await assistant(page).count()).toBe(1);
    expect(await page.locator('#chat-error').count()).toBe(0);

    // Once the run is over, a reload shows the same conversation.
    await page.reload();
    await eventually(() => answerText(page)).toBe(`${FIRST_HALF} ${SECOND_HALF}`);
    expect(await assistant(page).count()).toBe(1);
  });

  it('asks the user a question and takes the answer from its options', async () => {
    await send(page, COLOUR_PROMPT);
    const question = assistant(page).nth(1).locator('.question');
    await eventually(() => question.locator('p').textContent()).toBe('Which colour?');
    expect(await question.getByRole('button').allTextContents()).toEqual(['red', 'green', 'blue']);
    // The README's picture: an approved call, its answer, and a question waiting for the person.
    if (process.env.CHAT_SCREENSHOT) await page.screenshot({ path: process.env.CHAT_SCREENSHOT, fullPage: true });

    await question.getByRole('button', { name: 'green' }).click();
    await eventually(() => assistant(page).nth(1).locator('.text').textContent()).toBe('Green it is.');
    expect(await assistant(page).nth(1).locator('pre.output').textContent()).toBe(
      JSON.stringify({ answer: 'green' }, null, 2),
    );
    expect(await assistant(page).nth(1).locator('.question').count()).toBe(0);
    expect(await page.locator('#chat-error').count()).toBe(0);
  });
});

describe('the chat page, declining', () => {
  it('declines a call with a reason: the call does not run, and the agent answers', async () => {
    const before = await assistant(page).count();
    await send(page, DECLINED_PROMPT);
    const message = assistant(page).nth(before);
    await eventually(() => message.getByRole('button', { name: 'Decline' }).count()).toBe(1);
    await message.getByRole('textbox', { name: 'Reason' }).fill('not to Trudy');
    await message.getByRole('button', { name: 'Decline' }).click();
    await eventually(() => message.locator('.text').textContent()).toBe('I did not send it.');
    expect(await message.locator('.tool .note').textContent()).toBe('Declined: it did not run.');
    // The run's trail has the decline, by Ada, with her reason.
    const declines = async () =>
      (await w.client.listRuns({ agentId, limit: 10 })).flatMap((r) => r.decisions).filter((d) => d.kind === 'decline');
    await eventually(declines).toEqual([
      expect.objectContaining({ reason: 'not to Trudy', principal: expect.objectContaining({ id: 'ada' }) }),
    ]);
  });
});

describe('the chat page, while the agent works', () => {
  it('sends what the person writes while the agent works to its run, and the agent answers it', async () => {
    const before = await assistant(page).count();
    await send(page, ATTIC_PROMPT);
    await eventually(async () => searching).toBe(true);
    await send(page, CELLAR_MESSAGE);
    await eventually(() => page.locator('#sent-meanwhile li').allTextContents()).toEqual([CELLAR_MESSAGE]);
    finishSearch();
    await eventually(() => assistant(page).nth(before).locator('.text').textContent()).toBe(
      'No keys in the attic, nor in the cellar.',
    );
    expect(await page.locator('#message-refused').count()).toBe(0);
  });
});
