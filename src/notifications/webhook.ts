/**
 * Webhook notifications: the worker signs each body with HMAC-SHA256 so that the receiver can tell
 * it came from the worker, unchanged and recently; {@link verifyWebhook} is the receiver's half.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { safeParse } from '../schemas/json.js';
import { WebhookPayloadSchema, type WebhookPayload } from '../schemas/notification.js';

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

/** Request headers as Node (`IncomingHttpHeaders`), the Fetch API (`Headers`) or a plain object has them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook request and returns its payload: the signature must be the worker's over this
 * exact raw body and timestamp (with `secret`, or one of several while you rotate it), and the
 * timestamp within `toleranceSeconds` (default 5 minutes) of now. Throws a
 * {@link WebhookVerificationError} otherwise. Pass the raw body, before any JSON parsing: a body parsed
 * and serialised again is not the one that was signed.
 *
 * @example
 * const payload = verifyWebhook(process.env.WEBHOOK_SECRET!, rawBody, request.headers);
 */
export function verifyWebhook(
  secret: string | string[],
  body: string | Uint8Array,
  headers: WebhookHeaders,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: { toleranceSeconds?: number; now?: number } = {},
): WebhookPayload {
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
  const parsed = safeParse(WebhookPayloadSchema, json);
  if (!parsed.success) throw new WebhookVerificationError(`the body is not a notification: ${parsed.error}`);
  return parsed.data;
}
