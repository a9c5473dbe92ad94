import { describe, expect, it } from 'vitest';
import { checkNotificationSettings, inboxLink } from '../../src/worker/activities/approvals/notify.js';
import { notificationsFromEnv } from '../../src/connection/config.js';
import {
  DELIVERY_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyWebhook,
  webhookDeliveryLog,
  WebhookReplayError,
  WebhookVerificationError,
} from '../../src/client/index.js';
import { signedHeaders } from '../../src/notifications/webhook.js';

const SECRET = 'a-secret-of-enough-length';
const body = JSON.stringify({
  type: 'waiting',
  runId: 'run-1',
  agentId: 'bank',
  toolCallId: 'call-0-0',
  toolName: 'refund',
  kind: 'approval',
  fingerprint: 'f'.repeat(64),
  at: '2026-01-01T00:00:00.000Z',
  askedAt: '2026-01-01T00:00:00.000Z',
});

function reason(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  return 'verified';
}

describe('webhook signatures', () => {
  it('verifies what the worker signed, with Node or Fetch headers, and a secret being rotated', () => {
    const headers = signedHeaders(SECRET, body);
    expect(headers[SIGNATURE_HEADER]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhook(SECRET, body, headers)).toMatchObject({ type: 'waiting', toolCallId: 'call-0-0' });
    expect(verifyWebhook(SECRET, Buffer.from(body), new Headers(headers)).runId).toBe('run-1');
    expect(verifyWebhook(['new-secret-not-yet-used', SECRET], body, headers).agentId).toBe('bank');
  });

  it('refuses a changed body, another secret, a changed or old timestamp, and missing headers', () => {
    const headers = signedHeaders(SECRET, body);
    expect(reason(() => verifyWebhook(SECRET, body.replace('refund', 'delete'), headers))).toMatch(/does not match/);
    expect(reason(() => verifyWebhook('another-secret-entirely', body, headers))).toMatch(/does not match/);
    const later = { ...headers, [TIMESTAMP_HEADER]: String(Number(headers[TIMESTAMP_HEADER]) + 1) };
    expect(reason(() => verifyWebhook(SECRET, body, later))).toMatch(/does not match/);
    const old = signedHeaders(SECRET, body, Date.now() - 10 * 60_000);
    expect(reason(() => verifyWebhook(SECRET, body, old))).toMatch(/more than 300s from now: a replay/);
    expect(reason(() => verifyWebhook(SECRET, body, {}))).toMatch(/no x-durable-agents-signature/);
    const notJson = signedHeaders(SECRET, 'hello');
    expect(reason(() => verifyWebhook(SECRET, 'hello', notJson))).toBe('the body is not JSON');
    expect(reason(() => verifyWebhook('', body, headers))).toBe('no secret to verify with');
  });

  it('refuses the same signed delivery verified twice where the receiver keeps a delivery log', () => {
    const seen = webhookDeliveryLog();
    const headers = { ...signedHeaders(SECRET, body), [DELIVERY_HEADER]: 'wf-run:7' };
    expect(verifyWebhook(SECRET, body, headers, { seen }).toolCallId).toBe('call-0-0');
    const replay = (() => {
      try {
        return verifyWebhook(SECRET, body, headers, { seen });
      } catch (err) {
        return err;
      }
    })();
    expect(replay).toBeInstanceOf(WebhookReplayError);
    expect(replay).toBeInstanceOf(WebhookVerificationError);
    expect((replay as WebhookReplayError).reason).toMatch(/^this request was verified before: a replay/);
    // The delivery header is not signed: a replay under another delivery id is the same request.
    expect(reason(() => verifyWebhook(SECRET, body, { ...headers, [DELIVERY_HEADER]: 'other' }, { seen }))).toMatch(
      /a replay/,
    );
    // A retry of the notification is signed anew (another timestamp): it verifies.
    const retry = { ...signedHeaders(SECRET, body, Date.now() + 2000), [DELIVERY_HEADER]: 'wf-run:7' };
    expect(verifyWebhook(SECRET, body, retry, { seen }).runId).toBe('run-1');
    // What does not verify is never recorded, so it cannot fill the log.
    expect(reason(() => verifyWebhook('another-secret-entirely', body, retry, { seen: webhookDeliveryLog() }))).toMatch(
      /does not match/,
    );
  });

  it('keeps a bounded delivery log: expired entries go, and a full log refuses rather than forgets', () => {
    let clock = Date.now();
    const seen = webhookDeliveryLog({ maxEntries: 2, now: () => clock });
    const at = (ms: number) => signedHeaders(SECRET, body, ms);
    verifyWebhook(SECRET, body, at(clock), { seen, now: clock });
    verifyWebhook(SECRET, body, at(clock + 1000), { seen, now: clock });
    expect(reason(() => verifyWebhook(SECRET, body, at(clock + 2000), { seen, now: clock }))).toMatch(
      /^the delivery log holds 2 requests of the last 300 s, its bound: /,
    );
    clock += 302_000;
    expect(verifyWebhook(SECRET, body, at(clock), { seen, now: clock }).type).toBe('waiting');
    expect(() => webhookDeliveryLog({ maxEntries: 0 })).toThrow(/maxEntries must be a whole number of at least 1/);
  });

  it('refuses an option it does not know', () => {
    const headers = signedHeaders(SECRET, body);
    expect(() => verifyWebhook(SECRET, body, headers, { tolerance: 5 } as never)).toThrow(
      'verifyWebhook: unknown option "tolerance" (known: toleranceSeconds, now, seen)',
    );
  });

  it('takes settings that can work, from options or the environment, and links to the inbox', () => {
    expect(() => checkNotificationSettings({ url: 'ftp://x', secret: SECRET })).toThrow(/must be an http\(s\) URL/);
    expect(() => checkNotificationSettings({ url: 'https://u:p@x', secret: SECRET })).toThrow(/carries credentials/);
    expect(() => checkNotificationSettings({ url: 'https://x', secret: 'short' })).toThrow(/at least 16 characters/);
    expect(() => notificationsFromEnv({ NOTIFICATIONS_WEBHOOK_URL: 'https://x' })).toThrow(/go together/);
    expect(notificationsFromEnv({})).toBeUndefined();
    expect(
      notificationsFromEnv({
        NOTIFICATIONS_WEBHOOK_URL: 'https://x',
        NOTIFICATIONS_WEBHOOK_SECRET: SECRET,
        NOTIFICATIONS_INBOX_URL: 'https://inbox',
      }),
    ).toEqual({ url: 'https://x', secret: SECRET, inboxUrl: 'https://inbox' });
    expect(inboxLink('https://app.example/inbox', 'run 1', 'call-0/call-1-0')).toBe(
      'https://app.example/inbox?run=run+1&call=call-0%2Fcall-1-0',
    );
  });
});
