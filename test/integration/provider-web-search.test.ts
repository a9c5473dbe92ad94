/**
 * `webSearchTool` on Anthropic (`anthropic/<model>`) and Gemini (`google/<model>`), each through its real
 * AI SDK package over real HTTP, against the local fakes of the Messages API and the Gemini API
 * (test/anthropic-server.ts, test/google-server.ts) answering as each provider does with its own search:
 * Anthropic's `server_tool_use` and `web_search_tool_result` blocks before the text, Gemini's grounding
 * metadata beside it. The Anthropic fake refuses, as Anthropic does, a search sent back that it never made
 * or that was changed: so a run whose next step it accepts has kept the provider's record of the search.
 * The sibling of web-search.test.ts, which does this for OpenAI's Responses API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, createWebSearchTool, defineAgent, type RunStreamChunk } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../anthropic-server.js';
import { startFakeGoogle, type FakeGoogle } from '../google-server.js';
import { collect, startWorker, type TestWorker } from '../helpers.js';

const lookup = createTool({
  id: 'lookup',
  description: 'Looks a city up in the local gazetteer',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, population: 516_092 }),
});

const search = createWebSearchTool({ anthropic: { maxUses: 2 }, google: {} });
const INSTRUCTIONS = 'Search the web when you need current information.';

const claudeAgent = defineAgent({
  id: 'claude-research-agent',
  name: 'Research on Claude',
  instructions: INSTRUCTIONS,
  model: 'anthropic/claude-test',
  tools: { search, lookup },
});

const geminiAgent = defineAgent({
  id: 'gemini-research-agent',
  name: 'Research on Gemini',
  instructions: INSTRUCTIONS,
  model: 'google/gemini-test',
  tools: { search },
});

const QUERY = 'durable execution';
const RESULTS = [
  { url: 'https://temporal.io/', title: 'Temporal' },
  { url: 'https://ai-sdk.dev/docs', title: 'AI SDK' },
];
const ANSWER = 'Temporal and the AI SDK both run agents.';
const webSearch = { query: QUERY, results: RESULTS, text: ANSWER };

/** The search's output as `@ai-sdk/anthropic` gives it: Anthropic's results, each with its encrypted page. */
const anthropicOutput = (searchId: string) =>
  RESULTS.map(({ url, title }, i) => ({
    url,
    title,
    pageAge: 'April 30, 2025',
    encryptedContent: `fake-${searchId}-${i}`,
    type: 'web_search_result',
  }));

let anthropic: FakeAnthropic;
let google: FakeGoogle;
let w: TestWorker;
const savedEnv = { ...process.env };

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  google = await startFakeGoogle();
  // What an operator sets for the worker: each provider's key and base URL.
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
  process.env.ANTHROPIC_BASE_URL = anthropic.baseURL;
  process.env.GOOGLE_GENERATIVE_AI_API_KEY = 'google-test-key';
  process.env.GOOGLE_GENERATIVE_AI_BASE_URL = google.baseURL;
  w = await startWorker([claudeAgent, geminiAgent]);
});

afterAll(async () => {
  await w?.stop();
  await Promise.all([anthropic, google].map((s) => s?.close()));
  process.env = savedEnv;
});

const textOf = (chunks: RunStreamChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');

describe('webSearchTool on Anthropic (anthropic/<model>)', () => {
  it("is sent as Anthropic's web_search tool with its options; the search and its sources are recorded", async () => {
    anthropic.reset();
    anthropic.answer({ webSearch });
    const result = await w.client.generate('claude-research-agent', 'What runs durable agents?');

    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe(ANSWER);
    expect(anthropic.requests).toHaveLength(1);
    expect(anthropic.requests[0]!.body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      expect.objectContaining({ name: 'lookup', input_schema: expect.any(Object) }),
    ]);

    const [step, ...more] = result.steps;
    expect(more).toEqual([]);
    const searchId = step!.toolCalls[0]!.toolCallId;
    expect(searchId).toMatch(/^srvtoolu_/);
    expect(step!.toolCalls).toEqual([
      { toolCallId: searchId, toolName: 'search', args: { query: QUERY }, providerExecuted: true },
    ]);
    expect(step!.toolResults).toEqual([
      {
        toolCallId: searchId,
        toolName: 'search',
        isError: false,
        providerExecuted: true,
        output: anthropicOutput(searchId),
      },
    ]);
    expect(step!.sources?.map((s) => [s.sourceType, s.url, s.title])).toEqual([
      ['url', 'https://temporal.io/', 'Temporal'],
      ['url', 'https://ai-sdk.dev/docs', 'AI SDK'],
    ]);
    // The transcript keeps the provider's record of the search, which the next model call sends back.
    const assistant = result.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.content).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'tool-call', toolCallId: searchId, providerExecuted: true }),
        expect.objectContaining({ type: 'tool-result', toolCallId: searchId, toolName: 'search' }),
      ]),
    );
    expect(anthropic.unexpected).toEqual([]);
  });

  it("goes on to the next step with the search sent back in Anthropic's own format, which it accepts", async () => {
    anthropic.reset();
    anthropic.answer(
      { webSearch: { ...webSearch, cite: true, toolCalls: [{ name: 'lookup', args: { city: 'Lyon' } }] } },
      { text: 'Lyon has 516092 people.' },
    );
    const result = await w.client.generate('claude-research-agent', 'What is the population of Lyon?');

    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Lyon has 516092 people.');
    expect(result.steps).toHaveLength(2);
    const [searched, answered] = result.steps;
    // The search ran at the provider; only `lookup` ran on the worker, and only its result went back.
    expect(searched!.toolCalls.map((c) => [c.toolName, c.providerExecuted ?? false])).toEqual([
      ['search', true],
      ['lookup', false],
    ]);
    expect(searched!.toolResults[1]).toMatchObject({
      toolName: 'lookup',
      output: { city: 'Lyon', population: 516092 },
    });
    expect(searched!.sources?.map((s) => s.url)).toEqual(RESULTS.map((r) => r.url));
    expect(answered!.toolCalls).toEqual([]);

    // The fake took the second request: it knew the search sent back, unchanged, with its result after it.
    expect(anthropic.unexpected).toEqual([]);
    const [, second, ...more] = anthropic.requests;
    expect(more).toEqual([]);
    const searchId = searched!.toolCalls[0]!.toolCallId;
    const lookupId = searched!.toolCalls[1]!.toolCallId;
    const messages = second!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content).toEqual([
      { type: 'server_tool_use', id: searchId, name: 'web_search', input: { query: QUERY } },
      {
        type: 'web_search_tool_result',
        tool_use_id: searchId,
        content: RESULTS.map(({ url, title }, i) => ({
          url,
          title,
          page_age: 'April 30, 2025',
          encrypted_content: `fake-${searchId}-${i}`,
          type: 'web_search_result',
        })),
      },
      expect.objectContaining({ type: 'text', text: ANSWER }),
      { type: 'tool_use', id: lookupId, name: 'lookup', input: { city: 'Lyon' } },
    ]);
    // Only the worker's tool gets a tool_result from the run: the search's result is Anthropic's own block.
    expect(messages[2]!.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: lookupId })]);
  });

  it('streams the search as it starts, then its call, result and sources with the step', async () => {
    anthropic.reset();
    anthropic.answer({ webSearch: { ...webSearch, cite: true } });
    const stream = await w.client.stream('claude-research-agent', 'What runs durable agents? cite them');
    const chunks = await collect(stream);
    const types = chunks.map((c) => c.type);

    expect(anthropic.requests.map((r) => r.body.stream)).toEqual([true]);
    expect(anthropic.requests[0]!.body.tools).toContainEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 2,
    });
    const call = chunks.find((c) => c.type === 'tool-call') as Extract<RunStreamChunk, { type: 'tool-call' }>;
    expect(call).toMatchObject({ toolName: 'search', args: { query: QUERY }, providerExecuted: true });
    const id = call.toolCallId;
    expect(id).toMatch(/^srvtoolu_/);
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-input-start', toolCallId: id, toolName: 'search', providerExecuted: true }),
    );
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-result',
        toolCallId: id,
        toolName: 'search',
        output: anthropicOutput(id),
        providerExecuted: true,
      }),
    );
    // The search's results are the sources; the text's citation of one of them is not repeated.
    const sources = chunks.filter((c) => c.type === 'source');
    expect(sources.map((s) => [s.stepNumber, s.url, s.title])).toEqual([
      [0, 'https://temporal.io/', 'Temporal'],
      [0, 'https://ai-sdk.dev/docs', 'AI SDK'],
    ]);
    expect(types.indexOf('tool-input-start')).toBeLessThan(types.indexOf('tool-call'));
    expect(types.indexOf('tool-result')).toBeLessThan(types.indexOf('step-finish'));
    expect(types.at(-1)).toBe('finish');
    expect(textOf(chunks)).toBe(ANSWER);

    const result = await w.client.next(stream.runId);
    expect(result.text).toBe(ANSWER);
    expect(result.steps[0]!.sources?.map((s) => s.url)).toEqual(RESULTS.map((r) => r.url));
    expect(anthropic.unexpected).toEqual([]);
  });
});

describe('webSearchTool on Gemini (google/<model>): grounding with Google Search', () => {
  it('is sent as the googleSearch tool; the grounding sources are recorded in the step', async () => {
    google.reset();
    google.answer({ webSearch });
    const result = await w.client.generate('gemini-research-agent', 'What runs durable agents?');

    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe(ANSWER);
    expect(google.requests).toHaveLength(1);
    expect(google.requests[0]!.body.stream).toBe(false);
    expect(google.requests[0]!.body.tools).toEqual([{ googleSearch: {} }]);

    // Gemini reports no call of its search, only what grounded the answer: the step has sources, no calls.
    const [step, ...more] = result.steps;
    expect(more).toEqual([]);
    expect(step!.toolCalls).toEqual([]);
    expect(step!.toolResults).toEqual([]);
    expect(step!.sources?.map((s) => [s.sourceType, s.url, s.title])).toEqual([
      ['url', 'https://temporal.io/', 'Temporal'],
      ['url', 'https://ai-sdk.dev/docs', 'AI SDK'],
    ]);
    expect(google.unexpected).toEqual([]);
  });

  it('streams the text, then a source chunk per grounding page with the step', async () => {
    google.reset();
    google.answer({ webSearch });
    const stream = await w.client.stream('gemini-research-agent', 'What runs durable agents?');
    const chunks = await collect(stream);
    const types = chunks.map((c) => c.type);

    expect(google.requests.map((r) => [r.body.stream, r.body.tools])).toEqual([[true, [{ googleSearch: {} }]]]);
    expect(textOf(chunks)).toBe(ANSWER);
    const sources = chunks.filter((c) => c.type === 'source');
    expect(sources.map((s) => [s.stepNumber, s.url, s.title])).toEqual([
      [0, 'https://temporal.io/', 'Temporal'],
      [0, 'https://ai-sdk.dev/docs', 'AI SDK'],
    ]);
    expect(types.filter((t) => t === 'tool-call' || t === 'tool-result')).toEqual([]);
    expect(types.indexOf('source')).toBeLessThan(types.indexOf('step-finish'));
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: ANSWER });

    const result = await w.client.next(stream.runId);
    expect(result.steps[0]!.sources?.map((s) => s.url)).toEqual(RESULTS.map((r) => r.url));
    expect(google.unexpected).toEqual([]);
  });
});
