/**
 * What a model provider's failure means for the run: failures that pass (rate limits, overload, 5xx,
 * network errors, timeouts) are retried within the agent's window, after the provider's `Retry-After`
 * where it sends one; those that do not pass (a bad request, a key that is wrong or lacks permission,
 * a model that does not exist, a conversation over the model's context) are not retried, and say why
 * with the provider's own reason, never its raw response body.
 */
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError } from '@ai-sdk/provider';
import { APICallError, LoadAPIKeyError, LoadSettingError, NoSuchModelError, RetryError } from 'ai';
import { clip } from '../../../schemas/limits.js';

/** The kinds of provider failure, by what an operator does about them. */
export type ProviderFailureKind =
  | 'rate-limited'
  | 'overloaded'
  | 'server-error'
  | 'network'
  | 'timeout'
  | 'bad-request'
  | 'context-overflow'
  | 'unauthorized'
  | 'forbidden'
  | 'unknown-model'
  | 'quota-exceeded'
  | 'not-configured'
  | 'rejected';

/** The failures of these kinds pass on their own; the others need someone to change something. */
const PASSING: ReadonlySet<ProviderFailureKind> = new Set([
  'rate-limited',
  'overloaded',
  'server-error',
  'network',
  'timeout',
]);

export interface ProviderFailure {
  kind: ProviderFailureKind;
  retryable: boolean;
  /** The HTTP status, where the provider answered. */
  status?: number;
  /** How long the provider asked us to wait (`Retry-After`, `retry-after-ms`), capped at `MAX_RETRY_AFTER_MS`. */
  retryAfterMs?: number;
  /** The provider's reason in one line, at most `MAX_REASON_CHARS`. */
  reason: string;
}

/** A provider that asks for more than an hour's wait is treated as asking for an hour: the window still bounds it. */
export const MAX_RETRY_AFTER_MS = 3_600_000;
const MAX_REASON_CHARS = 300;

/** Phrases providers use when the conversation is over the model's context (OpenAI, Anthropic, Google, vLLM). */
const CONTEXT_OVERFLOW = new RegExp(
  [
    'context[_ ]length',
    'context window',
    'maximum context',
    'too many tokens',
    'prompt is too long',
    'input is too long',
    "exceeds the (?:model's )?(?:maximum|context)",
  ].join('|'),
  'i',
);

/** Error codes of a connection that failed or dropped: the provider may be back in a moment. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * How long `headers` ask the client to wait, in ms: `retry-after-ms` (OpenAI), or `retry-after` in
 * seconds or as an HTTP date. Undefined when they ask nothing readable.
 */
export function retryAfterMs(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const header = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)?.[1]
      ?.trim();
  const capped = (ms: number) =>
    Number.isFinite(ms) && ms >= 0 ? Math.min(Math.round(ms), MAX_RETRY_AFTER_MS) : undefined;
  const inMs = header('retry-after-ms');
  if (inMs && /^\d+(\.\d+)?$/.test(inMs)) return capped(Number(inMs));
  const after = header('retry-after');
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return capped(Number(after) * 1000);
  // An HTTP date names its day and month; `Date.parse` would read a bare "-5" as a year.
  const date = /[a-z]{3}/i.test(after) ? Date.parse(after) : Number.NaN;
  return Number.isNaN(date) ? undefined : capped(Math.max(0, date - now));
}

function kindOfStatus(status: number, reason: string): ProviderFailureKind {
  if (status === 429) return 'rate-limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'server-error';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (CONTEXT_OVERFLOW.test(reason) || status === 413) return 'context-overflow';
  if (status === 404) return 'unknown-model';
  if (status === 400 || status === 422) return 'bad-request';
  // 409 is a conflict the provider's own SDKs retry; any other 4xx will not change by asking again.
  return status === 409 ? 'server-error' : 'rejected';
}

function reasonOf(message: string): string {
  // The reason reaches terminals (`agentctl runs show`) and logs: no control or bidi-format characters.
  return clip(message.replace(/[\p{Cc}\p{Cf}]/gu, ' ').trim(), MAX_REASON_CHARS) || 'no reason given';
}

/** The provider's own error code in its parsed error body (`{ error: { code } }`), if any. */
function errorCode(data: unknown): string | undefined {
  const code = (data as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

function networkCode(err: unknown): string | undefined {
  for (let at = err, depth = 0; at && typeof at === 'object' && depth < 4; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What `err` says of the provider, or undefined when it is not a provider's failure (a bug, a tool's
 * schema, our own refusal): those keep their own type.
 */
export function classifyProviderFailure(err: unknown, now = Date.now()): ProviderFailure | undefined {
  if (RetryError.isInstance(err)) return classifyProviderFailure(err.lastError, now);
  if (err instanceof ModelSilentError) return { kind: 'timeout', retryable: true, reason: err.message };
  if (APICallError.isInstance(err)) {
    const reason = reasonOf(err.message);
    // No answer, or a 2xx whose body was cut off (the SDK marks it retryable) or could not be read.
    if (err.statusCode === undefined || err.statusCode < 400) {
      const code = networkCode(err);
      if (err.statusCode !== undefined && !code && !err.isRetryable) return undefined;
      return { kind: code?.includes('TIMEOUT') ? 'timeout' : 'network', retryable: true, reason };
    }
    // OpenAI's "insufficient_quota" is a 429 that no wait ends: someone must pay or raise the limit.
    if (err.statusCode === 429 && errorCode(err.data) === 'insufficient_quota') {
      return { kind: 'quota-exceeded', retryable: false, status: 429, reason };
    }
    const kind = kindOfStatus(err.statusCode, err.message);
    const retryable = PASSING.has(kind);
    const wait = retryable ? retryAfterMs(err.responseHeaders, now) : undefined;
    return { kind, retryable, status: err.statusCode, ...(wait !== undefined ? { retryAfterMs: wait } : {}), reason };
  }
  if (LoadAPIKeyError.isInstance(err)) return { kind: 'unauthorized', retryable: false, reason: reasonOf(err.message) };
  // The worker lacks the provider's package or a setting (a base URL): someone must install or set it.
  if (LoadSettingError.isInstance(err))
    return { kind: 'not-configured', retryable: false, reason: reasonOf(err.message) };
  if (NoSuchModelError.isInstance(err))
    return { kind: 'unknown-model', retryable: false, reason: reasonOf(err.message) };
  // Provider options the provider's package cannot read, refused before it calls: as a 400. The AI SDK
  // throws the same error for its own arguments too, which are our code's doing: those stay bugs.
  if (InvalidArgumentError.isInstance(err) && err.argument === 'providerOptions') {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return { kind: 'bad-request', retryable: false, reason: reasonOf(`providerOptions: ${err.message}${cause}`) };
  }
  const code = networkCode(err);
  if (code) return { kind: 'network', retryable: true, reason: reasonOf(`${code}: ${(err as Error).message}`) };
  return undefined;
}

/** A model that said nothing within its silence limit (`modelRetry.fallbackAfter`), its call aborted. */
export class ModelSilentError extends Error {
  override readonly name = 'ModelSilentError';
  constructor(model: string, ms: number) {
    super(`"${model}" answered nothing within ${ms / 1000} s (modelRetry.fallbackAfter)`);
  }
}

/** The Temporal failure type of a provider failure that passes, and of one that does not. */
export const PROVIDER_UNAVAILABLE = 'ModelProviderUnavailable';
export const PROVIDER_REJECTED = 'ModelCallRejected';

/**
 * The activity failure for `failure`: retryable ones after the provider's `Retry-After` (else the
 * policy's backoff), the others not retried. Both carry the kind, status and reason as details.
 */
export function providerActivityFailure(failure: ProviderFailure, provider: string, attempt = 1): ApplicationFailure {
  const status = failure.status !== undefined ? `HTTP ${failure.status} ` : '';
  const what = failure.retryable ? 'failed' : 'refused the call';
  // What anyone who reads the run may see (the stream, the HTTP API): never the provider's own words,
  // which may name its internals. The message, with the reason, goes to operators and the run's failure.
  const summary = `${provider} ${what} (${status}${failure.kind})`;
  const message = `${summary}: ${failure.reason}`;
  const details = [{ kind: failure.kind, status: failure.status ?? null, reason: failure.reason, summary }];
  return ApplicationFailure.create({
    message,
    type: failure.retryable ? PROVIDER_UNAVAILABLE : PROVIDER_REJECTED,
    nonRetryable: !failure.retryable,
    details,
    // The provider's wait, but never less than the backoff: a "retry-after: 0" must not make a storm.
    ...(failure.retryAfterMs !== undefined
      ? { nextRetryDelay: Math.max(failure.retryAfterMs, backoffMs(attempt)) }
      : {}),
  });
}

/** The default policy's wait after attempt `attempt`: 1 s, doubling, at most 5 minutes. */
export function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, Math.min(attempt - 1, 20)), 300_000);
}

/**
 * Attempts of a model step that failed for a reason that is not its provider's (a bug, a prompt the
 * SDK refuses): retried like any activity, but only this often, as before the retry window; then the
 * run fails with it, rather than retrying it for hours.
 */
export const MAX_UNCLASSIFIED_ATTEMPTS = 5;

/** What the model activity throws for `err`, the failure of its attempt `attempt`. */
export function modelStepFailure(err: unknown, provider: string, attempt: number): unknown {
  if (err instanceof ApplicationFailure) return err;
  const failure = classifyProviderFailure(err);
  if (failure) return providerActivityFailure(failure, provider, attempt);
  if (attempt < MAX_UNCLASSIFIED_ATTEMPTS) return err;
  const error = err instanceof Error ? err : new Error(String(err));
  // Its name stays its type, so a run fails with e.g. `UnknownModelError` as it did.
  return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true, cause: error });
}
