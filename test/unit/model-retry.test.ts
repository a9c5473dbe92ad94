/** The retry window of model steps, as an agent or a worker sets it, and the policy it becomes. */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import {
  DEFAULT_MODEL_RETRY,
  fallbackAfterMs,
  modelActivityRetry,
  modelRetrySpec,
} from '../../src/schemas/model-retry.js';

describe('modelRetrySpec', () => {
  it('takes durations people write, defaulting what is not set', () => {
    expect(modelRetrySpec('here', {})).toEqual(DEFAULT_MODEL_RETRY);
    expect(modelRetrySpec('here', { window: '2h' })).toEqual({ windowMs: 7_200_000, maximumIntervalMs: 300_000 });
    expect(modelRetrySpec('here', { window: '1 day', maximumInterval: 30_000 })).toEqual({
      windowMs: 86_400_000,
      maximumIntervalMs: 30_000,
    });
    expect(modelRetrySpec('here', { fallbackAfter: '20s' })).toEqual({
      ...DEFAULT_MODEL_RETRY,
      fallbackAfterMs: 20_000,
    });
  });

  it('refuses what it does not know, with the offending value and what to do', () => {
    expect(() => modelRetrySpec('defineAgent("a")', { window: '2h', attempts: 3 })).toThrow(
      'defineAgent("a"): modelRetry takes window, maximumInterval and fallbackAfter, not attempts',
    );
    expect(() => modelRetrySpec('defineAgent("a")', { window: 'forever' })).toThrow(
      'defineAgent("a"): modelRetry.window: "forever" is not a duration',
    );
    expect(() => modelRetrySpec('defineAgent("a")', { window: 10 })).toThrow(/modelRetry\.window: 10 is not between/);
    expect(() => modelRetrySpec('createWorker', { window: '1m', maximumInterval: '5m' })).toThrow(
      'createWorker: modelRetry.maximumInterval (5m) is longer than the window (1m); set a shorter maximumInterval or a longer window',
    );
    expect(() => modelRetrySpec('here', '6h')).toThrow(
      'here: modelRetry is { window?, maximumInterval?, fallbackAfter? }, not "6h"',
    );
    expect(() => modelRetrySpec('here', { fallbackAfter: '5m' })).toThrow(
      "here: modelRetry.fallbackAfter (5m) is not shorter than a model step's 5m: the next model would never be asked; set a shorter fallbackAfter",
    );
  });

  it('leaves the last of the fallbacks time to answer', () => {
    const agent = (fallbackAfter: string) =>
      defineAgent({
        id: 'a',
        name: 'A',
        model: 'openai/gpt-test',
        fallbackModels: ['anthropic/claude-test', 'google/gemini-test'],
        modelRetry: { fallbackAfter },
      });
    expect(() => agent('2m')).not.toThrow();
    expect(() => agent('150s')).toThrow(
      'defineAgent("a"): modelRetry.fallbackAfter (150s) for each of 2 models before the last leaves the last ' +
        "less than 1m of a model step's 5m; set fallbackAfter at most 2m",
    );
    // Unset (or set by a worker), it is 2 minutes, and at most an equal share of 4 of the step's 5.
    expect([1, 2, 3, 4].map((fallbacks) => fallbackAfterMs(undefined, fallbacks))).toEqual([
      120_000, 120_000, 80_000, 60_000,
    ]);
    expect(fallbackAfterMs(150_000, 2)).toBe(120_000);
    expect(fallbackAfterMs(5_000, 4)).toBe(5_000);
  });

  it('is checked when the agent is defined', () => {
    expect(() => defineAgent({ id: 'a', name: 'A', model: 'scripted', modelRetry: { window: 'soon' } })).toThrow(
      'defineAgent("a"): modelRetry.window: "soon" is not a duration',
    );
    expect(defineAgent({ id: 'a', name: 'A', model: 'scripted', modelRetry: { window: '3h' } }).modelRetry).toEqual({
      window: '3h',
    });
  });
});

describe('modelActivityRetry', () => {
  it('retries without a count within the window, backing off to the maximum interval', () => {
    expect(modelActivityRetry(undefined, ['X'])).toEqual({
      scheduleToCloseTimeout: 6 * 3_600_000,
      retry: { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 300_000, nonRetryableErrorTypes: ['X'] },
    });
    const short = modelActivityRetry({ windowMs: 5000, maximumIntervalMs: 1000 }, []);
    expect(short.scheduleToCloseTimeout).toBe(5000);
    expect(short.retry).not.toHaveProperty('maximumAttempts');
  });
});
