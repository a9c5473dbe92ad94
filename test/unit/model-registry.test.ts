import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { defineAgent, UnknownModelError } from '../../src/index.js';
import { BUILTIN_PROVIDERS, ModelResolver, ScriptedLanguageModel } from '../../src/worker/index.js';
import { importProvider } from '../../src/worker/models/providers.js';
import { scriptedModel } from '../../src/worker/models/registry.js';

const none = { script: undefined };
const builtins = () => new ModelResolver({ env: {} });
const withScripted = () => new ModelResolver({ models: { scripted: scriptedModel }, env: {} });

describe('ModelResolver', () => {
  it('resolves scripted with the run script where the worker enabled it', async () => {
    await expect(withScripted().resolve('scripted', { script: [{ text: 'x' }] })).resolves.toBeInstanceOf(
      ScriptedLanguageModel,
    );
  });
  it('refuses the scripted model on a worker that did not enable it, saying why and how', async () => {
    await expect(builtins().resolve('scripted', { script: [{ text: 'x' }] })).rejects.toThrow(
      /the scripted model is off on this worker: it lets whoever starts a run dictate every tool call. .*enableScriptedModel: true/,
    );
  });
  it('refuses the scripted model without a script', async () => {
    await expect(withScripted().resolve('scripted', none)).rejects.toThrow(
      'Unknown model "scripted": the scripted model needs a script: pass `script` in the run options',
    );
  });

  it.each([
    ['openai/gpt-4o-mini', 'openai.chat', 'gpt-4o-mini'],
    ['openai-responses/gpt-4o-mini', 'openai.responses', 'gpt-4o-mini'],
    ['anthropic/claude-sonnet-4-5', 'anthropic.messages', 'claude-sonnet-4-5'],
    ['google/gemini-2.5-flash', 'google.generative-ai', 'gemini-2.5-flash'],
  ])('resolves %s through its AI SDK package', async (name, provider, modelId) => {
    await expect(builtins().resolve(name, none)).resolves.toMatchObject({ provider, modelId });
  });

  it('resolves openai-compatible/<model> at OPENAI_COMPATIBLE_BASE_URL, keeping slashes in the model id', async () => {
    const resolver = new ModelResolver({ env: { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' } });
    await expect(resolver.resolve('openai-compatible/meta-llama/Llama-3.1-8B', none)).resolves.toMatchObject({
      provider: 'openai-compatible.chat',
      modelId: 'meta-llama/Llama-3.1-8B',
    });
  });

  it('says which setting an openai-compatible model lacks, as a setting the worker lacks (the run waits)', async () => {
    const failure = builtins().resolve('openai-compatible/llama3.2', none);
    await expect(failure).rejects.toMatchObject({ name: 'AI_LoadSettingError' });
    await expect(failure).rejects.toThrow(/set OPENAI_COMPATIBLE_BASE_URL/);
  });

  it('names a provider package the worker does not have, and how to install it, as a setting it lacks', async () => {
    const absent = { ...BUILTIN_PROVIDERS.anthropic!, package: '@ai-sdk/not-installed-here' };
    const failure = importProvider('absent', absent);
    await expect(failure).rejects.toMatchObject({ name: 'AI_LoadSettingError' });
    await expect(failure).rejects.toThrow(
      'the "absent" provider needs the package @ai-sdk/not-installed-here, which this worker does not have: ' +
        'install it (npm install @ai-sdk/not-installed-here) and restart the worker',
    );
  });

  it('reads each provider’s key and base URL from its own variables', () => {
    expect(
      Object.fromEntries(
        Object.entries(BUILTIN_PROVIDERS).map(([name, p]) => [name, [p.apiKeyVariable, p.baseURLVariable]]),
      ),
    ).toEqual({
      openai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
      'openai-responses': ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
      anthropic: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
      google: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GOOGLE_GENERATIVE_AI_BASE_URL'],
      'openai-compatible': ['OPENAI_COMPATIBLE_API_KEY', 'OPENAI_COMPATIBLE_BASE_URL'],
    });
  });

  it("resolves the application's providers by name, before a built-in one of the same name", async () => {
    const ollama = createOpenAICompatible({ name: 'ollama', baseURL: 'http://127.0.0.1:11434/v1' });
    const mine = createOpenAICompatible({ name: 'my-openai', baseURL: 'http://127.0.0.1:8000/v1' });
    const resolver = new ModelResolver({ providers: { ollama, openai: mine }, env: {} });
    await expect(resolver.resolve('ollama/llama3.2', none)).resolves.toMatchObject({
      provider: 'ollama.chat',
      modelId: 'llama3.2',
    });
    await expect(resolver.resolve('openai/gpt-4o', none)).resolves.toMatchObject({ provider: 'my-openai.chat' });
    expect(resolver.names()).toEqual(expect.arrayContaining(['ollama', 'openai', 'anthropic', 'google']));
  });

  it('refuses an unknown provider, naming the known ones', async () => {
    await expect(builtins().resolve('acme/x', none)).rejects.toThrow(UnknownModelError);
    await expect(builtins().resolve('acme/x', none)).rejects.toThrow(
      /known: "openai", "openai-responses", "anthropic", "google", "openai-compatible"/,
    );
  });
  it('refuses names that are not a provider of its own, however spelt', async () => {
    for (const name of ['__proto__/x', 'constructor/x', 'toString/x', 'hasOwnProperty']) {
      await expect(builtins().resolve(name, none)).rejects.toThrow(UnknownModelError);
    }
  });
  it('refuses a provider with no model id', async () => {
    await expect(builtins().resolve('openai/', none)).rejects.toThrow(
      'Unknown model "openai/": name a model after "openai/"',
    );
    await expect(builtins().resolve('anthropic', none)).rejects.toThrow(
      'Unknown model "anthropic": name a model after "anthropic/"',
    );
  });
});

describe('fallbackModels', () => {
  const agent = (fallbackModels: unknown) =>
    defineAgent({ id: 'a', name: 'a', model: 'openai/gpt-4o', fallbackModels: fallbackModels as string[] });

  it('takes up to 4 distinct model names', () => {
    expect(agent(['anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash']).fallbackModels).toEqual([
      'anthropic/claude-sonnet-4-5',
      'google/gemini-2.5-flash',
    ]);
  });
  it('refuses what is not a list of model names, naming the entry', () => {
    expect(() => agent('anthropic/claude')).toThrow('defineAgent("a"): fallbackModels must be an array of model names');
    expect(() => agent(['claude'])).toThrow(
      'defineAgent("a"): fallbackModels: "claude" is not a model name such as "anthropic/claude-sonnet-4-5"',
    );
    expect(() => agent(['openai/gpt-4o'])).toThrow(
      `defineAgent("a"): fallbackModels: "openai/gpt-4o" is named twice (or is the agent's model)`,
    );
    expect(() => agent(['a/1', 'a/2', 'a/3', 'a/4', 'a/5'])).toThrow(
      'defineAgent("a"): fallbackModels has 5 models; at most 4',
    );
  });
});
