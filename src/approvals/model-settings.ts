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
