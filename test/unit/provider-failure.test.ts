/**
 * How a provider's failure is read: which pass (retried, after `Retry-After`) and which do not (not
 * retried, with the provider's reason), and the activity failure each becomes.
 */
import { InvalidArgumentError } from '@ai-sdk/provider';
import { APICallError, LoadAPIKeyError, LoadSettingError, NoSuchModelError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import {
  classifyProviderFailure,
  MAX_RETRY_AFTER_MS,
  modelStepFailure,
  providerActivityFailure,
  retryAfterMs,
} from '../../src/worker/activities/model/provider-failure.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');

function apiError(
  statusCode: number | undefined,
  message: string,
  headers?: Record<string, string>,
  cause?: unknown,
  more: { isRetryable?: boolean; data?: unknown } = {},
) {
  return new APICallError({
    ...more,
    message,
    url: 'https://api.example.test/v1/chat/completions',
    requestBodyValues: { model: 'm' },
    statusCode,
    responseHeaders: headers,
    responseBody: '{"error":{"message":"RAW BODY SECRET sk-live-123"}}',
    cause,
  });
}

describe('classifyProviderFailure', () => {
  it.each([
    [429, 'rate-limited', true],
    [503, 'overloaded', true],
    [529, 'overloaded', true],
    [500, 'server-error', true],
    [502, 'server-error', true],
    [408, 'timeout', true],
    [504, 'timeout', true],
    [409, 'server-error', true],
    [400, 'bad-request', false],
    [422, 'bad-request', false],
    [401, 'unauthorized', false],
    [403, 'forbidden', false],
    [404, 'unknown-model', false],
    [413, 'context-overflow', false],
    [418, 'rejected', false],
  ] as const)('HTTP %i is %s (retried: %s)', (status, kind, retryable) => {
    expect(classifyProviderFailure(apiError(status, 'nope'), NOW)).toMatchObject({ kind, retryable, status });
  });

  it('reads a conversation over the context from the provider reason, whatever its 4xx', () => {
    for (const message of [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      'prompt is too long: 210000 tokens > 200000 maximum',
      'The input token count exceeds the maximum number of tokens allowed',
    ]) {
      expect(classifyProviderFailure(apiError(400, message), NOW)).toMatchObject({
        kind: 'context-overflow',
        retryable: false,
      });
    }
  });

  it('keeps the provider reason in one bounded line, never the raw body', () => {
    const failure = classifyProviderFailure(apiError(401, `Incorrect API key provided.\n${'x'.repeat(1000)}`), NOW)!;
    expect(failure.reason).toMatch(/^Incorrect API key provided\. x+…$/);
    expect(failure.reason.length).toBeLessThanOrEqual(300);
    expect(JSON.stringify(failure)).not.toContain('RAW BODY');
  });

  it('takes Retry-After of a failure that passes, not of one that does not', () => {
    expect(classifyProviderFailure(apiError(429, 'slow down', { 'Retry-After': '7' }), NOW)).toMatchObject({
      retryAfterMs: 7000,
    });
    expect(classifyProviderFailure(apiError(400, 'bad', { 'retry-after': '7' }), NOW)).not.toHaveProperty(
      'retryAfterMs',
    );
  });

  it('reads a connection that failed as the network, one that timed out as a timeout', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(classifyProviderFailure(apiError(undefined, 'Cannot connect to API', undefined, refused), NOW)).toEqual({
      kind: 'network',
      retryable: true,
      reason: 'Cannot connect to API',
    });
    const slow = Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(classifyProviderFailure(apiError(undefined, 'fetch failed', undefined, slow), NOW)).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
    const dropped = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifyProviderFailure(dropped, NOW)).toMatchObject({ kind: 'network', retryable: true });
  });

  it("reads the AI SDK's own errors: a missing key, an unknown model, retries given up", () => {
    expect(classifyProviderFailure(new LoadAPIKeyError({ message: 'OpenAI API key is missing.' }), NOW)).toMatchObject({
      kind: 'unauthorized',
      retryable: false,
      reason: 'OpenAI API key is missing.',
    });
    expect(
      classifyProviderFailure(new NoSuchModelError({ modelId: 'gpt-9', modelType: 'languageModel' }), NOW),
    ).toMatchObject({ kind: 'unknown-model', retryable: false });
    // A provider package not installed, or a base URL not set: the worker must be set up, then retried.
    expect(
      classifyProviderFailure(new LoadSettingError({ message: 'set OPENAI_COMPATIBLE_BASE_URL' }), NOW),
    ).toMatchObject({ kind: 'not-configured', retryable: false, reason: 'set OPENAI_COMPATIBLE_BASE_URL' });
    const gaveUp = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [apiError(503, 'busy')],
    });
    expect(classifyProviderFailure(gaveUp, NOW)).toMatchObject({ kind: 'overloaded', retryable: true });
    // Provider options the package refuses before it calls: a bad request that no retry mends.
    const refused = new InvalidArgumentError({
      argument: 'providerOptions',
      message: 'invalid anthropic provider options',
      cause: new Error('thinking.type: Invalid option'),
    });
    expect(classifyProviderFailure(refused, NOW)).toMatchObject({
      kind: 'bad-request',
      retryable: false,
      reason: expect.stringMatching(
        /^providerOptions: .*invalid anthropic provider options.*thinking\.type: Invalid option/,
      ),
    });
    // The AI SDK's own arguments are our code's: a bug, not a provider's refusal.
    const ours = new InvalidArgumentError({ argument: 'messages', message: 'bad' });
    expect(classifyProviderFailure(ours, NOW)).toBeUndefined();
  });

  it('retries a 2xx answer cut off while it was read, and leaves alone one it could not parse', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyProviderFailure(apiError(200, 'Cannot read body', undefined, reset), NOW)).toMatchObject({
      kind: 'network',
      retryable: true,
    });
    expect(
      classifyProviderFailure(apiError(200, 'terminated', undefined, undefined, { isRetryable: true }), NOW),
    ).toMatchObject({ kind: 'network', retryable: true });
    expect(
      classifyProviderFailure(
        apiError(200, 'Failed to process successful response', undefined, undefined, { isRetryable: false }),
        NOW,
      ),
    ).toBeUndefined();
  });

  it("does not wait out OpenAI's insufficient_quota: no wait ends it", () => {
    const data = { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } };
    expect(
      classifyProviderFailure(apiError(429, 'You exceeded your current quota', undefined, undefined, { data }), NOW),
    ).toEqual({
      kind: 'quota-exceeded',
      retryable: false,
      status: 429,
      reason: 'You exceeded your current quota',
    });
  });

  it('keeps bidi and control characters out of the reason', () => {
    expect(classifyProviderFailure(apiError(401, 'bad\u202Ekey\u001b[31m'), NOW)!.reason).toBe('bad key [31m');
  });

  it('leaves alone what is not a provider failure', () => {
    expect(classifyProviderFailure(new Error('a bug'), NOW)).toBeUndefined();
    expect(classifyProviderFailure('text', NOW)).toBeUndefined();
    expect(classifyProviderFailure(undefined, NOW)).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after in seconds and as a date, whatever the case of the header', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500' }, NOW)).toBe(1500);
    expect(retryAfterMs({ 'Retry-After': '2' }, NOW)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, NOW)).toBe(500);
    expect(retryAfterMs({ 'retry-after': new Date(NOW + 30_000).toUTCString() }, NOW)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': new Date(NOW - 30_000).toUTCString() }, NOW)).toBe(0);
  });

  it('caps a wait of more than an hour and ignores what it cannot read', () => {
    expect(retryAfterMs({ 'retry-after': '86400' }, NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-5' }, NOW)).toBeUndefined();
    expect(retryAfterMs({}, NOW)).toBeUndefined();
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });
});

describe('modelStepFailure', () => {
  it("gives up on a failure that is not the provider's after a few attempts, keeping its type", () => {
    const bug = Object.assign(new Error('cannot read x of undefined'), { name: 'TypeError' });
    expect(modelStepFailure(bug, 'p', 1)).toBe(bug);
    expect(modelStepFailure(bug, 'p', 4)).toBe(bug);
    expect(modelStepFailure(bug, 'p', 5)).toMatchObject({
      type: 'TypeError',
      nonRetryable: true,
      message: 'cannot read x of undefined',
    });
  });

  it('keeps our own typed failures as they are, and names the provider in its failures', () => {
    const own = ApplicationFailure.nonRetryable('conversation mismatch', 'ConversationMismatchError');
    expect(modelStepFailure(own, 'p', 1)).toBe(own);
    expect(modelStepFailure(apiError(503, 'busy'), 'the model provider of "m"', 1)).toMatchObject({
      type: 'ModelProviderUnavailable',
      message: 'the model provider of "m" failed (HTTP 503 overloaded): busy',
    });
  });
});

describe('providerActivityFailure', () => {
  it("never waits less than the policy's backoff, whatever Retry-After says", () => {
    const asked = (retryAfterMs: number, attempt: number) =>
      providerActivityFailure(
        { kind: 'rate-limited', retryable: true, status: 429, retryAfterMs, reason: 'r' },
        'p',
        attempt,
      ).nextRetryDelay;
    expect(asked(0, 1)).toBe(1000);
    expect(asked(20, 4)).toBe(8000);
    expect(asked(0, 30)).toBe(300_000);
    expect(asked(120_000, 2)).toBe(120_000);
  });

  it('retries a failure that passes after the provider asks, and names it', () => {
    const failure = providerActivityFailure(
      { kind: 'rate-limited', retryable: true, status: 429, retryAfterMs: 3000, reason: 'Rate limit reached' },
      'the model provider of "openai/gpt-5-mini"',
    );
    expect(failure).toMatchObject({
      type: 'ModelProviderUnavailable',
      nonRetryable: false,
      nextRetryDelay: 3000,
      message: 'the model provider of "openai/gpt-5-mini" failed (HTTP 429 rate-limited): Rate limit reached',
      details: [{ kind: 'rate-limited', status: 429, reason: 'Rate limit reached' }],
    });
  });

  it('does not retry a failure that does not pass', () => {
    const failure = providerActivityFailure(
      { kind: 'unauthorized', retryable: false, status: 401, reason: 'Incorrect API key provided' },
      'the model provider of "openai/gpt-5-mini"',
    );
    expect(failure).toMatchObject({ type: 'ModelCallRejected', nonRetryable: true });
    expect(failure.message).toBe(
      'the model provider of "openai/gpt-5-mini" refused the call (HTTP 401 unauthorized): Incorrect API key provided',
    );
    expect(failure.nextRetryDelay).toBeUndefined();
  });
});
