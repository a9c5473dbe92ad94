/**
 * The tools a model's provider runs itself, resolved from the run's model: `webSearchTool` becomes the
 * provider's native web search where the provider has one, and an error naming the provider elsewhere.
 * Each comes from the provider's own package, imported when a run first asks: the run's model came from
 * that package, so it is installed.
 */
import type { LanguageModel, Tool } from 'ai';
import { WebSearchUnavailableError } from '../../errors.js';
import type { ProviderToolSpec, WebSearchOptions } from '../../schemas/agent-spec.js';

type Options = ProviderToolSpec['options'];
// The packages' default instances, typed as far as this module calls them (they are optional peers).
type ToolFactory<K extends keyof WebSearchOptions> = (options: NonNullable<WebSearchOptions[K]>) => Tool;

/**
 * The AI SDK provider ids whose models have a native web search, and how to make it. OpenAI's
 * Responses API has `web_search`; its Chat Completions API (`openai.chat`) has no such tool. Anthropic's
 * Messages API has `web_search`; the Gemini API grounds answers with Google Search.
 */
const WEB_SEARCH: Record<string, (options: Options) => Promise<Tool>> = {
  'openai.responses': async (options) => {
    const { openai } = (await import('@ai-sdk/openai')) as { openai: { tools: { webSearch: ToolFactory<'openai'> } } };
    return openai.tools.webSearch(options.openai ?? {});
  },
  'anthropic.messages': async (options) => {
    const { anthropic } = (await import('@ai-sdk/anthropic')) as {
      anthropic: { tools: { webSearch_20250305: ToolFactory<'anthropic'> } };
    };
    return anthropic.tools.webSearch_20250305(options.anthropic ?? {});
  },
  'google.generative-ai': async (options) => {
    const { google } = (await import('@ai-sdk/google')) as {
      google: { tools: { googleSearch: ToolFactory<'google'> } };
    };
    return google.tools.googleSearch(options.google ?? {});
  },
};

/** The AI SDK provider id of a model (`openai.responses`, `openai.chat`, `scripted`, ...). */
export function providerIdOf(model: LanguageModel): string {
  return typeof model === 'string' ? model : model.provider;
}

/**
 * The provider tool for the run's model. Throws {@link WebSearchUnavailableError} where the model's
 * provider has none: a run that offers a web search must not go on without one.
 */
export async function nativeProviderTool(
  model: LanguageModel,
  spec: ProviderToolSpec,
  call: { toolName: string; modelName: string | undefined },
): Promise<Tool> {
  const provider = providerIdOf(model);
  const make = Object.hasOwn(WEB_SEARCH, provider) ? WEB_SEARCH[provider] : undefined;
  if (!make) throw new WebSearchUnavailableError(call.toolName, call.modelName, provider);
  return make(spec.options);
}
