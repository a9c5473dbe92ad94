/**
 * The HTTP server over real HTTP, read the way a browser reads it: the SSE body goes through the AI
 * SDK's own UI message stream parser (`parseJsonEventStream` + `uiMessageChunkSchema`) and
 * `readUIMessageStream`, which is what `useChat` uses.
 */
import type { ServerType } from '@hono/node-server';
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult, type Script } from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { transformAgent } from '../fixtures/transform-agents.js';
import { startWorker, withoutRandomIds, type TestWorker } from '../helpers.js';

let w: TestWorker;
let server: ServerType;
let base: string;

/** Alice starts runs; Bob approves what needs a second pair of eyes. */
const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';

beforeAll(async () => {
  w = await startWorker([toolboxAgent, transformAgent]);
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ [ALICE]: { id: 'alice' }, [BOB]: { id: 'bob' } }),
    agents: [toolboxAgent, transformAgent],
    // The tests play the scripted model, so they may send its script.
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'model', 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

function post(path: string, body: unknown, token = ALICE): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

function get(path: string, token = ALICE): Promise<Response> {
  return fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

/** The fingerprint of a pending call, as the finish chunk of a paused segment lists it. */
function fingerprintOf(chunks: UIMessageChunk[], toolCallId: string): string {
  const finish = chunks.at(-1) as {
    messageMetadata?: { pendingToolCalls?: Array<{ toolCallId: string; fingerprint: string }> };
  };
  return finish.messageMetadata!.pendingToolCalls!.find((p) => p.toolCallId === toolCallId)!.fingerprint;
}

/** Reads an SSE response as useChat does; returns the assistant message as it ends, and the raw chunks. */
async function readMessage(
  res: Response,
  message?: UIMessage,
): Promise<{ message: UIMessage; chunks: UIMessageChunk[] }> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: res.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        chunks.push(result.value);
        controller.enqueue(result.value);
      },
    }),
  );
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, ...(message ? { message } : {}) })) last = m;
  return { message: structuredClone(last!), chunks };
}

/** One SSE event as sent: its id (none for `[DONE]` and errors) and its data. */
interface SseEvent {
  id?: string;
  data: string;
}

/** Reads SSE events off a response; after `limit` events it cuts the connection, as a dropped network would. */
async function sseEvents(res: Response, limit = Infinity, cut?: AbortController): Promise<SseEvent[]> {
  expect(res.status).toBe(200);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = res.body!.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffered += decoder.decode(read.value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const lines = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
        const data = lines.find((l) => l.startsWith('data: '))!.slice(6);
        events.push({ ...(id !== undefined ? { id } : {}), data });
        if (events.length >= limit) {
          cut?.abort();
          return events;
        }
      }
    }
  } catch (err) {
    if (!cut?.signal.aborted) throw err;
  }
  return events;
}

/** The assistant message that useChat builds from these events. */
async function messageOf(events: SseEvent[], message?: UIMessage): Promise<UIMessage> {
  const body = events.map((e) => `${e.id !== undefined ? `id: ${e.id}\n` : ''}data: ${e.data}\n\n`).join('');
  const res = new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
  });
  // readUIMessageStream builds on the message it is given: each read gets its own copy.
  return (await readMessage(res, message && structuredClone(message))).message;
}

/** A GET of a run's stream that can be cut, with headers (Last-Event-ID). */
function getStream(path: string, headers: Record<string, string>, cut?: AbortController): Promise<Response> {
  return fetch(`${base}${path}`, { headers: { authorization: `Bearer ${ALICE}`, ...headers }, signal: cut?.signal });
}

/**
 * Cuts the connection after each event of `whole` in turn, reconnects with Last-Event-ID, and checks
 * that the message built from both parts is the message built from the whole.
 */
async function expectResumableAfterEveryEvent(
  runId: string,
  fromOffset: number,
  whole: SseEvent[],
  message?: UIMessage,
): Promise<void> {
  const expected = await messageOf(whole, message);
  for (let k = 1; k < whole.length; k++) {
    if (whole[k - 1]!.id === undefined) continue;
    const cut = new AbortController();
    const head = await sseEvents(await getStream(`/runs/${runId}/stream?offset=${fromOffset}`, {}, cut), k, cut);
    const tail = await sseEvents(await getStream(`/runs/${runId}/stream`, { 'last-event-id': head.at(-1)!.id! }));
    expect({ cutAfter: head.at(-1)!.id, message: await messageOf([...head, ...tail], message) }).toEqual({
      cutAfter: whole[k - 1]!.id,
      message: expected,
    });
  }
}

const script: Script = [
  { text: 'Checking the database.', toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] },
  { toolCalls: [{ toolName: 'ask', args: { question: 'Which colour?' } }] },
  { text: 'Green it is.' },
];

describe('the HTTP server', () => {
  it('streams a durable run as a UI message stream: text, an approval request, a result, a suspension, the end', async () => {
    const res = await post('/agents/toolbox-agent/stream', { prompt: 'go', options: { model: 'scripted', script } });
    const runId = res.headers.get('x-run-id')!;
    expect(runId).toMatch(/^run-/);
    const first = await readMessage(res);
    expect(first.message.id).toBe(runId);
    expect(first.message.parts).toEqual([
      { type: 'step-start' },
      expect.objectContaining({ type: 'text', text: 'Checking the database.', state: 'done' }),
      expect.objectContaining({
        type: 'tool-guarded',
        toolCallId: 'call-0-0',
        state: 'approval-requested',
        input: { target: 'db' },
        approval: { id: fingerprintOf(first.chunks, 'call-0-0') },
      }),
    ]);
    expect(first.chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      messageMetadata: { runId, finishReason: 'suspended' },
    });

    const waiting = (await (await get('/agents/toolbox-agent/suspended-runs')).json()) as {
      runs: Array<{ runId: string }>;
    };
    expect(waiting.runs.map((r) => r.runId)).toContain(runId);

    // Alice started the run, so Bob approves (a tool that requires approval wants a second person).
    const approval = { toolCallId: 'call-0-0', fingerprint: fingerprintOf(first.chunks, 'call-0-0'), by: 'browser' };
    const second = await readMessage(await post(`/runs/${runId}/approve`, approval, BOB), first.message);
    expect(second.message.parts.find((p) => p.type === 'tool-guarded')).toMatchObject({
      state: 'output-available',
      output: 'did db',
    });
    expect(second.message.parts.find((p) => p.type === 'data-tool-suspended')).toMatchObject({
      id: 'call-1-0',
      data: { toolName: 'ask', payload: { question: 'Which colour?' } },
    });

    const suspended = second.message.parts.find((p) => p.type === 'data-tool-suspended') as {
      data: { fingerprint: string };
    };
    const third = await readMessage(
      await post(`/runs/${runId}/resume`, { resumeData: { answer: 'green' }, fingerprint: suspended.data.fingerprint }),
      second.message,
    );
    expect(third.message.parts.find((p) => p.type === 'tool-ask')).toMatchObject({
      state: 'output-available',
      output: { answer: 'green' },
    });
    expect(third.message.parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text)).toEqual([
      'Checking the database.',
      'Green it is.',
    ]);
    expect(third.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });

    // The whole run again, from offset 0, while the finished run is still readable.
    const replay = await readMessage(await get(`/runs/${runId}/stream?offset=0`));
    expect((await w.client.getRun(runId)).decisions).toEqual([
      expect.objectContaining({ kind: 'approve', principal: { id: 'bob', via: 'http:bearer' }, by: 'browser' }),
      expect.objectContaining({ kind: 'resume', principal: { id: 'alice', via: 'http:bearer' } }),
    ]);
    expect(replay.message.parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text)).toEqual([
      'Checking the database.',
    ]);
  });

  it('gives every UI chunk an event id of its own, so that a client reconnecting after any event ends with the same message', async () => {
    const res = await post('/agents/toolbox-agent/stream', { prompt: 'go', options: { model: 'scripted', script } });
    const runId = res.headers.get('x-run-id')!;
    const first = await sseEvents(res);
    const ids = first.flatMap((e) => (e.id !== undefined ? [e.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    // Offsets that carry several UI chunks (a text's start and first delta; its end and the finish) are in it.
    expect(first.map((e) => JSON.parse(e.data === '[DONE]' ? '{}' : e.data).type)).toEqual(
      expect.arrayContaining(['text-start', 'text-delta', 'text-end', 'finish']),
    );
    await expectResumableAfterEveryEvent(runId, 0, first);

    // The next segment, which starts in the middle of the stream, after a decision.
    const firstMessage = await messageOf(first);
    const fingerprint = (
      JSON.parse(first.at(-2)!.data) as { messageMetadata: { pendingToolCalls: Array<{ fingerprint: string }> } }
    ).messageMetadata.pendingToolCalls[0]!.fingerprint;
    const second = await sseEvents(await post(`/runs/${runId}/approve`, { fingerprint }, BOB));
    const start = JSON.parse(second[0]!.data) as { messageMetadata: { offset: number } };
    await expectResumableAfterEveryEvent(runId, start.messageMetadata.offset, second, firstMessage);
  });

  it('refuses a Last-Event-ID or offset it did not send, and an offset past the end of the stream', async () => {
    const paused = await w.client.generate('toolbox-agent', 'go', { model: 'scripted', script });
    for (const [headers, query, pattern] of [
      [{ 'last-event-id': 'yesterday' }, '', /Last-Event-ID must be/],
      [{ 'last-event-id': '3:-1' }, '', /Last-Event-ID must be/],
      [{}, '?offset=1e3', /offset must be a whole number/],
      [{}, '?offset=100000', /offset 100000 is past the end/],
    ] as const) {
      const res = await getStream(`/runs/${paused.runId}/stream${query}`, headers);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(pattern);
    }
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });

  it('takes a client tool result on /runs/:runId/tool-result and streams on from there', async () => {
    const paused = await w.client.generate('toolbox-agent', 'pick', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'pick', args: { options: ['red', 'blue'] } }] }, { text: 'Blue it is.' }],
    });
    expect(paused.finishReason).toBe('tool-calls');
    const { chunks } = await readMessage(
      await post(`/runs/${paused.runId}/tool-result`, {
        toolCallId: 'call-0-0',
        result: 'blue',
        fingerprint: paused.pendingToolCalls[0]!.fingerprint,
      }),
      {
        id: paused.runId,
        role: 'assistant',
        parts: [
          { type: 'tool-pick', toolCallId: 'call-0-0', state: 'input-available', input: { options: ['red', 'blue'] } },
        ],
      },
    );
    expect(chunks).toContainEqual({ type: 'tool-output-available', toolCallId: 'call-0-0', output: 'blue' });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('resolves an uncertain call on /runs/:runId/resolve, and shows it waiting as a data part', async () => {
    const paused = await w.client.generate('toolbox-agent', 'charge', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'charge', args: { amount: 4 } }] }, { text: 'Charged.' }],
    });
    const call = paused.pendingToolCalls[0]!;
    const approved = await readMessage(await post(`/runs/${paused.runId}/approve`, { fingerprint: call.fingerprint }));
    const uncertain = approved.chunks.find((c) => c.type === 'data-tool-uncertain') as { data: { reason: string } };
    expect(uncertain.data.reason).toMatch(/StartToClose timeout/);
    expect(await post(`/runs/${paused.runId}/resolve`, { fingerprint: call.fingerprint })).toMatchObject({
      status: 400,
    });
    const { chunks } = await readMessage(
      await post(`/runs/${paused.runId}/resolve`, {
        fingerprint: call.fingerprint,
        resolution: 'skip',
        output: { charged: 4 },
      }),
      {
        id: paused.runId,
        role: 'assistant',
        parts: [{ type: 'tool-charge', toolCallId: 'call-0-0', state: 'input-available', input: { amount: 4 } }],
      },
    );
    expect(chunks).toContainEqual({ type: 'tool-output-available', toolCallId: 'call-0-0', output: { charged: 4 } });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('takes useChat UI messages and answers /generate with the run result', async () => {
    const res = await post('/agents/toolbox-agent/generate', {
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Add 2 and 3' }] }],
      options: {
        model: 'scripted',
        script: [{ toolCalls: [{ toolName: 'add', args: { a: 2, b: 3 } }] }, { text: 'Five.' }],
      },
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      text: string;
      toolResults: unknown[];
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(result.text).toBe('Five.');
    expect(result.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Add 2 and 3' }] });
  });

  it('takes structuredOutput as a JSON schema: the result has the object, or the answer is a 422', async () => {
    const schema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    const generate = (text: string) =>
      post('/agents/toolbox-agent/generate', {
        prompt: 'Add 2 and 3',
        options: { model: 'scripted', script: [{ text }], structuredOutput: { schema } },
      });
    const ok = await generate('{"sum":5}');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ object: { sum: 5 }, text: '{"sum":5}' });

    const refused = await generate('Five.');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      error: { type: 'StructuredOutputError', message: expect.stringContaining('text that is not JSON: "Five."') },
    });
  });

  it("answers /generate with what the stream shows: display transforms' forms, never the raw values", async () => {
    const generate = async (script: Script) => {
      const res = await post('/agents/transform-agent/generate', { prompt: 'go', options: { script } });
      expect(res.status).toBe(200);
      return (await res.json()) as RunResult;
    };
    // Calls that ran: an output, an error and an input the stream shows transformed.
    const ran = await generate([
      {
        toolCalls: [
          { toolName: 'lookupCustomer', args: { customerId: 'c-1' } },
          { toolName: 'charge', args: {} },
          { toolName: 'leaky', args: {} },
        ],
      },
      { text: 'Done.' },
    ]);
    const ranText = JSON.stringify(ran);
    for (const secret of ['123-45-6789', '4111-1111-1111-1111', 'tok_live_abc123'])
      expect(ranText).not.toContain(secret);
    expect(ran.toolResults.find((r) => r.toolName === 'lookupCustomer')).toMatchObject({
      output: { ssn: '***-**-****' },
    });
    expect(ran.steps[0]!.toolResults.find((r) => r.toolName === 'charge')).toMatchObject({
      isError: true,
      error: expect.stringContaining('****-****-****-****'),
    });

    // A call that waits for approval, and one that waits with a payload: as the stream's finish chunk lists them.
    const vault = await generate([
      { toolCalls: [{ toolName: 'openVault', args: { vault: 'main', password: 'hunter2' } }] },
    ]);
    expect(vault.finishReason).toBe('suspended');
    expect(JSON.stringify(vault)).not.toContain('hunter2');
    expect(vault.pendingToolCalls[0]!.args).toEqual({ vault: 'main', password: '[ask the owner]' });
    expect(vault.suspendPayload!.args).toEqual({ vault: 'main', password: '[ask the owner]' });
    const unlock = await generate([{ toolCalls: [{ toolName: 'unlock', args: { door: 'front' } }] }]);
    expect(withoutRandomIds(unlock)).not.toContain('4242');
    expect(unlock.suspendPayload!.payload).toEqual({ door: 'front', hint: '[hidden]' });
    // The library's own result keeps the raw values: they are the application's.
    expect((await w.client.getRun(vault.runId)).pendingToolCalls[0]!.args).toEqual({
      vault: 'main',
      password: 'hunter2',
    });
  });

  it('answers bad requests with a 4xx and a JSON error that names the problem, and keeps serving', async () => {
    const cases: Array<[Promise<Response>, number, string, RegExp]> = [
      [
        fetch(`${base}/agents/toolbox-agent/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` },
          body: '{not json',
        }),
        400,
        'InvalidJson',
        /not JSON/,
      ],
      [
        post('/agents/toolbox-agent/stream', { options: {} }),
        400,
        'InvalidRequest',
        /send either "prompt" or "messages"/,
      ],
      [
        post('/agents/toolbox-agent/stream', { prompt: 'x', options: { maxSteps: -1 } }),
        400,
        'InvalidRequest',
        /maxSteps/,
      ],
      [get('/runs/run-that-never-was/stream'), 404, 'RunNotFoundError', /No run "run-that-never-was"/],
      [get('/runs/x/stream?offset=-3'), 400, 'InvalidRequest', /offset must be a whole number/],
      [post('/runs/run-that-never-was/approve', { fingerprint: 'f' }), 404, 'RunNotFoundError', /No run/],
      [post('/runs/x/resume', { fingerprint: 'f' }), 400, 'InvalidRequest', /resume needs "resumeData"/],
      [post('/runs/x/approve', { toolCallId: 5, fingerprint: 'f' }), 400, 'InvalidRequest', /toolCallId/],
      [post('/runs/x/approve', {}), 400, 'InvalidRequest', /fingerprint/],
      [get('/no/such/route'), 404, 'NotFound', /no route GET \/no\/such\/route/],
    ];
    for (const [request, status, type, message] of cases) {
      const res = await request;
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe(type);
      expect(body.error.message).toMatch(message);
    }

    const paused = await w.client.generate('toolbox-agent', 'go', { model: 'scripted', script });
    const mismatch = await post(`/runs/${paused.runId}/approve`, { fingerprint: 'nope' }, BOB);
    expect(mismatch.status).toBe(409);
    expect(((await mismatch.json()) as { error: { type: string } }).error.type).toBe('FingerprintMismatch');
    const wrongKind = await post(`/runs/${paused.runId}/resume`, { resumeData: { answer: 'x' }, fingerprint: 'f' });
    expect(wrongKind.status).toBe(409);
    await w.client.declineToolCallGenerate({ runId: paused.runId });

    expect((await get('/agents/toolbox-agent/suspended-runs')).status).toBe(200);
  });
});
