/**
 * The built-in `webSearchTool`: the model provider's own web search. The provider runs it inside the
 * model call, so nothing of it runs on the worker; the run records what the provider searched and
 * cited. Which provider tool it becomes is decided by the model activity, from the run's model.
 */
import { WebSearchOptionsSchema, type WebSearchOptions } from '../../schemas/agent-spec.js';
import { oneLine } from '../../schemas/json.js';

export type { WebSearchOptions };

/**
 * A tool the model's provider runs itself. Register it under any key (`tools: { search: webSearchTool }`);
 * the key is its name in the run's steps and stream.
 */
export interface ProviderTool {
  readonly kind: 'provider-tool';
  /** Which native tool of the provider. */
  readonly type: 'web-search';
  readonly id: 'web_search';
  readonly description: string;
  /** The provider's options, by provider; checked, and recorded with the agent's spec. */
  readonly options: WebSearchOptions;
}

/**
 * The provider's native web search with options of your own, e.g.
 * `createWebSearchTool({ openai: { searchContextSize: 'low', filters: { allowedDomains: ['nodejs.org'] } } })`.
 * Options of a provider the run's model is not on are unused; an option no provider knows is refused.
 */
export function createWebSearchTool(options: WebSearchOptions = {}): ProviderTool {
  const parsed = WebSearchOptionsSchema.safeParse(options);
  if (!parsed.success) throw new TypeError(`createWebSearchTool: ${oneLine(parsed.error.issues)}`);
  return {
    kind: 'provider-tool',
    type: 'web-search',
    id: 'web_search',
    description: "Searches the web with the model provider's own search; run by the provider inside the model call",
    options: parsed.data,
  };
}

/**
 * The model provider's native web search: OpenAI's Responses API `web_search` (models
 * `openai-responses/<model>`, or an `@ai-sdk/openai` Responses model instance), Anthropic's `web_search`
 * (`anthropic/<model>`) or Gemini's grounding with Google Search (`google/<model>`). On any other model a
 * run that offers it fails before its first model call with `WebSearchUnavailableError`.
 */
export const webSearchTool: ProviderTool = createWebSearchTool();

/** Whether an agent's tool is one the provider runs. */
export function isProviderTool(tool: unknown): tool is ProviderTool {
  return (tool as { kind?: unknown } | null)?.kind === 'provider-tool';
}
