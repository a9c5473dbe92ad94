/** The stream figures' model: `bench-stream/N` streams N deltas 10 ms apart, each carrying the time it was emitted. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { ScriptedLanguageModel, type ModelFactory } from '../src/worker/index.js';

export const streamModels: Record<string, ModelFactory> = {
  'bench-stream': (id) => {
    const count = Number(id);
    const model: LanguageModelV4 = {
      specificationVersion: 'v4',
      provider: 'bench-stream',
      modelId: id,
      supportedUrls: {},
      doGenerate: () => new ScriptedLanguageModel([{ text: 'x' }]).doGenerate({ prompt: [] }),
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            for (let i = 0; i < count; i++) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: `${Date.now()};` });
              await sleep(10);
            }
            controller.enqueue({ type: 'text-end', id: 't' });
            const usage = {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: count, text: count, reasoning: 0 },
            };
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            controller.close();
          },
        }),
      }),
    };
    return model;
  },
};
