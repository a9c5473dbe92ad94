/**
 * How a provider's failure is read: which pass (retried, after `Retry-After`) and which do not (not
 * retried, with the provider's reason), and the activity failure each becomes.
 */
import { APICallError, LoadAPIKeyError, NoSuchModelError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  classifyProviderFailure,
  MAX_RETRY_AFTER_MS,
  providerActivityFailure,
  retryAfterMs,
} from '../../src/worker/activities/model/provider-failure.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');

function apiError(statusCode: number | undefined, message: string, headers?: Record<string, string>, cause?: unknown) {
  return new APICallError({
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
    const gaveUp = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [apiError(503, 'busy')],
    });
    expect(classifyProviderFailure(gaveUp, NOW)).toMatchObject({ kind: 'overloaded', retryable: true });
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

describe('providerActivityFailure', () => {
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
