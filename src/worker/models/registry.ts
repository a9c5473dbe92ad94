import { createProviderRegistry, type LanguageModel } from 'ai';
import { UnknownModelError } from '../../errors.js';
import type { Script } from '../../schemas/script.js';
import { BUILTIN_PROVIDERS, importProvider, providerEnvironment, type ModelProvider } from './providers.js';
import { ScriptedLanguageModel } from './scripted.js';

/** What a model factory gets besides the model id. */
export interface ModelContext {
  /** The run's script, for scripted models. */
  script: Script | undefined;
  /** Assistant messages that came from the run's thread, before the run's own: a script's step 0 follows them. */
  priorSteps?: number;
}

/**
 * Makes a model from the part of a model name after `<provider>/`, given the run: for models that play
 * a run's script, or fakes of your own (`createWorker({ models })`). A real provider is registered as an
 * AI SDK provider instead (`createWorker({ providers })`).
 */
export type ModelFactory = (modelId: string, context: ModelContext) => LanguageModel;

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

/** Where a worker's models come from. */
export interface ModelSources {
  /** Factories by provider name, `scripted` among them where enabled: they are asked first. */
  models?: Record<string, ModelFactory>;
  /** AI SDK providers by name (`createAnthropic({...})`, `createOpenAICompatible({...})`): before the built-in ones. */
  providers?: Record<string, ModelProvider>;
  /** Where the built-in providers' keys and base URLs are read: default `process.env`, when first used. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Resolves a run's model name (`provider/model`, or a bare provider name such as `scripted`) to an AI
 * SDK model: through the worker's factories, else through one AI SDK provider registry
 * (`createProviderRegistry`, separator `/`) of the application's providers and the built-in ones
 * ({@link BUILTIN_PROVIDERS}), whose packages are imported when a run first names them.
 */
export class ModelResolver {
  readonly #models: Record<string, ModelFactory>;
  readonly #providers: Record<string, ModelProvider>;
  readonly #env: NodeJS.ProcessEnv;
  readonly #loaded = new Map<string, Promise<ModelProvider>>();
  // The built-in providers loaded so far; the registry is made anew when one is added.
  #loadedNow: Record<string, ModelProvider> = {};
  #registry: ReturnType<typeof createProviderRegistry> | undefined;

  constructor(sources: ModelSources = {}) {
    this.#models = { ...sources.models };
    this.#providers = { ...sources.providers };
    this.#env = sources.env ?? process.env;
  }

  /** The provider names this worker resolves. */
  names(): string[] {
    return [
      ...new Set([...Object.keys(this.#models), ...Object.keys(this.#providers), ...Object.keys(BUILTIN_PROVIDERS)]),
    ];
  }

  /** The model `name` names, for a run with `context`; `UnknownModelError` where no provider has that name. */
  async resolve(name: string, context: ModelContext): Promise<LanguageModel> {
    const slash = name.indexOf('/');
    const provider = slash === -1 ? name : name.slice(0, slash);
    const modelId = slash === -1 ? '' : name.slice(slash + 1);
    const factory = Object.hasOwn(this.#models, provider) ? this.#models[provider] : undefined;
    if (factory) {
      if (slash !== -1 && !modelId) throw new UnknownModelError(name, `name a model after "${provider}/"`);
      return factory(modelId, context);
    }
    if (provider === 'scripted') {
      throw new UnknownModelError(
        name,
        'the scripted model is off on this worker: it lets whoever starts a run dictate every tool call. ' +
          'Enable it for tests and demos with createWorker({ enableScriptedModel: true }).',
      );
    }
    const own = Object.hasOwn(this.#providers, provider);
    if (!own && !Object.hasOwn(BUILTIN_PROVIDERS, provider)) {
      throw new UnknownModelError(
        name,
        `no provider "${provider}" on this worker; known: ${this.names()
          .map((p) => `"${p}"`)
          .join(', ')}. Use e.g. "openai/gpt-4o-mini", or register a provider with createWorker({ providers }).`,
      );
    }
    if (!modelId) throw new UnknownModelError(name, `name a model after "${provider}/"`);
    if (!own) await this.#load(provider);
    this.#registry ??= createProviderRegistry({ ...this.#loadedNow, ...this.#providers }, { separator: '/' });
    return this.#registry.languageModel(name as `${string}/${string}`);
  }

  async #load(name: string): Promise<void> {
    let loading = this.#loaded.get(name);
    if (!loading) {
      const builtin = BUILTIN_PROVIDERS[name]!;
      loading = importProvider(name, builtin).then((module) =>
        builtin.make(module, providerEnvironment(builtin, this.#env)),
      );
      // A failed load (a package not installed, a setting missing) is tried again on the next step.
      loading.catch(() => this.#loaded.delete(name));
      this.#loaded.set(name, loading);
    }
    const provider = await loading;
    if (this.#loadedNow[name] !== provider) {
      this.#loadedNow = { ...this.#loadedNow, [name]: provider };
      this.#registry = undefined;
    }
  }
}
