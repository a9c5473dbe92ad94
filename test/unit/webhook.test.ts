import { describe, expect, it } from 'vitest';
import { checkNotificationSettings, inboxLink } from '../../src/activities/notify.js';
import { notificationsFromEnv } from '../../src/config.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook, WebhookVerificationError } from '../../src/index.js';
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
