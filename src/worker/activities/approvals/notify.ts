/**
 * The `notify` activity: posts a run's notification to the worker's webhook, signed. The URL and the
 * secret are the operator's configuration, never a caller's input (see docs/guides/http-server.md, "Notifications").
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Notification, WebhookPayload } from '../../../schemas/notification.js';
import { DELIVERY_HEADER, EVENT_HEADER, MIN_SECRET_LENGTH, signedHeaders } from '../../../notifications/webhook.js';

/** Where a worker sends notifications, and the secret it signs them with. */
export interface NotificationSettings {
  /** The webhook: an `https:` (or `http:`) URL the worker posts every notification to. */
  url: string;
  /** The HMAC key, shared with the receiver (at least 16 characters; 32 random bytes, hex or base64, is good). */
  secret: string;
  /** The approval inbox's address: each notification links to `<inboxUrl>?run=<runId>&call=<toolCallId>`. */
  inboxUrl?: string;
  /** How long one attempt may take, ms (default 10,000). */
  timeoutMs?: number;
}

/** Checks the settings once, when the worker is created: a webhook that could never work is an error then. */
export function checkNotificationSettings(settings: NotificationSettings): NotificationSettings {
  const where = 'createWorker: notifications';
  const url = parseUrl(settings.url, `${where}.url`);
  if (url.username || url.password) {
    throw new TypeError(`${where}.url carries credentials; put them in the receiver's own config, not in the URL`);
  }
  if (typeof settings.secret !== 'string' || settings.secret.length < MIN_SECRET_LENGTH) {
    throw new TypeError(
      `${where}.secret must be a string of at least ${MIN_SECRET_LENGTH} characters (an HMAC key shared with the ` +
        'receiver; e.g. `openssl rand -hex 32`): notifications are always signed',
    );
  }
  if (settings.inboxUrl !== undefined) parseUrl(settings.inboxUrl, `${where}.inboxUrl`);
  if (settings.timeoutMs !== undefined && !(Number.isInteger(settings.timeoutMs) && settings.timeoutMs > 0)) {
    throw new TypeError(`${where}.timeoutMs must be a positive whole number of ms, not ${settings.timeoutMs}`);
  }
  return settings;
}

function parseUrl(value: unknown, where: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(`${where} must be an http(s) URL, not ${JSON.stringify(value)}`);
  }
  return url;
}

/** The inbox entry of a call. */
export function inboxLink(inboxUrl: string, runId: string, toolCallId: string): string {
  const url = new URL(inboxUrl);
  url.searchParams.set('run', runId);
  url.searchParams.set('call', toolCallId);
  return url.toString();
}

/**
 * Posts one notification. A network error, a timeout, a 5xx, 408 or 429 fails the attempt (the run's
 * retry policy tries again); any other 4xx is final (`WebhookRefused`): the receiver refused it, and
 * the same body would be refused again. Redirects are not followed: the operator names the URL.
 */
export async function notify(settings: NotificationSettings, input: Notification): Promise<void> {
  const info = Context.current().info;
  const payload: WebhookPayload = {
    ...input,
    ...(settings.inboxUrl ? { link: inboxLink(settings.inboxUrl, input.runId, input.toolCallId) } : {}),
  };
  const body = JSON.stringify(payload);
  const response = await fetch(settings.url, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.any([AbortSignal.timeout(settings.timeoutMs ?? 10_000), Context.current().cancellationSignal]),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'durable-agents-webhook',
      [EVENT_HEADER]: input.type,
      // One notification keeps its id through retries (the activity's, in this run of the workflow).
      [DELIVERY_HEADER]: `${info.workflowExecution?.runId ?? info.workflowType}:${info.activityId}`,
      ...signedHeaders(settings.secret, body),
    },
    body,
  });
  await response.body?.cancel();
  if (response.ok) return;
  const what = `the webhook answered ${response.status} to the ${input.type} notification of ${input.toolCallId}`;
  const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
  if (retryable) throw new Error(what);
  throw ApplicationFailure.nonRetryable(`${what}; not retried`, 'WebhookRefused');
}
