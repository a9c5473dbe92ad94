import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';
import { UnknownModelError } from '../../errors.js';
import type { Script } from '../../schemas/script.js';
import { ScriptedLanguageModel } from './scripted.js';

/** What a model factory gets besides the model id. */
export interface ModelContext {
  /** The run's script, for scripted models. */
  script: Script | undefined;
  /** Assistant messages that came from the run's thread, before the run's own: a script's step 0 follows them. */
  priorSteps?: number;
}

/**
 * Makes a model from the part of a model name after `<provider>/`. Plug other AI SDK providers in
 * through `createWorker({ models: { anthropic: (id) => anthropic(id) } })`.
 */
export type ModelFactory = (modelId: string, context: ModelContext) => LanguageModel;

function openaiProvider() {
  return createOpenAI({
    apiKey: process.env.OPENAI_API_KEY,
    baseURL: process.env.OPENAI_BASE_URL,
  });
}

/**
 * The offline scripted model; the run's `script` option says what it answers. It lets whoever starts
 * a run dictate every tool call, so a worker has it only when enabled (`enableScriptedModel`): for
 * tests and demos.
 */
export const scriptedModel: ModelFactory = (_id, { script, priorSteps }) => {
  if (!script) {
    throw new UnknownModelError('scripted', 'the scripted model needs a script: pass `script` in the run options');
  }
  return new ScriptedLanguageModel(script, priorSteps);
};

/**
 * The built-in providers:
 * - `openai/<model>`: OpenAI's Chat Completions API through `@ai-sdk/openai`, which every
 *   OpenAI-compatible server (set `OPENAI_BASE_URL`) also speaks.
 * - `openai-responses/<model>`: OpenAI's Responses API.
 */
export const builtinModels: Record<string, ModelFactory> = {
  openai: (id) => openaiProvider().chat(id),
  'openai-responses': (id) => openaiProvider().responses(id),
};

/** Resolves a model name (`provider/model`, or a bare provider name such as `scripted`). */
export function resolveModel(
  name: string,
  context: ModelContext,
  factories: Record<string, ModelFactory>,
): LanguageModel {
  const slash = name.indexOf('/');
  const provider = slash === -1 ? name : name.slice(0, slash);
  const modelId = slash === -1 ? '' : name.slice(slash + 1);
  const factory = Object.hasOwn(factories, provider) ? factories[provider] : undefined;
  if (!factory && provider === 'scripted') {
    throw new UnknownModelError(
      name,
      'the scripted model is off on this worker: it lets whoever starts a run dictate every tool call. ' +
        'Enable it for tests and demos with createWorker({ enableScriptedModel: true }).',
    );
  }
  if (!factory) {
    throw new UnknownModelError(
      name,
      `no provider "${provider}" on this worker; known: ${Object.keys(factories)
        .map((p) => `"${p}"`)
        .join(', ')}. ` + 'Use e.g. "openai/gpt-4o-mini", or register a provider with createWorker({ models }).',
    );
  }
  if (slash !== -1 && !modelId) throw new UnknownModelError(name, `name a model after "${provider}/"`);
  return factory(modelId, context);
}
