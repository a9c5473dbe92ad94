/**
 * The model providers a worker knows by name without being told: each an AI SDK provider package,
 * imported only when a run first names it, so that a worker pays for (and needs installed) only the
 * providers its agents use. Keys and base URLs come from the environment, one pair per provider.
 */
import type { LanguageModelV4, ProviderV3, ProviderV4 } from '@ai-sdk/provider';
import { LoadSettingError } from 'ai';

/** An AI SDK provider, as `createProviderRegistry` takes it. */
export type ModelProvider = ProviderV4 | ProviderV3;

/** What the environment says of one provider. */
export interface ProviderEnvironment {
  apiKey: string | undefined;
  baseURL: string | undefined;
}

/** A provider the worker knows by name: the package it comes from, and where its settings are read. */
export interface BuiltinProvider {
  /** The npm package, an optional peer of this one. */
  package: string;
  /** The environment variable of its API key. */
  apiKeyVariable: string;
  /** The environment variable of its base URL. */
  baseURLVariable: string;
  /** Makes the provider from its package's module and its settings. */
  make(module: unknown, settings: ProviderEnvironment): ModelProvider;
}

/** Only the language models of `languageModel`: for a package whose default is another API. */
function languageModelsOnly(languageModel: (id: string) => LanguageModelV4): ProviderV4 {
  return {
    specificationVersion: 'v4',
    languageModel,
    embeddingModel: (id) => {
      throw new LoadSettingError({ message: `this provider makes language models only, not "${id}"` });
    },
    imageModel: (id) => {
      throw new LoadSettingError({ message: `this provider makes language models only, not "${id}"` });
    },
  };
}

// The packages' factories, typed as far as this module calls them: the packages are optional, so their
// types cannot be named here without making every build need them.
type Factory<P> = (settings: { apiKey?: string; baseURL?: string; name?: string }) => P;
interface OpenAIModule {
  createOpenAI: Factory<{ chat(id: string): unknown; responses(id: string): unknown }>;
}

/** `@ai-sdk/openai` through one of its APIs: Chat Completions (which many servers speak) or Responses. */
function openAI(api: 'chat' | 'responses'): BuiltinProvider {
  return {
    package: '@ai-sdk/openai',
    apiKeyVariable: 'OPENAI_API_KEY',
    baseURLVariable: 'OPENAI_BASE_URL',
    make: (module, settings) => {
      const openai = (module as OpenAIModule).createOpenAI(defined(settings));
      return languageModelsOnly((id) => openai[api](id) as LanguageModelV4);
    },
  };
}

function defined(settings: ProviderEnvironment): { apiKey?: string; baseURL?: string } {
  return {
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
  };
}

/**
 * The providers by the name a model string starts with (`anthropic/claude-sonnet-4-5`):
 * - `openai/<model>`: OpenAI's Chat Completions API (`@ai-sdk/openai`), which many servers also speak;
 * - `openai-responses/<model>`: OpenAI's Responses API (`@ai-sdk/openai`);
 * - `anthropic/<model>`: Anthropic's Messages API (`@ai-sdk/anthropic`);
 * - `google/<model>`: the Gemini API (`@ai-sdk/google`);
 * - `openai-compatible/<model>`: a local or hosted OpenAI-compatible server (vLLM, Ollama, LM Studio) at
 *   `OPENAI_COMPATIBLE_BASE_URL` (`@ai-sdk/openai-compatible`). Name several with `createWorker({ providers })`.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, BuiltinProvider>> = Object.freeze({
  openai: openAI('chat'),
  'openai-responses': openAI('responses'),
  anthropic: {
    package: '@ai-sdk/anthropic',
    apiKeyVariable: 'ANTHROPIC_API_KEY',
    baseURLVariable: 'ANTHROPIC_BASE_URL',
    make: (module, settings) =>
      (module as { createAnthropic: Factory<ModelProvider> }).createAnthropic(defined(settings)),
  },
  google: {
    package: '@ai-sdk/google',
    apiKeyVariable: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseURLVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    make: (module, settings) =>
      (module as { createGoogleGenerativeAI: Factory<ModelProvider> }).createGoogleGenerativeAI(defined(settings)),
  },
  'openai-compatible': {
    package: '@ai-sdk/openai-compatible',
    apiKeyVariable: 'OPENAI_COMPATIBLE_API_KEY',
    baseURLVariable: 'OPENAI_COMPATIBLE_BASE_URL',
    make: (module, settings) => {
      if (!settings.baseURL) {
        throw new LoadSettingError({
          message:
            "the openai-compatible provider needs the server's base URL: set OPENAI_COMPATIBLE_BASE_URL " +
            '(e.g. http://localhost:11434/v1 for Ollama), or register the server with createWorker({ providers })',
        });
      }
      return (module as { createOpenAICompatible: Factory<ModelProvider> }).createOpenAICompatible({
        name: 'openai-compatible',
        ...defined(settings),
      });
    },
  },
});

/** Imports a provider's package; a package that is not installed is a setting the worker lacks. */
export async function importProvider(name: string, provider: BuiltinProvider): Promise<unknown> {
  try {
    // The packages are optional peers: a worker that names none of a provider's models needs none of them.
    return await import(provider.package);
  } catch (err) {
    const missing = (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    if (!missing || !String((err as Error).message).includes(provider.package)) throw err;
    throw new LoadSettingError({
      message:
        `the "${name}" provider needs the package ${provider.package}, which this worker does not have: ` +
        `install it (npm install ${provider.package}) and restart the worker`,
    });
  }
}

/** A provider's settings, as the environment gives them now. */
export function providerEnvironment(provider: BuiltinProvider, env: NodeJS.ProcessEnv): ProviderEnvironment {
  return { apiKey: env[provider.apiKeyVariable] || undefined, baseURL: env[provider.baseURLVariable] || undefined };
}
