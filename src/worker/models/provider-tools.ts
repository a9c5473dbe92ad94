/**
 * The tools a model's provider runs itself, resolved from the run's model: `webSearchTool` becomes the
 * provider's native web search where the provider has one, and an error naming the provider elsewhere.
 */
import { openai } from '@ai-sdk/openai';
import type { LanguageModel, Tool } from 'ai';
import { WebSearchUnavailableError } from '../../errors.js';
import type { ProviderToolSpec } from '../../schemas/agent-spec.js';

/**
 * The AI SDK provider ids whose models have a native web search, and how to make it. OpenAI's
 * Responses API has `web_search`; its Chat Completions API (`openai.chat`) has no such tool.
 */
const WEB_SEARCH: Record<string, (options: ProviderToolSpec['options']) => Tool> = {
  'openai.responses': (options) => openai.tools.webSearch(options.openai ?? {}),
};

/** The AI SDK provider id of a model (`openai.responses`, `openai.chat`, `scripted`, ...). */
export function providerIdOf(model: LanguageModel): string {
  return typeof model === 'string' ? model : model.provider;
}

/**
 * The provider tool for the run's model. Throws {@link WebSearchUnavailableError} where the model's
 * provider has none: a run that offers a web search must not go on without one.
 */
export function nativeProviderTool(
  model: LanguageModel,
  spec: ProviderToolSpec,
  call: { toolName: string; modelName: string | undefined },
): Tool {
  const provider = providerIdOf(model);
  const make = Object.hasOwn(WEB_SEARCH, provider) ? WEB_SEARCH[provider] : undefined;
  if (!make) throw new WebSearchUnavailableError(call.toolName, call.modelName, provider);
  return make(spec.options);
}
