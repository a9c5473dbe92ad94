import { describe, expect, it } from 'vitest';
import { builtinModels, resolveModel, ScriptedLanguageModel, UnknownModelError } from '../../src/index.js';

describe('resolveModel', () => {
  it('resolves scripted with the run script', () => {
    expect(resolveModel('scripted', { script: [{ text: 'x' }] }, builtinModels)).toBeInstanceOf(ScriptedLanguageModel);
  });
  it('resolves openai/<model> to the Chat Completions model of @ai-sdk/openai', () => {
    const model = resolveModel('openai/gpt-4o-mini', { script: undefined }, builtinModels);
    expect(model).toMatchObject({ provider: 'openai.chat', modelId: 'gpt-4o-mini' });
  });
  it('resolves openai-responses/<model> to the Responses API', () => {
    const model = resolveModel('openai-responses/gpt-4o-mini', { script: undefined }, builtinModels);
    expect(model).toMatchObject({ provider: 'openai.responses', modelId: 'gpt-4o-mini' });
  });
  it('refuses the scripted model without a script', () => {
    expect(() => resolveModel('scripted', { script: undefined }, builtinModels)).toThrow(
      'Unknown model "scripted": the scripted model needs a script: pass `script` in the run options',
    );
  });
  it('refuses an unknown provider, naming the known ones', () => {
    expect(() => resolveModel('acme/x', { script: undefined }, builtinModels)).toThrow(UnknownModelError);
    expect(() => resolveModel('acme/x', { script: undefined }, builtinModels)).toThrow(
      /known: "scripted", "openai", "openai-responses"/,
    );
  });
  it('refuses a provider with no model id', () => {
    expect(() => resolveModel('openai/', { script: undefined }, builtinModels)).toThrow(
      'Unknown model "openai/": name a model after "openai/"',
    );
  });
});
