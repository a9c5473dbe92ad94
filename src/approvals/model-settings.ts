/**
 * A run's model settings against its agent's: the agent's are defaults a run changes key by key, its
 * `maxOutputTokens` a ceiling a run may only lower, and its provider options its own unless it lets runs
 * set them (`overridable: ['providerOptions']`). Pure; sandbox-safe.
 */
import type { AgentSpec } from '../schemas/agent-spec.js';
import type { ModelSettings, ProviderOptions } from '../schemas/run-options.js';

/** What is wrong with the model settings a run asks for, given its agent's; empty when nothing is. */
export function modelSettingsProblems(spec: AgentSpec, run: ModelSettings | undefined): string[] {
  if (!run) return [];
  const agent = spec.defaultOptions?.modelSettings ?? {};
  const problems: string[] = [];
  const ceiling = agent.maxOutputTokens;
  if (ceiling !== undefined && run.maxOutputTokens !== undefined && run.maxOutputTokens > ceiling) {
    problems.push(
      `modelSettings.maxOutputTokens: ${run.maxOutputTokens} is more than agent "${spec.id}" allows (${ceiling})`,
    );
  }
  // The agent's own, sent back as they are (a client that echoes what it read), are no change.
  if (run.providerOptions === undefined || sameJson(run.providerOptions, agent.providerOptions)) return problems;
  const may = spec.overridable ?? [];
  if (!may.includes('providerOptions')) {
    problems.push(
      `modelSettings.providerOptions: agent "${spec.id}" owns its provider options; a run may not set them ` +
        `(the agent allows: ${may.join(', ') || 'none'})`,
    );
    return problems;
  }
  return [...problems, ...forbiddenProviderOptions(run.providerOptions)];
}

/**
 * Provider options no run may set, whatever the agent allows: they give the provider tools it runs itself,
 * which no approval can stop (Anthropic's MCP servers and code container), or reach state beyond the run
 * (OpenAI's stored responses and conversations, Gemini's cached contents). An agent may set them itself.
 */
const RUN_FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['mcpServers', 'container'],
  openai: ['previousResponseId', 'conversation'],
  google: ['cachedContent'],
};

function forbiddenProviderOptions(options: ProviderOptions | undefined): string[] {
  return Object.entries(options ?? {}).flatMap(([provider, set]) =>
    (Object.hasOwn(RUN_FORBIDDEN, provider) ? RUN_FORBIDDEN[provider]! : [])
      .filter((key) => Object.hasOwn(set, key))
      .map(
        (key) =>
          `modelSettings.providerOptions.${provider}.${key}: a run may not set it, whatever its agent allows ` +
          '(it gives the provider tools no approval stops, or reaches state beyond the run); set it on the agent',
      ),
  );
}

/**
 * The model settings a run goes with: the agent's, with the run's over them key by key, and the run's
 * provider options over the agent's option by option within each provider.
 */
export function mergedModelSettings(
  agent: ModelSettings | undefined,
  run: ModelSettings | undefined,
): ModelSettings | undefined {
  if (!agent || !run) return run ?? agent;
  const providerOptions = mergedProviderOptions(agent.providerOptions, run.providerOptions);
  return { ...agent, ...run, ...(providerOptions ? { providerOptions } : {}) };
}

function mergedProviderOptions(
  agent: ProviderOptions | undefined,
  run: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (!agent || !run) return run ?? agent;
  const own = (options: ProviderOptions, provider: string) =>
    Object.hasOwn(options, provider) ? options[provider] : {};
  // Built as entries, so that a provider named "__proto__" is a key like any other.
  const providers = [...new Set([...Object.keys(agent), ...Object.keys(run)])];
  return Object.fromEntries(providers.map((p) => [p, { ...own(agent, p), ...own(run, p) }]));
}

/** Whether two JSON values are the same, whatever the order of their keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/**
 * The provider options keys each built-in provider reads, by the provider's name in model names. A key
 * none of a run's models reads is a typo the AI SDK would drop without a word.
 */
const OPTIONS_KEYS: Readonly<Record<string, readonly string[]>> = {
  openai: ['openai'],
  'openai-responses': ['openai'],
  anthropic: ['anthropic'],
  google: ['google'],
  'openai-compatible': ['openai-compatible', 'openaiCompatible'],
};

/**
 * Provider options no model of the run reads (`antropic` for `anthropic`), named with the keys its
 * models do read. Only where every model is a built-in provider's: an application's own provider, or a
 * model instance (`undefined`), may read any key.
 */
export function unreadProviderOptions(
  models: ReadonlyArray<string | undefined>,
  options: ProviderOptions | undefined,
  where: string,
): string[] {
  if (!options) return [];
  const read = new Set<string>();
  for (const model of models) {
    const provider = model?.includes('/') ? model.slice(0, model.indexOf('/')) : undefined;
    if (provider === undefined || !Object.hasOwn(OPTIONS_KEYS, provider)) return [];
    for (const key of OPTIONS_KEYS[provider]!) read.add(key);
  }
  return Object.keys(options)
    .filter((key) => !read.has(key))
    .map(
      (key) =>
        `${where}.${key}: no model of this agent reads it (${models.join(', ')}); its providers read ` +
        `${[...read].map((k) => `"${k}"`).join(', ')}`,
    );
}
