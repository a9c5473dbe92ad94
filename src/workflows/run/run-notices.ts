/**
 * A run's notifications: each notice the ledger raises goes to the worker's webhook by an activity, and a
 * run that ends or hands over waits a while for the ones still on their way.
 */
import { CancellationScope, condition, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../protocol/activities.js';
import type { Notice } from '../../approvals/ledger-effects.js';

/**
 * A webhook that fails is tried again for about a minute, then given up: a notification never fails
 * the run, and the run does not wait on a receiver that is down for long. Refused (4xx) is final.
 */
const { notify } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['WebhookRefused', 'NotificationsOff'],
  },
});

/** How long a run that ends waits for its last notifications to be delivered. */
const NOTIFY_DRAIN = '1 minute';

export class RunNotices {
  /** Notifications on their way. */
  private notifying = 0;

  constructor(
    private readonly runId: string,
    private readonly agentId: string,
  ) {}

  /** Waits (at most a minute) until the notifications sent so far are delivered or given up. */
  async delivered(): Promise<void> {
    if (this.notifying > 0) await condition(() => this.notifying === 0, NOTIFY_DRAIN);
  }

  /**
   * Tells the worker's webhook, by an activity with retries. Its failure is only logged by the
   * activity: the run goes on. It is not cancelled with the run, so a cancelled run's last notices go out.
   */
  send(notice: Notice): void {
    this.notifying++;
    void CancellationScope.nonCancellable(() => notify(noticeBody(this.runId, this.agentId, notice)))
      .catch(() => undefined)
      .finally(() => this.notifying--);
  }
}

/** What the webhook is told of a notice: the call, and the decision when one was made. */
export function noticeBody(runId: string, agentId: string, { event, call, record }: Notice) {
  const decided = record
    ? {
        decision: {
          decisionId: record.decisionId,
          kind: record.kind,
          ...(record.principal
            ? {
                principal: {
                  id: record.principal.id,
                  ...(record.principal.name ? { name: record.principal.name } : {}),
                },
              }
            : {}),
          ...(record.by !== null ? { by: record.by } : {}),
          ...(record.reason !== null ? { reason: record.reason } : {}),
        },
      }
    : {};
  return {
    type: event,
    runId,
    agentId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    kind: call.kind,
    fingerprint: call.fingerprint,
    at: new Date().toISOString(),
    askedAt: call.askedAt,
    ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
    ...(call.decide ? { decide: call.decide } : {}),
    ...decided,
  };
}
