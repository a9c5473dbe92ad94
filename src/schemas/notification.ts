/**
 * What a worker's webhook is sent about a run's waiting calls (docs/guides/http-server.md, "Notifications"). Small on
 * purpose: no arguments, payloads or conversation, which may be sensitive; the receiver follows
 * `link` to the inbox (or reads the run) for those. Sandbox-safe.
 */
import { z } from 'zod';
import { AccessRuleSchema } from './access.js';
import { TrailKindSchema } from './decisions.js';

export const NotificationTypeSchema = z.enum(['waiting', 'decided', 'escalated', 'expired']);
export type NotificationType = z.infer<typeof NotificationTypeSchema>;

/** What the run tells its worker's `notify` activity; the activity adds `link` and signs it. */
export const NotificationSchema = z.object({
  /** `waiting`: a call starts to wait; `decided`: a decision was accepted; `escalated`, `expired`: its deadline. */
  type: NotificationTypeSchema,
  /** The run the call waits in (a sub-agent's run tells of its own calls: `<parent run>::<call>`). */
  runId: z.string(),
  agentId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  /** What the call waits for: `approval`, `suspend` (resume data), `client` (a result), `uncertain`. */
  kind: z.enum(['approval', 'suspend', 'client', 'uncertain']),
  /** Name it when deciding, so that the decision is for this call. */
  fingerprint: z.string(),
  /** When this happened (the run's time), ISO 8601. */
  at: z.string(),
  /** When the call started waiting. */
  askedAt: z.string(),
  /** When its approval expires, if it has a deadline. */
  expiresAt: z.string().optional(),
  /** Who may decide it (now: after an escalation, the escalation's approvers); unset: anyone who may act on the run. */
  decide: AccessRuleSchema.optional(),
  /** For `decided`, `escalated`, `expired`: the trail entry. */
  decision: z
    .object({
      decisionId: z.string(),
      kind: TrailKindSchema,
      principal: z.object({ id: z.string(), name: z.string().optional() }).optional(),
      by: z.string().optional(),
      reason: z.string().optional(),
    })
    .optional(),
});
export type Notification = z.infer<typeof NotificationSchema>;

/** The body the webhook receives: the notification, and a link to the call in the inbox when the worker knows it. */
export const WebhookPayloadSchema = NotificationSchema.extend({
  /** The call's entry in the approval inbox (`<inboxUrl>?run=<runId>&call=<toolCallId>`), when configured. */
  link: z.string().optional(),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
