import type { LanguageModel } from 'ai';
import { RunOptionsSchema, type RunOptions } from './schemas.js';
import type { AnyTool } from './tools/create-tool.js';

/** The options of {@link defineAgent}. */
export interface AgentConfig {
  /** The id runs are started with, e.g. `client.generate('weather-agent', ...)`. */
  id: string;
  name: string;
  description?: string;
  /** The system instructions. */
  instructions: string;
  /**
   * A model name the worker resolves (`scripted`, `openai/gpt-4o-mini`, ...), or an AI SDK
   * `LanguageModel` instance, which lives on the worker and is used for every run of this agent.
   */
  model: string | LanguageModel;
  /** Tools keyed by the name the model calls them by. */
  tools?: Record<string, AnyTool>;
  /** Options applied to every run unless the run sets them. */
  defaultOptions?: RunOptions;
}

/** An agent, as {@link defineAgent} returns it; register it on a worker. */
export interface Agent extends AgentConfig {
  readonly kind: 'agent';
  tools: Record<string, AnyTool>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines an agent. Agents live on the worker; a run's workflow sees only their serialisable
 * description (names, schemas, flags), so a restarted worker re-resolves everything by name.
 */
export function defineAgent(config: AgentConfig): Agent {
  if (!config.id) throw new TypeError('defineAgent: `id` is required');
  const tools = config.tools ?? {};
  for (const [name, tool] of Object.entries(tools)) {
    if (!TOOL_NAME.test(name)) {
      throw new TypeError(
        `defineAgent("${config.id}"): tool key "${name}" is not a valid tool name; use 1-64 letters, digits, "_" or "-"`,
      );
    }
    if (tool?.kind !== 'tool') {
      throw new TypeError(`defineAgent("${config.id}"): tools.${name} is not a tool; create it with createTool()`);
    }
  }
  if (config.defaultOptions) {
    const parsed = RunOptionsSchema.safeParse(config.defaultOptions);
    if (!parsed.success) {
      throw new TypeError(`defineAgent("${config.id}"): invalid defaultOptions: ${parsed.error.message}`);
    }
  }
  return { ...config, tools, kind: 'agent' };
}
