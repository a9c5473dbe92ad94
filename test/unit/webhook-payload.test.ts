import { describe, expect, it } from 'vitest';
import {
  NOTIFICATION_TYPES,
  parseWebhookPayload,
  TRAIL_KINDS,
  WAITING_KINDS,
} from '../../src/notifications/webhook-payload.js';
import { TrailKindSchema } from '../../src/schemas/decisions.js';
import { safeParse } from '../../src/schemas/json.js';
import { NotificationSchema, NotificationTypeSchema, WebhookPayloadSchema } from '../../src/schemas/notification.js';

// verifyWebhook checks bodies by hand (the client's entry loads no zod): every answer must be the schema's.
const base = {
  type: 'decided',
  runId: 'run-1',
  agentId: 'bank',
  toolCallId: 'call-0-0',
  toolName: 'transfer',
  kind: 'approval',
  fingerprint: 'f'.repeat(64),
  at: '2026-01-01T00:00:00.000Z',
  askedAt: '2026-01-01T00:00:00.000Z',
};
const full = {
  ...base,
  expiresAt: '2026-01-02T00:00:00.000Z',
  decide: ['*', 'user:ann', 'role:ops', 'group:g'],
  decision: { decisionId: 'd-1', kind: 'approve', principal: { id: 'ann', name: 'Ann' }, by: 'x', reason: 'ok' },
  link: 'https://inbox/?run=run-1',
};
/** Every JSON type, and a field left out. */
const kinds: unknown[] = [undefined, null, true, 0, 1.5, '', 'x', [], ['x'], {}, { a: 1 }];

function cases(): unknown[] {
  const all: unknown[] = [base, full, ...kinds, { ...full, extra: 1, decision: { ...full.decision, more: [1] } }];
  all.push(Object.fromEntries(Object.entries(full).reverse()));
  for (const key of Object.keys(full)) {
    for (const v of kinds) all.push({ ...full, [key]: v });
    for (const v of kinds) all.push({ ...full, decision: { ...full.decision, [key === 'type' ? 'kind' : key]: v } });
  }
  for (const key of Object.keys(full.decision)) {
    for (const v of kinds) all.push({ ...full, decision: { ...full.decision, [key]: v } });
  }
  for (const v of kinds) all.push({ ...full, decision: { ...full.decision, principal: { id: v, name: v } } });
  for (const t of [...NOTIFICATION_TYPES, 'Waiting', 'other']) all.push({ ...base, type: t });
  for (const k of [...WAITING_KINDS, 'approve']) all.push({ ...base, kind: k });
  for (const k of [...TRAIL_KINDS, 'approval']) all.push({ ...full, decision: { ...full.decision, kind: k } });
  const entries = ['*', '**', 'user:', 'user:a', 'role:r', 'group:g', 'team:t', 'user:a\nb', `user:${'a'.repeat(257)}`];
  for (const e of entries) all.push({ ...base, decide: [e] });
  for (const n of [63, 64, 65, 200]) {
    all.push({ ...base, decide: Array<string>(n).fill('*') });
    all.push({ ...base, decide: Array<unknown>(n).fill('bad') });
    all.push({ ...base, decide: [3, ...Array<string>(n - 1).fill('*')] });
  }
  all.push({ ...base, decide: ['x', 3, true, null, {}, [], '*'] });
  all.push({ $undecodable: 'no key' }, { $undecodable: 3 }, { ...base, $undecodable: 'x' });
  let deep: unknown = 'leaf';
  for (let i = 0; i < 600; i++) deep = [deep];
  all.push({ ...full, extra: deep }, deep);
  return all;
}

describe('the webhook payload check', () => {
  it('answers as safeParse(WebhookPayloadSchema) does: the same data, the same refusal', () => {
    for (const value of cases()) {
      const json: unknown = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
      const mine = parseWebhookPayload(json);
      const zods = safeParse(WebhookPayloadSchema, json);
      expect(mine, JSON.stringify(json)?.slice(0, 300)).toEqual(zods);
      if (mine.success && zods.success) expect(Object.keys(mine.data)).toEqual(Object.keys(zods.data));
    }
  });

  it('knows the schema options and keys', () => {
    expect([...NOTIFICATION_TYPES]).toEqual(NotificationTypeSchema.options);
    expect([...WAITING_KINDS]).toEqual(NotificationSchema.shape.kind.options);
    expect([...TRAIL_KINDS]).toEqual(TrailKindSchema.options);
    expect(Object.keys(full)).toEqual(Object.keys(WebhookPayloadSchema.shape));
  });
});
