/**
 * Webhook notifications: the worker signs each body with HMAC-SHA256 so that the receiver can tell
 * it came from the worker, unchanged and recently; {@link verifyWebhook} is the receiver's half.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { rejectUnknownKeys } from '../options.js';
import type { WebhookPayload } from '../schemas/notification.js';
import { parseWebhookPayload } from './webhook-payload.js';

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, keyed with the shared secret. */
export const SIGNATURE_HEADER = 'x-durable-agents-signature';
/** Unix seconds when this attempt was signed; signed with the body, so it cannot be changed. */
export const TIMESTAMP_HEADER = 'x-durable-agents-timestamp';
/** The same on every attempt of one notification: a receiver that saw it already can drop it. */
export const DELIVERY_HEADER = 'x-durable-agents-delivery';
/** The notification's `type`, for routing without parsing. */
export const EVENT_HEADER = 'x-durable-agents-event';

/** How old a signed timestamp may be (either way) before the receiver refuses it as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The shortest secret the worker takes: an HMAC key is only as good as its length. */
export const MIN_SECRET_LENGTH = 16;

/** The signature header's value for a body signed at `timestamp` (unix seconds). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The signature and timestamp headers for a body, signed now. */
export function signedHeaders(secret: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { [SIGNATURE_HEADER]: webhookSignature(secret, timestamp, body), [TIMESTAMP_HEADER]: String(timestamp) };
}

/** A webhook request that does not verify: `reason` says why (for the receiver's log; answer 401). */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: string) {
    super(`webhook not verified: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * A request verified before, within its tolerance window: someone sent a captured request again (the
 * worker signs every attempt anew, retries included). Answer it as any refusal (401).
 */
export class WebhookReplayError extends WebhookVerificationError {
  constructor(reason: string) {
    super(reason);
    this.name = 'WebhookReplayError';
  }
}

/**
 * What a receiver remembers of the requests it verified, so that {@link verifyWebhook} refuses one sent
 * again. Requests are known by their signature, which covers the timestamp and the body (the delivery
 * header is not signed, so a replay could carry any). `webhookDeliveryLog()` is one in memory; receivers
 * behind a load balancer share one (e.g. Redis: `has` is `EXISTS`, `add` is `SET key 1 PXAT expiresAt`).
 */
export interface WebhookDeliveryLog {
  /** Whether a request with this id was recorded and its entry has not expired. */
  has(id: string): boolean;
  /** Records a verified request until `expiresAt` (ms since the epoch): then its timestamp is refused anyway. */
  add(id: string, expiresAt: number): void;
}

/** How many requests {@link webhookDeliveryLog} remembers by default. */
export const DEFAULT_DELIVERY_LOG_ENTRIES = 10_000;

/**
 * A {@link WebhookDeliveryLog} in this process's memory, of at most `maxEntries` requests (each is
 * forgotten once its timestamp is too old to verify). Full, it refuses a new request rather than
 * forget one that could still be replayed: raise `maxEntries` for more than that many notifications
 * within the tolerance window.
 */
export function webhookDeliveryLog({
  maxEntries = DEFAULT_DELIVERY_LOG_ENTRIES,
  now = () => Date.now(),
}: { maxEntries?: number; now?: () => number } = {}): WebhookDeliveryLog {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(`webhookDeliveryLog: maxEntries must be a whole number of at least 1, not ${maxEntries}`);
  }
  const entries = new Map<string, number>();
  const prune = (): void => {
    const at = now();
    for (const [id, expiresAt] of entries) if (expiresAt <= at) entries.delete(id);
  };
  return {
    has: (id) => {
      const expiresAt = entries.get(id);
      return expiresAt !== undefined && expiresAt > now();
    },
    add: (id, expiresAt) => {
      if (entries.size >= maxEntries) prune();
      if (entries.size >= maxEntries) throw new DeliveryLogFullError(maxEntries);
      entries.set(id, expiresAt);
    },
  };
}

/** The in-memory log is full of requests that could still be replayed. */
class DeliveryLogFullError extends Error {
  constructor(readonly maxEntries: number) {
    super(`the delivery log holds ${maxEntries} requests`);
  }
}

/** Request headers as Node (`IncomingHttpHeaders`), the Fetch API (`Headers`) or a plain object has them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far (either way) the signed timestamp may be from now, seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, ms since the epoch (default `Date.now()`). */
  now?: number;
  /**
   * Where verified requests are remembered until their timestamp is too old: one sent again is refused
   * with {@link WebhookReplayError}. Without it, a captured request verifies again within the window.
   */
  seen?: WebhookDeliveryLog;
}

const VERIFY_OPTIONS = ['toleranceSeconds', 'now', 'seen'];

/**
 * Checks a webhook request and returns its payload: the signature must be the worker's over this
 * exact raw body and timestamp (with `secret`, or one of several while you rotate it), and the
 * timestamp within `toleranceSeconds` (default 5 minutes) of now. With `seen`, a request verified
 * before is refused ({@link WebhookReplayError}). Throws a {@link WebhookVerificationError} otherwise.
 * Pass the raw body, before any JSON parsing: a body parsed and serialised again is not the one that
 * was signed.
 *
 * @example
 * const seen = webhookDeliveryLog();   // once, for the receiver's lifetime
 * const payload = verifyWebhook(process.env.WEBHOOK_SECRET!, rawBody, request.headers, { seen });
 */
export function verifyWebhook(
  secret: string | string[],
  body: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {},
): WebhookPayload {
  rejectUnknownKeys('verifyWebhook', options, VERIFY_OPTIONS);
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now(), seen } = options;
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new WebhookVerificationError('no secret to verify with');
  const signature = header(headers, SIGNATURE_HEADER);
  const stamp = header(headers, TIMESTAMP_HEADER);
  if (!signature) throw new WebhookVerificationError(`no ${SIGNATURE_HEADER} header`);
  if (!stamp || !/^\d{1,12}$/.test(stamp)) throw new WebhookVerificationError(`no valid ${TIMESTAMP_HEADER} header`);
  const timestamp = Number(stamp);
  const skew = Math.abs(now / 1000 - timestamp);
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      `signed at ${new Date(timestamp * 1000).toISOString()}, more than ${toleranceSeconds}s from now: ` +
        'a replay, or a clock far off',
    );
  }
  const raw = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const given = Buffer.from(signature);
  const matches = secrets.some((s) => {
    const expected = Buffer.from(webhookSignature(s, timestamp, raw));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!matches)
    throw new WebhookVerificationError('the signature does not match the body: another secret, or a changed body');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const parsed = parseWebhookPayload(json);
  if (!parsed.success) throw new WebhookVerificationError(`the body is not a notification: ${parsed.error}`);
  // Only what verified is looked up and recorded: nobody without the secret can fill the log.
  if (seen) remember(seen, signature, (timestamp + toleranceSeconds) * 1000, toleranceSeconds);
  return parsed.data;
}

function remember(seen: WebhookDeliveryLog, id: string, expiresAt: number, toleranceSeconds: number): void {
  if (seen.has(id)) {
    throw new WebhookReplayError(
      `this request was verified before: a replay (the worker signs every attempt anew; ` +
        `dedupe retries on ${DELIVERY_HEADER} once you handled one)`,
    );
  }
  try {
    seen.add(id, expiresAt);
  } catch (err) {
    if (!(err instanceof DeliveryLogFullError)) throw err;
    throw new WebhookVerificationError(
      `${err.message} of the last ${toleranceSeconds} s, its bound: a request it cannot remember could be ` +
        'replayed, so it is refused; raise webhookDeliveryLog({ maxEntries })',
    );
  }
}
