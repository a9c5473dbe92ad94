/**
 * What a provider's failure costs a run's history: a one-step run whose model answers at once, one whose
 * provider answers 429 (`retry-after: 0`) three times first (Temporal retries the activity), and one whose
 * model's provider is down and whose fallback model answers. Models of the benchmark's own, in process.
 * `npm run bench -- --only model-failures`.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { defineAgent } from '../src/index.js';
import { ScriptedLanguageModel, type ModelFactory } from '../src/worker/index.js';

/** A model whose every call fails with `error`. */
function failing(modelId: string, error: () => Error): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'bench-failing',
    modelId,
    supportedUrls: {},
    doGenerate: async () => {
      throw error();
    },
    doStream: async () => {
      throw error();
    },
  };
}

const apiError = (statusCode: number, message: string) =>
  new APICallError({
    message,
    url: 'http://bench.invalid/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: { 'retry-after': '0' },
    isRetryable: true,
  });

/** Calls so far of each `bench-429/<key>:<n>` model: the first n fail. */
const calls = new Map<string, number>();

export const failureModels: Record<string, ModelFactory> = {
  'bench-ok': () => new ScriptedLanguageModel([{ text: 'done' }]),
  'bench-down': (id) => failing(id, () => apiError(503, 'Service unavailable')),
  'bench-429': (id) => {
    const seen = calls.get(id) ?? 0;
    calls.set(id, seen + 1);
    return seen < Number(id.split(':')[1])
      ? failing(id, () => apiError(429, 'Rate limited'))
      : new ScriptedLanguageModel([{ text: 'done' }]);
  },
};

/** An agent whose own model's provider is down; its fallback answers. */
export const fallbackBenchAgent = defineAgent({
  id: 'bench-fallback-agent',
  name: 'Bench fallback',
  model: 'bench-down/x',
  fallbackModels: ['bench-ok/x'],
});
