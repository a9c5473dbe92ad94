/**
 * How long a run keeps retrying a model step while its provider fails in a way that passes (rate
 * limits, 5xx, network errors, timeouts): a window, hours by default, and the longest wait between two
 * attempts. An agent or a worker sets it with durations people write; the spec records milliseconds and
 * the workflow sets the model activity's retry policy from it. Sandbox-safe.
 */
import { z } from 'zod';
import { durationMs, MAX_DEADLINE_MS, MIN_DEADLINE_MS, shownDuration, type DeadlineDuration } from './deadline.js';

/** How long model steps are retried, as an agent (`defineAgent({ modelRetry })`) or a worker sets it. */
export interface ModelRetry {
  /**
   * How long one model step is retried, from its first attempt, while the provider's failures are of
   * the kind that passes. Default `'6h'`: a run that waited days for a person outlives a provider's bad hour.
   */
  window?: DeadlineDuration;
  /** The longest wait between two attempts (a provider's `Retry-After` is honoured above it). Default `'5m'`. */
  maximumInterval?: DeadlineDuration;
  /**
   * How long a model followed by one of the agent's `fallbackModels` may stay silent before the next is
   * asked: until its whole answer, or in a streamed step until its first delta. A provider that hangs
   * answers nothing, and a retried attempt starts again from the first model. Default `'2m'`, and never
   * more than an equal share of 4 of the 5 minutes a model step may take.
   */
  fallbackAfter?: DeadlineDuration;
}

/** The longest a model step's attempt may take (its activity's start-to-close timeout). */
export const MODEL_STEP_MS = 5 * 60_000;

/** How long a model with a fallback after it may stay silent, when nothing sets it. */
export const DEFAULT_FALLBACK_AFTER_MS = 120_000;

/** What the models before the last may take of a step together: the last has at least a minute. */
export const FALLBACK_SHARE_MS = MODEL_STEP_MS - 60_000;

/**
 * The silence limit of each model before the last of a chain with `fallbacks` fallbacks: the one set
 * (`modelRetry.fallbackAfter`, by the agent or the worker), or 2 minutes, and never more than an equal
 * share of {@link FALLBACK_SHARE_MS}, so that the last model is always asked.
 */
export function fallbackAfterMs(set: number | undefined, fallbacks: number): number {
  return Math.min(set ?? DEFAULT_FALLBACK_AFTER_MS, Math.floor(FALLBACK_SHARE_MS / Math.max(fallbacks, 1)));
}

const Ms = z.number().int().min(MIN_DEADLINE_MS).max(MAX_DEADLINE_MS);

/** The retry of model steps as the agent's spec records it (ms). */
export const ModelRetrySpecSchema = z
  .object({ windowMs: Ms, maximumIntervalMs: Ms, fallbackAfterMs: Ms.max(MODEL_STEP_MS - 1).optional() })
  .strict();
export type ModelRetrySpec = z.infer<typeof ModelRetrySpecSchema>;

/** What a run whose agent and worker set nothing keeps to. */
export const DEFAULT_MODEL_RETRY: ModelRetrySpec = { windowMs: 6 * 3_600_000, maximumIntervalMs: 5 * 60_000 };

/**
 * The spec of a `modelRetry` an agent or worker sets; throws a TypeError naming `where` and what is
 * wrong, so that `defineAgent` and the worker refuse it when they are made, not when a provider fails.
 */
export function modelRetrySpec(where: string, value: unknown): ModelRetrySpec {
  const fail = (problem: string): never => {
    throw new TypeError(`${where}: modelRetry${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(` is { window?, maximumInterval?, fallbackAfter? }, not ${JSON.stringify(value)}`);
  }
  const { window, maximumInterval, fallbackAfter, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(` takes window, maximumInterval and fallbackAfter, not ${extra.join(', ')}`);
  const spec: ModelRetrySpec = { ...DEFAULT_MODEL_RETRY };
  for (const [key, given] of [
    ['windowMs', window],
    ['maximumIntervalMs', maximumInterval],
    ['fallbackAfterMs', fallbackAfter],
  ] as const) {
    if (given === undefined) continue;
    const parsed = durationMs(given);
    if ('problem' in parsed) return fail(`.${key.slice(0, -2)}: ${parsed.problem}`);
    spec[key] = parsed.ms;
  }
  if (spec.fallbackAfterMs !== undefined && spec.fallbackAfterMs >= MODEL_STEP_MS) {
    fail(
      `.fallbackAfter (${shownDuration(spec.fallbackAfterMs)}) is not shorter than a model step's ` +
        `${shownDuration(MODEL_STEP_MS)}: the next model would never be asked; set a shorter fallbackAfter`,
    );
  }
  if (spec.maximumIntervalMs > spec.windowMs) {
    fail(
      `.maximumInterval (${shownDuration(spec.maximumIntervalMs)}) is longer than the window ` +
        `(${shownDuration(spec.windowMs)}); set a shorter maximumInterval or a longer window`,
    );
  }
  return spec;
}

/**
 * The model activity's timeouts and retry policy for `spec`: attempts without a count, within the
 * window (`scheduleToCloseTimeout`), backing off from 1 s to the maximum interval. Which failures are
 * not retried the activity says itself (`ApplicationFailure.nonRetryable`), with the provider's reason.
 */
export function modelActivityRetry(spec: ModelRetrySpec | undefined, nonRetryableErrorTypes: string[]) {
  const { windowMs, maximumIntervalMs } = spec ?? DEFAULT_MODEL_RETRY;
  return {
    scheduleToCloseTimeout: windowMs,
    retry: {
      initialInterval: Math.min(1000, maximumIntervalMs),
      backoffCoefficient: 2,
      maximumInterval: maximumIntervalMs,
      nonRetryableErrorTypes,
    },
  };
}
