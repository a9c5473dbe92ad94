/**
 * The pure parts of `webSearchTool`: its options, what an agent may not ask of it, its spec, the run
 * policy, which provider tool a model gets, what the run records of a provider's calls, and how the
 * stream and the UI message stream show them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeAgent } from '../../src/worker/activities/describe-agent.js';
import { providerResults } from '../../src/worker/activities/model/provider-calls.js';
import { effectiveRunOptions } from '../../src/approvals/policy.js';
import {
  createTool,
  createWebSearchTool,
  defineAgent,
  WebSearchUnavailableError,
  webSearchTool,
  type AgentConfig,
} from '../../src/index.js';
import { ScriptedLanguageModel } from '../../src/worker/index.js';
import { UiChunkMapper } from '../../src/server/index.js';
import { nativeProviderTool } from '../../src/worker/models/provider-tools.js';
import { AgentRegistry } from '../../src/worker/registry.js';
import { MAX_DATA_BYTES } from '../../src/schemas/limits.js';
import { SOURCE_LIMITS } from '../../src/schemas/run-result.js';
import { offeredTools, stepRecord } from '../../src/workflows/run/transcript.js';

const lookup = createTool({
  id: 'lookup',
  description: 'Looks up',
  inputSchema: z.object({ q: z.string() }),
  execute: ({ q }) => q,
});

const base: AgentConfig = {
  id: 'researcher',
  name: 'Researcher',
  instructions: 'Search.',
  model: 'openai-responses/gpt-test',
  tools: { search: webSearchTool, lookup },
};

describe('createWebSearchTool', () => {
  it("takes the provider's options, and refuses one it does not know", () => {
    const tool = createWebSearchTool({ openai: { searchContextSize: 'high', filters: { allowedDomains: ['a.org'] } } });
    expect(tool).toMatchObject({ kind: 'provider-tool', type: 'web-search', id: 'web_search' });
    expect(tool.options).toEqual({ openai: { searchContextSize: 'high', filters: { allowedDomains: ['a.org'] } } });
    expect(() => createWebSearchTool({ openai: { searchContextSize: 'huge' as 'low' } })).toThrow(
      'createWebSearchTool: openai.searchContextSize: Invalid option: expected one of "low"|"medium"|"high"',
    );
    expect(() => createWebSearchTool({ bing: {} } as never)).toThrow('createWebSearchTool: Unrecognized key: "bing"');
    expect(() => createWebSearchTool({ anthropic: { maxUses: 3, safeSearch: true } } as never)).toThrow(
      'createWebSearchTool: anthropic: Unrecognized key: "safeSearch"',
    );
    expect(() => createWebSearchTool({ anthropic: { allowedDomains: ['a.org'], blockedDomains: ['b.org'] } })).toThrow(
      'createWebSearchTool: anthropic: set allowedDomains or blockedDomains, not both',
    );
  });
});

describe('defineAgent with webSearchTool', () => {
  it('takes it under any key', () => {
    expect(defineAgent(base).tools.search).toBe(webSearchTool);
  });

  it('refuses an approval policy over it, a beforeToolCall hook, agent transcript transforms and access rules', () => {
    const refusals: Array<[Partial<AgentConfig>, RegExp]> = [
      [
        { defaultOptions: { requireToolApproval: true } },
        /defaultOptions.requireToolApproval asks to approve every tool call, but tools.search is webSearchTool, which the model's provider runs inside the model call, where no approval can stop it/,
      ],
      [{ hooks: { beforeToolCall: () => undefined } }, /hooks.beforeToolCall may skip any call, but tools.search/],
      [{ transform: { transcript: { output: () => 'x' } } }, /transform.transcript \(output\) applies to every call/],
      [{ access: { tools: { search: { decide: ['role:ops'] } } } }, /access.tools.search says who decides/],
      [
        { tools: { search: webSearchTool, again: createWebSearchTool() } },
        /tools search, again are each webSearchTool/,
      ],
      [
        { tools: { search: { ...webSearchTool, requireApproval: true } as never } },
        /tools.search \(webSearchTool\): unknown option "requireApproval"/,
      ],
    ];
    for (const [change, message] of refusals) {
      expect(() => defineAgent({ ...base, ...change })).toThrow(message);
    }
  });

  it('takes an approval policy that leaves it out, an afterToolCall hook and display transforms', () => {
    expect(() =>
      defineAgent({
        ...base,
        defaultOptions: { requireToolApproval: true, activeTools: ['lookup'] },
        hooks: { afterToolCall: () => undefined },
        transform: { display: { output: () => 'x' } },
      }),
    ).not.toThrow();
  });
});

describe("the agent's spec and the run policy", () => {
  const agent = defineAgent({ ...base, transform: { display: { output: () => 'x' } } });
  const spec = describeAgent(new AgentRegistry([agent]), { agentId: 'researcher' });

  it('records the web search as a provider tool, with its options and the display stages', () => {
    expect(spec.tools[0]).toEqual({
      name: 'search',
      id: 'web_search',
      kind: 'provider',
      description: webSearchTool.description,
      inputSchema: { type: 'object', properties: {} },
      requireApproval: false,
      provider: { type: 'web-search', options: {} },
      transform: { display: ['output'], transcript: [] },
    });
    expect(offeredTools(spec, undefined)[0]).toEqual({
      name: 'search',
      description: webSearchTool.description,
      inputSchema: { type: 'object', properties: {} },
      provider: { type: 'web-search', options: {} },
    });
    expect(offeredTools(spec, undefined)[1]).not.toHaveProperty('provider');
  });

  it('refuses a run that approves every call while it offers the search, and not one that leaves it out', () => {
    expect(effectiveRunOptions(spec, { requireToolApproval: true })).toEqual({
      allowed: false,
      problems: [expect.stringMatching(/^requireToolApproval: this run approves every tool call, but tool "search"/)],
    });
    expect(effectiveRunOptions(spec, { requireToolApproval: true, activeTools: ['lookup'] })).toMatchObject({
      allowed: true,
    });
    expect(effectiveRunOptions(spec, {})).toMatchObject({ allowed: true });
  });
});

describe('nativeProviderTool', () => {
  const openai = createOpenAI({ apiKey: 'sk-test' });
  const spec = { type: 'web-search' as const, options: { openai: { searchContextSize: 'low' as const } } };

  it("is OpenAI's web_search on the Responses API, with the options", async () => {
    const tool = await nativeProviderTool(openai.responses('gpt-test'), spec, {
      toolName: 'search',
      modelName: undefined,
    });
    expect(tool).toMatchObject({ type: 'provider', id: 'openai.web_search', args: { searchContextSize: 'low' } });
  });

  it("is Anthropic's web_search and Gemini's Google Search, each with its own options", async () => {
    const options = {
      openai: { searchContextSize: 'low' as const },
      anthropic: { maxUses: 3, allowedDomains: ['nodejs.org'] },
      google: { timeRangeFilter: { startTime: '2026-01-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' } },
    };
    const both = { type: 'web-search' as const, options };
    const call = { toolName: 'search', modelName: undefined };
    const claude = createAnthropic({ apiKey: 'sk-ant-test' })('claude-test');
    await expect(nativeProviderTool(claude, both, call)).resolves.toMatchObject({
      type: 'provider',
      id: 'anthropic.web_search_20250305',
      args: { maxUses: 3, allowedDomains: ['nodejs.org'] },
    });
    const gemini = createGoogleGenerativeAI({ apiKey: 'test' })('gemini-test');
    await expect(nativeProviderTool(gemini, both, call)).resolves.toMatchObject({
      type: 'provider',
      id: 'google.google_search',
      args: { timeRangeFilter: options.google.timeRangeFilter },
    });
  });

  it('is an error naming the provider, the model and what to use on any other model', async () => {
    const chat = () => nativeProviderTool(openai.chat('gpt-test'), spec, { toolName: 'search', modelName: 'openai/x' });
    await expect(chat()).rejects.toThrow(WebSearchUnavailableError);
    await expect(chat()).rejects.toThrow(
      /the run's model "openai\/x" \(AI SDK provider "openai.chat"\) has no native web search/,
    );
    const scripted = new ScriptedLanguageModel([{ text: 'x' }]);
    await expect(nativeProviderTool(scripted, spec, { toolName: 'web', modelName: undefined })).rejects.toThrow(
      /Tool "web" is webSearchTool.*model instance of provider "scripted".*"openai-responses\/<model>".*"anthropic\/<model>" or "google\/<model>"/,
    );
  });
});

describe("what the run records of the provider's calls", () => {
  const search = { toolCallId: 'ws_1', toolName: 'search' };

  it('takes the calls the provider ran, with their results, and the URL sources, each once', () => {
    const recorded = providerResults('run-1', [
      { type: 'text', text: 'hi' } as never,
      { type: 'tool-call', ...search, input: {}, providerExecuted: true },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'x' } },
      { type: 'tool-result', ...search, output: { action: { type: 'search', query: 'q' } }, providerExecuted: true },
      { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.org/', title: 'A' },
      { type: 'source', sourceType: 'url', id: 's2', url: 'https://a.org/', title: 'A again' },
      { type: 'source', sourceType: 'document', id: 's3', title: 'file.txt' },
    ]);
    expect(recorded).toEqual({
      providerCalls: [
        {
          ...search,
          args: {},
          fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
          outcome: { type: 'result', output: { action: { type: 'search', query: 'q' } } },
        },
      ],
      sources: [{ sourceType: 'url', id: 's1', url: 'https://a.org/', title: 'A' }],
    });
    expect(providerResults('run-1', [{ type: 'text' }])).toEqual({});
  });

  it('records a failed search, a missing result and an output too large as errors', () => {
    const failed = providerResults('r', [
      { type: 'tool-call', ...search, input: {}, providerExecuted: true },
      { type: 'tool-error', ...search, error: { status: 'failed' }, providerExecuted: true },
      { type: 'tool-call', toolCallId: 'ws_2', toolName: 'search', input: {}, providerExecuted: true },
      { type: 'tool-call', toolCallId: 'ws_3', toolName: 'search', input: {}, providerExecuted: true },
      {
        type: 'tool-result',
        toolCallId: 'ws_3',
        toolName: 'search',
        output: 'x'.repeat(MAX_DATA_BYTES),
        providerExecuted: true,
      },
    ]);
    expect(failed.providerCalls?.map((c) => c.outcome)).toEqual([
      { type: 'error', error: 'The provider reports that the call failed: {"status":"failed"}' },
      { type: 'error', error: 'The provider sent no result for this call.' },
      {
        type: 'error',
        error: expect.stringMatching(
          /^The provider's result of "search" is 257 KiB of JSON, over 256 KiB; the run does not keep it.$/,
        ),
      },
    ]);
  });

  it('keeps at most 100 sources a step, drops URLs over the bound and clips titles', () => {
    const long = `https://a.org/${'x'.repeat(SOURCE_LIMITS.urlChars)}`;
    const parts = [
      { type: 'source', sourceType: 'url', id: 'long', url: long },
      { type: 'source', sourceType: 'url', id: 'titled', url: 'https://t.org/', title: 't'.repeat(1000) },
      ...Array.from({ length: 150 }, (_, i) => ({
        type: 'source',
        sourceType: 'url',
        id: `s${i}`,
        url: `https://s/${i}`,
      })),
    ];
    const { sources } = providerResults('r', parts);
    expect(sources).toHaveLength(SOURCE_LIMITS.perStep);
    expect(sources?.[0]).toMatchObject({ id: 'titled', url: 'https://t.org/' });
    expect(sources?.[0]?.title).toHaveLength(SOURCE_LIMITS.titleChars);
    expect(sources?.some((s) => s.url === long)).toBe(false);
  });

  it("puts the provider's calls first in the step, marked, with the sources", () => {
    const step = stepRecord(
      0,
      {
        text: 'ok',
        toolCalls: [{ toolCallId: 'call_1', toolName: 'lookup', args: { q: 'x' }, fingerprint: 'f2' }],
        providerCalls: [
          { ...search, args: {}, fingerprint: 'f1', outcome: { type: 'error', error: 'The provider reports ...' } },
        ],
        sources: [{ sourceType: 'url', id: 's1', url: 'https://a.org/' }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        assistantMessages: [],
      },
      [
        {
          call: { toolCallId: 'call_1', toolName: 'lookup', args: { q: 'x' }, fingerprint: 'f2' },
          result: { type: 'result', output: 'x', modelOutput: { type: 'text', value: 'x' } },
        },
      ],
    );
    expect(step.toolCalls).toEqual([
      { ...search, args: {}, providerExecuted: true },
      { toolCallId: 'call_1', toolName: 'lookup', args: { q: 'x' } },
    ]);
    expect(step.toolResults).toEqual([
      { ...search, isError: true, error: 'The provider reports ...', providerExecuted: true },
      { toolCallId: 'call_1', toolName: 'lookup', isError: false, output: 'x' },
    ]);
    expect(step.sources).toEqual([{ sourceType: 'url', id: 's1', url: 'https://a.org/' }]);
  });
});

describe('the UI message stream', () => {
  it("marks a provider's call and maps sources to source-url parts", () => {
    const mapper = new UiChunkMapper('run-1');
    const at = { stepNumber: 0, offset: 0 };
    const search = { toolCallId: 'ws_1', toolName: 'search', providerExecuted: true as const };
    expect(mapper.map({ type: 'tool-input-start', ...at, attempt: 1, ...search })).toEqual([
      { type: 'tool-input-start', toolCallId: 'ws_1', toolName: 'search', providerExecuted: true },
    ]);
    expect(mapper.map({ type: 'tool-call', ...at, ...search, args: {}, fingerprint: 'f' })).toEqual([
      { type: 'tool-input-available', toolCallId: 'ws_1', toolName: 'search', input: {}, providerExecuted: true },
    ]);
    expect(mapper.map({ type: 'tool-result', offset: 1, ...search, output: { a: 1 } })).toEqual([
      { type: 'tool-output-available', toolCallId: 'ws_1', output: { a: 1 }, providerExecuted: true },
    ]);
    expect(mapper.map({ type: 'tool-error', offset: 1, ...search, error: 'failed', declined: false })).toEqual([
      { type: 'tool-output-error', toolCallId: 'ws_1', errorText: 'failed', providerExecuted: true },
    ]);
    expect(
      mapper.map({ type: 'source', ...at, sourceType: 'url', id: 's1', url: 'https://a.org/', title: 'A' }),
    ).toEqual([{ type: 'source-url', sourceId: 's1', url: 'https://a.org/', title: 'A' }]);
    expect(mapper.map({ type: 'source', ...at, sourceType: 'url', id: 's2', url: 'https://b.org/' })).toEqual([
      { type: 'source-url', sourceId: 's2', url: 'https://b.org/' },
    ]);
  });
});
