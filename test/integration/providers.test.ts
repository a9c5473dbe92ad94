/**
 * The built-in providers by name, each through its real AI SDK package over real HTTP, against a local
 * server that speaks that provider's wire format (test/*-server.ts): `anthropic/<model>` (Messages API),
 * `google/<model>` (Gemini API) and `openai-compatible/<model>` (a server at OPENAI_COMPATIBLE_BASE_URL),
 * plus a provider the application registers. Each runs a tool call that waits for approval, then text:
 * once generated and once streamed. Keys and base URLs come from the environment, as a worker reads them.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, RunFailedError, type RunStreamChunk } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../anthropic-server.js';
import { startFakeGoogle, type FakeGoogle } from '../google-server.js';
import { runLines } from '../../src/cli/format.js';
import { collect, startWorker, type TestWorker } from '../helpers.js';
import { startFakeOpenAI, type FakeOpenAI, type ModelAnswer } from '../openai-server.js';

const weather = createTool({
  id: 'weather',
  description: 'Current weather in a city',
  inputSchema: z.object({ city: z.string() }),
  requireApproval: true,
  execute: ({ city }) => ({ city, temperatureC: 21 }),
});

const INSTRUCTIONS = 'You report the weather.';
const agentOn = (id: string, model: string) =>
  defineAgent({ id, name: id, instructions: INSTRUCTIONS, model, tools: { weather } });

/** A tool call first; text that quotes the tool's result once the conversation carries it. */
function answer(toolResult: unknown): ModelAnswer {
  return toolResult === undefined
    ? { toolCalls: [{ name: 'weather', args: { city: 'Lyon' } }] }
    : { text: `The tool said: ${JSON.stringify(toolResult)}` };
}

let anthropic: FakeAnthropic;
let google: FakeGoogle;
let compatible: FakeOpenAI;
let ollama: FakeOpenAI;
let w: TestWorker;
const savedEnv = { ...process.env };

beforeAll(async () => {
  anthropic = await startFakeAnthropic((request) => {
    const blocks = request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const result = blocks.find((b) => (b as { type?: string }).type === 'tool_result') as
      { content?: Array<{ text: string }> | string } | undefined;
    const content = result?.content;
    return answer(result ? JSON.parse(typeof content === 'string' ? content : content![0]!.text) : undefined);
  });
  google = await startFakeGoogle((request) => {
    const parts = request.contents.flatMap((c) => c.parts) as Array<{ functionResponse?: { response: unknown } }>;
    const result = parts.find((p) => p.functionResponse)?.functionResponse?.response as { content: unknown };
    return answer(result?.content);
  });
  const openaiStyle = (request: { messages: Array<{ role: string; content?: unknown }> }) => {
    const tool = request.messages.find((m) => m.role === 'tool');
    return answer(tool ? JSON.parse(String(tool.content)) : undefined);
  };
  compatible = await startFakeOpenAI(openaiStyle);
  ollama = await startFakeOpenAI(openaiStyle);

  // What an operator sets for the worker: each provider's key, and its base URL where it is not the vendor's.
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
  process.env.ANTHROPIC_BASE_URL = anthropic.baseURL;
  process.env.GOOGLE_GENERATIVE_AI_API_KEY = 'google-test-key';
  process.env.GOOGLE_GENERATIVE_AI_BASE_URL = google.baseURL;
  process.env.OPENAI_COMPATIBLE_API_KEY = 'local-key';
  process.env.OPENAI_COMPATIBLE_BASE_URL = compatible.baseURL;
  w = await startWorker(
    [
      agentOn('claude-agent', 'anthropic/claude-test'),
      agentOn('gemini-agent', 'google/gemini-test'),
      agentOn('local-agent', 'openai-compatible/qwen/qwen3-8b'),
      agentOn('ollama-agent', 'ollama/llama3.2'),
      defineAgent({
        id: 'resilient',
        name: 'Resilient',
        model: 'anthropic/claude-test',
        fallbackModels: ['google/gemini-test'],
      }),
      defineAgent({
        id: 'resilient-quick',
        name: 'Resilient, and quick to give up on a silent provider',
        model: 'openai-compatible/qwen/qwen3-8b',
        fallbackModels: ['google/gemini-test'],
        modelRetry: { fallbackAfter: '2s' },
      }),
      defineAgent({
        id: 'resilient-typo',
        name: 'Resilient, with a fallback no provider here has',
        model: 'anthropic/claude-test',
        fallbackModels: ['mistral/mistral-large'],
      }),
      defineAgent({
        id: 'resilient-open',
        name: 'Resilient, open',
        model: 'openai-compatible/qwen/qwen3-8b',
        fallbackModels: ['google/gemini-test'],
        overridable: ['model'],
      }),
      defineAgent({
        id: 'thinker',
        name: 'Thinker',
        model: 'anthropic/claude-test',
        defaultOptions: {
          modelSettings: { maxOutputTokens: 4096, providerOptions: { anthropic: { thinking } } },
        },
      }),
    ],
    { providers: { ollama: createOpenAICompatible({ name: 'ollama', baseURL: ollama.baseURL }) } },
  );
});

afterAll(async () => {
  await w?.stop();
  await Promise.all([anthropic, google, compatible, ollama].map((s) => s?.close()));
  process.env = savedEnv;
});

const thinking = { type: 'enabled', budgetTokens: 2048 };

const TOOL_SAID = 'The tool said: {"city":"Lyon","temperatureC":21}';

/** What each provider's server recorded, read the same way. */
interface Seen {
  path: string;
  auth: string | undefined;
  model: string;
  stream: boolean;
  /** The instructions, where the provider's format puts them. */
  system: unknown;
  /** The tool's result as the second request carried it back, in the provider's own format. */
  toolResult: unknown;
}

const providers: Array<{ agent: string; requests: () => Seen[]; reset: () => void; path: RegExp }> = [
  {
    agent: 'claude-agent',
    path: /^\/v1\/messages$/,
    reset: () => anthropic.reset(),
    requests: () =>
      anthropic.requests.map((r) => ({
        path: r.path,
        auth: r.auth,
        model: r.body.model,
        stream: r.body.stream === true,
        system: r.body.system,
        toolResult: r.body.messages
          .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
          .find((b) => (b as { type?: string }).type === 'tool_result'),
      })),
  },
  {
    agent: 'gemini-agent',
    path: /^\/v1beta\/models\/gemini-test:(generateContent|streamGenerateContent\?alt=sse)$/,
    reset: () => google.reset(),
    requests: () =>
      google.requests.map((r) => ({
        path: r.path,
        auth: r.auth,
        model: r.body.model,
        stream: r.body.stream,
        system: r.body.systemInstruction,
        toolResult: r.body.contents
          .flatMap((c) => c.parts)
          .find((p) => (p as { functionResponse?: unknown }).functionResponse),
      })),
  },
  ...(
    [
      ['local-agent', () => compatible],
      ['ollama-agent', () => ollama],
    ] as const
  ).map(([agent, server]) => ({
    agent,
    path: /^\/v1\/chat\/completions$/,
    reset: () => void server().reset(),
    requests: () =>
      server().requests.map((r) => ({
        path: r.path,
        auth: r.auth,
        model: r.body.model,
        stream: r.body.stream === true,
        system: r.body.messages[0],
        toolResult: r.body.messages.find((m) => m.role === 'tool'),
      })),
  })),
];

const expected: Record<string, Omit<Seen, 'path' | 'stream'>> = {
  'claude-agent': {
    auth: 'sk-ant-test',
    model: 'claude-test',
    system: [{ type: 'text', text: INSTRUCTIONS }],
    toolResult: expect.objectContaining({ type: 'tool_result', tool_use_id: expect.stringMatching(/^toolu_/) }),
  },
  'gemini-agent': {
    auth: 'google-test-key',
    model: 'gemini-test',
    system: { parts: [{ text: INSTRUCTIONS }] },
    toolResult: { functionResponse: expect.objectContaining({ name: 'weather' }) },
  },
  'local-agent': {
    auth: 'Bearer local-key',
    model: 'qwen/qwen3-8b',
    system: { role: 'system', content: INSTRUCTIONS },
    toolResult: expect.objectContaining({ role: 'tool', tool_call_id: expect.any(String) }),
  },
  'ollama-agent': {
    auth: undefined,
    model: 'llama3.2',
    system: { role: 'system', content: INSTRUCTIONS },
    toolResult: expect.objectContaining({ role: 'tool', tool_call_id: expect.any(String) }),
  },
};

const text = (chunks: RunStreamChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');

describe.each(providers)('$agent', ({ agent, requests, reset, path }) => {
  it('calls a tool that waits for approval, then answers with its result', async () => {
    reset();
    const paused = await w.client.generate(agent, 'Weather in Lyon?');
    expect(paused.finishReason).toBe('suspended');
    expect(paused.pendingToolCalls).toEqual([
      expect.objectContaining({ toolName: 'weather', args: { city: 'Lyon' }, kind: 'approval' }),
    ]);

    const done = await w.client.approveToolCallGenerate({ runId: paused.runId });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe(TOOL_SAID);
    expect(done.toolResults[0]).toMatchObject({ isError: false, output: { city: 'Lyon', temperatureC: 21 } });

    const seen = requests();
    expect(seen).toHaveLength(2);
    const { toolResult, ...each } = expected[agent]!;
    for (const request of seen) {
      expect(request.path).toMatch(path);
      expect(request).toMatchObject({ ...each, stream: false });
    }
    expect(seen[0]!.toolResult).toBeUndefined();
    expect(seen[1]!.toolResult).toEqual(toolResult);
  });

  if (agent === 'gemini-agent') {
    it("sends Gemini's thought signature back with the call it signed, from the run's history", async () => {
      reset();
      const paused = await w.client.generate(agent, 'Weather in Lyon?');
      await w.client.approveToolCallGenerate({ runId: paused.runId });
      const parts = google.requests[1]!.body.contents.flatMap((c) => c.parts) as Array<Record<string, unknown>>;
      const replayed = parts.find((p) => 'functionCall' in p);
      expect(replayed).toMatchObject({ thoughtSignature: 'fake-signature-0' });
    });
  }

  it('streams the same run: the call, the approval it waits for, then the text', async () => {
    reset();
    const stream = await w.client.stream(agent, 'Weather in Lyon?');
    const first = await collect(stream);
    expect(first.find((c) => c.type === 'tool-call-approval')).toMatchObject({
      toolName: 'weather',
      args: { city: 'Lyon' },
    });
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'suspended' });

    const second = await collect(await w.client.approveToolCall({ runId: stream.runId }));
    expect(text(second)).toBe(TOOL_SAID);
    expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: TOOL_SAID });
    expect(requests().map((r) => r.stream)).toEqual([true, true]);
  });
});

describe("a provider's failures, read from its own error format", () => {
  it("waits out Anthropic's overload as its retry-after asks, and completes the run", async () => {
    anthropic.reset();
    anthropic.answer({ fail: { status: 529, message: 'Overloaded', headers: { 'retry-after': '1' } } });
    const paused = await w.client.generate('claude-agent', 'Weather in Lyon?');
    expect(paused.pendingToolCalls).toEqual([expect.objectContaining({ toolName: 'weather', kind: 'approval' })]);
    expect((await w.client.approveToolCallGenerate({ runId: paused.runId })).text).toBe(TOOL_SAID);
    expect(anthropic.requests).toHaveLength(3);
    expect(anthropic.requests[1]!.at - anthropic.requests[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it("does not retry Gemini's refusal of a key: the run waits with the reason, and a retry completes it", async () => {
    google.reset();
    google.answer({ fail: { status: 401, message: 'API key not valid. Please pass a valid API key.' } });
    const paused = await w.client.generate('gemini-agent', 'Weather in Lyon?');
    expect(paused.pendingToolCalls).toEqual([
      expect.objectContaining({
        toolName: '@model',
        uncertainty: 'the model provider of "google/gemini-test" refused the call (HTTP 401 unauthorized)',
      }),
    ]);
    expect(google.requests).toHaveLength(1);

    const retry = { kind: 'resolve', runId: paused.runId, action: 'retry', principal: 'ops' } as const;
    const called = await w.client.decide(retry, { then: 'result' });
    expect(called.pendingToolCalls).toEqual([expect.objectContaining({ toolName: 'weather' })]);
    expect((await w.client.approveToolCallGenerate({ runId: paused.runId })).text).toBe(TOOL_SAID);
  });
});

describe('model settings and provider options as data', () => {
  it("sends the agent's provider options and settings, with the run's own settings over them", async () => {
    anthropic.reset();
    anthropic.answer({ text: 'Thought it through.' });
    const done = await w.client.generate('thinker', 'Think.', { modelSettings: { maxOutputTokens: 3000 } });
    expect(done.text).toBe('Thought it through.');
    const body = anthropic.requests[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    // @ai-sdk/anthropic adds the thinking budget to the output tokens the run allows.
    expect(body.max_tokens).toBe(3000 + 2048);
  });

  it('refuses a run that raises what the agent bounds, before any model call', async () => {
    anthropic.reset();
    const raise = { modelSettings: { maxOutputTokens: 64_000, providerOptions: { anthropic: { thinking: {} } } } };
    const err = await w.client.generate('thinker', 'Think harder.', raise).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).failureType).toBe('RunOptionsNotAllowed');
    expect((err as Error).message).toContain(
      'modelSettings.maxOutputTokens: 64000 is more than agent "thinker" allows (4096); ' +
        'modelSettings.providerOptions: agent "thinker" owns its provider options; a run may not set them',
    );
    expect(anthropic.requests).toEqual([]);
  });
});

describe('model fallbacks', () => {
  it("answers a step with the next model when the agent's own provider fails, and says which answered", async () => {
    anthropic.reset();
    google.reset();
    anthropic.answer({ fail: { status: 503, message: 'Service unavailable' } });
    google.answer({ text: 'From Gemini.' });
    const done = await w.client.generate('resilient', 'Hello?');

    expect(done.text).toBe('From Gemini.');
    expect(done.steps[0]).toMatchObject({ text: 'From Gemini.', model: 'google/gemini-test' });
    // The fallback answered within the step's first attempt: nothing was retried.
    expect(anthropic.requests).toHaveLength(1);
    expect(google.requests).toHaveLength(1);
    const run = await w.client.getRun(done.runId);
    expect(run.modelFallbacks).toEqual([{ stepNumber: 0, model: 'google/gemini-test' }]);
    expect(runLines(run)).toContain('model step 0: answered by fallback google/gemini-test');
  });

  it("says so in the stream's step-finish", async () => {
    anthropic.reset();
    google.reset();
    anthropic.answer({ fail: { status: 429, message: 'Rate limited' } });
    google.answer({ text: 'From Gemini.' });
    const chunks = await collect(await w.client.stream('resilient', 'Hello?'));
    expect(text(chunks)).toBe('From Gemini.');
    expect(chunks.find((c) => c.type === 'step-finish')).toMatchObject({ stepNumber: 0, model: 'google/gemini-test' });
  });

  it('retries the step from its own model when every model failed in a way that passes', async () => {
    anthropic.reset();
    google.reset();
    anthropic.answer({ fail: { status: 429, message: 'Rate limited' } }, { text: 'Claude is back.' });
    google.answer({ fail: { status: 401, message: 'API key not valid.' } });
    const done = await w.client.generate('resilient', 'Hello?');

    expect(done.text).toBe('Claude is back.');
    expect(done.steps[0]!.model).toBeUndefined(); // the agent's own model answered
    expect(anthropic.requests).toHaveLength(2);
    expect(google.requests).toHaveLength(1);
    expect((await w.client.getRun(done.runId)).modelFallbacks).toBeUndefined();
  });

  it("asks the next model when the agent's own provider hangs, within the same attempt", async () => {
    compatible.reset();
    google.reset();
    compatible.answer({ hang: true });
    google.answer({ text: 'From Gemini.' });
    const done = await w.client.generate('resilient-quick', 'Hello?');
    expect(done.steps[0]).toMatchObject({ text: 'From Gemini.', model: 'google/gemini-test' });
    expect(compatible.requests).toHaveLength(1);
    expect((await w.client.getRun(done.runId)).modelFallbacks).toEqual([
      { stepNumber: 0, model: 'google/gemini-test' },
    ]);
  });

  it('asks the next model when a streamed step hears nothing, and not once the model streams', async () => {
    compatible.reset();
    google.reset();
    compatible.answer(
      { hang: true },
      { text: 'Claude writes slowly.', deltas: ['Claude ', 'writes ', 'slowly.'], gapMs: 1500 },
    );
    google.answer({ text: 'From Gemini.' });
    const hung = await collect(await w.client.stream('resilient-quick', 'Hello?'));
    expect(text(hung)).toBe('From Gemini.');
    // Gaps under the limit after the first delta: the model is answering, and answers the step.
    const slow = await collect(await w.client.stream('resilient-quick', 'Hello?'));
    expect(text(slow)).toBe('Claude writes slowly.');
    expect(slow.find((c) => c.type === 'step-finish')).not.toHaveProperty('model');
    expect(google.requests).toHaveLength(1);
  });

  it('passes over a fallback that cannot answer: the step is retried as it would be without it', async () => {
    anthropic.reset();
    anthropic.answer({ fail: { status: 429, message: 'Rate limited' } }, { text: 'Claude is back.' });
    const done = await w.client.generate('resilient-typo', 'Hello?');
    expect(done.text).toBe('Claude is back.');
    expect(anthropic.requests).toHaveLength(2);
  });

  it('has no fallbacks in a run that names its own model', async () => {
    anthropic.reset();
    google.reset();
    anthropic.answer({ fail: { status: 401, message: 'invalid x-api-key' } });
    const paused = await w.client.generate('resilient-open', 'Hello?', { model: 'anthropic/claude-test' });
    expect(paused.pendingToolCalls).toEqual([expect.objectContaining({ toolName: '@model' })]);
    expect(google.requests).toHaveLength(0);
  });
});
