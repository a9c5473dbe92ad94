/**
 * The fake Anthropic and Gemini servers (test/anthropic-server.ts, test/google-server.ts) against the real
 * provider packages and the AI SDK, with no Temporal: what the fakes answer must be what the packages parse,
 * and what they record must be what the packages send, or a test built on them proves nothing.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { APICallError, generateText, streamText, tool, type ModelMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeAnthropic, type FakeAnthropic } from '../anthropic-server.js';
import { startFakeGoogle, type FakeGoogle } from '../google-server.js';

const tools = { weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }) }) };

/** The text deltas of a streamed call, and the text they join to. */
async function streamed(options: Parameters<typeof streamText>[0]) {
  const result = streamText(options);
  const deltas: string[] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') deltas.push(part.text);
    if (part.type === 'error') throw part.error;
  }
  return { deltas, text: await result.text, finishReason: await result.finishReason };
}

/** A call's error, which it must have. */
async function failure(call: Promise<unknown>): Promise<APICallError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

/** Runs `fn`, then puts the `names` of process.env back as they were. */
async function withEnv(names: string[], fn: () => Promise<void>) {
  const saved = names.map((name) => [name, process.env[name]] as const);
  try {
    await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The first request's conversation, with the tool call the model made and its result. */
const withToolResult = (first: {
  response: { messages: ModelMessage[] };
  toolCalls: Array<{ toolCallId: string; toolName: string }>;
}): ModelMessage[] => [
  { role: 'user', content: 'weather in Paris?' },
  ...first.response.messages,
  {
    role: 'tool',
    content: first.toolCalls.map((call) => ({
      type: 'tool-result' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'json' as const, value: { sky: 'sunny' } },
    })),
  },
];

describe('the fake Anthropic server, through @ai-sdk/anthropic', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => void (fake = await startFakeAnthropic()));
  afterAll(() => fake.close());
  afterEach(() => expect(fake.reset()).toEqual({ unexpected: [], pending: [] }));
  const model = () => createAnthropic({ baseURL: fake.baseURL, apiKey: 'sk-ant-key' })('claude-x');

  it('answers text, whole and streamed in two deltas', async () => {
    fake.answer({ text: 'Hello there' }, { text: 'Hello there' });
    const whole = await generateText({ model: model(), prompt: 'hi', maxRetries: 0 });
    expect(whole).toMatchObject({ text: 'Hello there', finishReason: 'stop' });
    expect(await streamed({ model: model(), prompt: 'hi', maxRetries: 0 })).toEqual({
      deltas: ['Hello ', 'there'],
      text: 'Hello there',
      finishReason: 'stop',
    });
    expect(fake.requests.map((r) => [r.path, r.auth, r.body.model, r.body.stream])).toEqual([
      // A whole answer's request has no `stream` field at all.
      ['/v1/messages', 'sk-ant-key', 'claude-x', undefined],
      ['/v1/messages', 'sk-ant-key', 'claude-x', true],
    ]);
    expect(fake.requests[0]?.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('answers a tool call, whole and streamed, with the input parsed', async () => {
    const call = { name: 'weather', args: { city: 'Paris' } };
    fake.answer({ toolCalls: [call] }, { toolCalls: [{ ...call, id: 'toolu_pinned' }] });
    const whole = await generateText({ model: model(), prompt: 'weather?', tools, maxRetries: 0 });
    expect(whole.finishReason).toBe('tool-calls');
    expect(whole.toolCalls).toMatchObject([
      { toolCallId: expect.stringMatching(/^toolu_\d+$/), toolName: 'weather', input: { city: 'Paris' } },
    ]);
    const stream = streamText({ model: model(), prompt: 'weather?', tools, maxRetries: 0 });
    expect(await stream.toolCalls).toMatchObject([{ toolCallId: 'toolu_pinned', input: { city: 'Paris' } }]);
    expect(await stream.finishReason).toBe('tool-calls');
    expect(fake.requests[0]?.body.tools).toMatchObject([
      { name: 'weather', description: 'The weather in a city', input_schema: { properties: { city: {} } } },
    ]);
  });

  it('receives the tool result back as a tool_result block, and the instructions as `system`', async () => {
    fake.answer({ toolCalls: [{ name: 'weather', args: { city: 'Paris' } }] }, { text: 'Sunny.' });
    const first = await generateText({ model: model(), prompt: 'weather in Paris?', tools, maxRetries: 0 });
    const id = first.toolCalls[0]?.toolCallId;
    expect(id).toMatch(/^toolu_\d+$/);
    const second = await generateText({
      model: model(),
      instructions: 'You are terse.',
      messages: withToolResult(first),
      tools,
      maxRetries: 0,
    });
    expect(second.text).toBe('Sunny.');
    const sent = fake.requests[1]?.body;
    expect(sent?.system).toEqual([{ type: 'text', text: 'You are terse.' }]);
    expect(sent?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent?.messages[1]?.content).toMatchObject([
      { type: 'tool_use', id, name: 'weather', input: { city: 'Paris' } },
    ]);
    expect(sent?.messages[2]?.content).toMatchObject([
      { type: 'tool_result', tool_use_id: id, content: JSON.stringify({ sky: 'sunny' }) },
    ]);
  });

  it('fails with the status, the retry-after header and the message of the error body', async () => {
    fake.answer({ fail: { status: 429, message: 'Slow down', headers: { 'retry-after': '7' } } });
    const error = await failure(generateText({ model: model(), prompt: 'hi', maxRetries: 0 }));
    expect(error).toMatchObject({ statusCode: 429, message: 'Slow down', isRetryable: true });
    expect(error.responseHeaders?.['retry-after']).toBe('7');
    expect(JSON.parse(error.responseBody ?? '')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Slow down' },
    });
  });

  it('answers a call the test did not expect with a 400 the provider does not retry, and records it', async () => {
    const error = await failure(generateText({ model: model(), prompt: 'hi', maxRetries: 0 }));
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false });
    expect(fake.reset().unexpected.map((r) => r.body.model)).toEqual(['claude-x']);
  });

  it('is reached by a provider created with no settings after useInThisProcess', async () => {
    await withEnv(['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'], async () => {
      fake.useInThisProcess();
      fake.answer({ text: 'from the env' });
      // Not the package's `anthropic` export: it read ANTHROPIC_BASE_URL when this file imported it.
      const result = await generateText({ model: createAnthropic()('claude-x'), prompt: 'hi', maxRetries: 0 });
      expect(result.text).toBe('from the env');
      expect(fake.requests[0]?.auth).toBe('sk-ant-test');
    });
  });
});

describe('the fake Gemini server, through @ai-sdk/google', () => {
  let fake: FakeGoogle;
  beforeAll(async () => void (fake = await startFakeGoogle()));
  afterAll(() => fake.close());
  afterEach(() => expect(fake.reset()).toEqual({ unexpected: [], pending: [] }));
  const model = () => createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'g-key' })('gemini-x');

  it('answers text, whole and streamed in two chunks', async () => {
    fake.answer({ text: 'Hello there' }, { text: 'Hello there' });
    const whole = await generateText({ model: model(), prompt: 'hi', maxRetries: 0 });
    expect(whole).toMatchObject({ text: 'Hello there', finishReason: 'stop' });
    expect(await streamed({ model: model(), prompt: 'hi', maxRetries: 0 })).toEqual({
      deltas: ['Hello ', 'there'],
      text: 'Hello there',
      finishReason: 'stop',
    });
    expect(fake.requests.map((r) => [r.path, r.auth, r.body.model, r.body.stream])).toEqual([
      ['/v1beta/models/gemini-x:generateContent', 'g-key', 'gemini-x', false],
      ['/v1beta/models/gemini-x:streamGenerateContent?alt=sse', 'g-key', 'gemini-x', true],
    ]);
    expect(fake.requests[0]?.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
  });

  it('answers a function call with finishReason STOP, which the SDK maps to tool-calls', async () => {
    const call = { name: 'weather', args: { city: 'Paris' } };
    fake.answer({ toolCalls: [call] }, { toolCalls: [{ ...call, id: 'call_pinned' }] });
    const whole = await generateText({ model: model(), prompt: 'weather?', tools, maxRetries: 0 });
    expect(whole.finishReason).toBe('tool-calls');
    expect(whole.toolCalls).toMatchObject([{ toolName: 'weather', input: { city: 'Paris' } }]);
    expect(whole.toolCalls[0]?.toolCallId).toEqual(expect.any(String));
    const stream = streamText({ model: model(), prompt: 'weather?', tools, maxRetries: 0 });
    expect(await stream.toolCalls).toMatchObject([{ toolCallId: 'call_pinned', input: { city: 'Paris' } }]);
    expect(await stream.finishReason).toBe('tool-calls');
    expect(fake.requests[0]?.body.tools).toMatchObject([
      { functionDeclarations: [{ name: 'weather', description: 'The weather in a city' }] },
    ]);
  });

  it('receives the tool result back as a functionResponse, and the instructions as systemInstruction', async () => {
    fake.answer({ toolCalls: [{ name: 'weather', args: { city: 'Paris' } }] }, { text: 'Sunny.' });
    const first = await generateText({ model: model(), prompt: 'weather in Paris?', tools, maxRetries: 0 });
    const id = first.toolCalls[0]?.toolCallId;
    const second = await generateText({
      model: model(),
      instructions: 'You are terse.',
      messages: withToolResult(first),
      tools,
      maxRetries: 0,
    });
    expect(second.text).toBe('Sunny.');
    const sent = fake.requests[1]?.body;
    expect(sent?.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
    expect(sent?.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    // With the signature the answer gave, as Gemini 3 wants it back.
    expect(sent?.contents[1]?.parts).toEqual([
      { functionCall: { id, name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'fake-signature-0' },
    ]);
    expect(sent?.contents[2]?.parts).toEqual([
      {
        functionResponse: {
          id,
          name: 'weather',
          response: { name: 'weather', content: { sky: 'sunny' } },
        },
      },
    ]);
  });

  it('fails with the status, the retry-after header and the message of the error body', async () => {
    fake.answer({ fail: { status: 429, message: 'Quota exceeded', headers: { 'retry-after': '7' } } });
    const error = await failure(generateText({ model: model(), prompt: 'hi', maxRetries: 0 }));
    expect(error).toMatchObject({ statusCode: 429, message: 'Quota exceeded', isRetryable: true });
    expect(error.responseHeaders?.['retry-after']).toBe('7');
    expect(JSON.parse(error.responseBody ?? '')).toEqual({
      error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' },
    });
  });

  it('answers a call the test did not expect with a 400 the provider does not retry, and records it', async () => {
    const error = await failure(generateText({ model: model(), prompt: 'hi', maxRetries: 0 }));
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false });
    expect(fake.reset().unexpected.map((r) => r.body.model)).toEqual(['gemini-x']);
  });

  it('sends the key useInThisProcess sets; the base URL still has to be given', async () => {
    await withEnv(['GOOGLE_GENERATIVE_AI_API_KEY'], async () => {
      fake.useInThisProcess();
      fake.answer({ text: 'from the env' });
      const google = createGoogleGenerativeAI({ baseURL: fake.baseURL });
      const result = await generateText({ model: google('gemini-x'), prompt: 'hi', maxRetries: 0 });
      expect(result.text).toBe('from the env');
      expect(fake.requests[0]?.auth).toBe('google-test-key');
    });
  });
});
