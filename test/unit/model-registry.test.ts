import { describe, expect, it } from 'vitest';
import { UnknownModelError } from '../../src/index.js';
import { builtinModels, resolveModel, ScriptedLanguageModel } from '../../src/worker/index.js';
import { scriptedModel } from '../../src/worker/models/registry.js';

const withScripted = { ...builtinModels, scripted: scriptedModel };

describe('resolveModel', () => {
  it('resolves scripted with the run script where the worker enabled it', () => {
    expect(resolveModel('scripted', { script: [{ text: 'x' }] }, withScripted)).toBeInstanceOf(ScriptedLanguageModel);
  });
  it('refuses the scripted model on a worker that did not enable it, saying why and how', () => {
    expect(() => resolveModel('scripted', { script: [{ text: 'x' }] }, builtinModels)).toThrow(
      /the scripted model is off on this worker: it lets whoever starts a run dictate every tool call. .*enableScriptedModel: true/,
    );
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
    expect(() => resolveModel('scripted', { script: undefined }, withScripted)).toThrow(
      'Unknown model "scripted": the scripted model needs a script: pass `script` in the run options',
    );
  });
  it('refuses an unknown provider, naming the known ones', () => {
    expect(() => resolveModel('acme/x', { script: undefined }, builtinModels)).toThrow(UnknownModelError);
    expect(() => resolveModel('acme/x', { script: undefined }, builtinModels)).toThrow(
      /known: "openai", "openai-responses"/,
    );
  });
  it('refuses a provider with no model id', () => {
    expect(() => resolveModel('openai/', { script: undefined }, builtinModels)).toThrow(
      'Unknown model "openai/": name a model after "openai/"',
    );
  });
});
