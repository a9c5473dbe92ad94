/** An agent's models as `defineAgent` checks them. */
import type { AgentOptions } from './agent-options.js';
import { shownDuration } from './schemas/deadline.js';
import { MAX_ID } from './schemas/limits.js';
import { FALLBACK_SHARE_MS, MODEL_STEP_MS, modelRetrySpec } from './schemas/model-retry.js';

/** The agent's fallback models, when it has any, and the time each may stay silent before the next. */
export function checkModels(config: Pick<AgentOptions, 'id' | 'model' | 'fallbackModels' | 'modelRetry'>): void {
  if (config.fallbackModels === undefined) return;
  checkFallbackModels(config.id, config.model, config.fallbackModels);
  const silentMs =
    config.modelRetry && modelRetrySpec(`defineAgent("${config.id}")`, config.modelRetry).fallbackAfterMs;
  const before = config.fallbackModels.length;
  if (silentMs !== undefined && silentMs * before > FALLBACK_SHARE_MS) {
    throw new TypeError(
      `defineAgent("${config.id}"): modelRetry.fallbackAfter (${shownDuration(silentMs)}) for each of ` +
        `${before} models before the last leaves the last less than ` +
        `${shownDuration(MODEL_STEP_MS - FALLBACK_SHARE_MS)} ` +
        `of a model step's ${shownDuration(MODEL_STEP_MS)}; set fallbackAfter at most ` +
        shownDuration(Math.floor(FALLBACK_SHARE_MS / before)),
    );
  }
}

/** At most this many fallback models: each failed one costs the step a provider call. */
const MAX_FALLBACK_MODELS = 4;

/** Fallback models are distinct model names (`provider/model`), none the agent's own model. */
function checkFallbackModels(id: string, model: unknown, fallbacks: unknown): void {
  const where = `defineAgent("${id}"): fallbackModels`;
  if (!Array.isArray(fallbacks)) throw new TypeError(`${where} must be an array of model names`);
  if (fallbacks.length > MAX_FALLBACK_MODELS) {
    throw new TypeError(`${where} has ${fallbacks.length} models; at most ${MAX_FALLBACK_MODELS}`);
  }
  const seen = new Set<unknown>([model]);
  for (const name of fallbacks) {
    if (typeof name !== 'string' || !/^[^/\s]+\/\S+$/.test(name) || name.length > MAX_ID) {
      throw new TypeError(
        `${where}: ${JSON.stringify(name)} is not a model name such as "anthropic/claude-sonnet-4-5"`,
      );
    }
    if (seen.has(name)) throw new TypeError(`${where}: "${name}" is named twice (or is the agent's model)`);
    seen.add(name);
  }
}
