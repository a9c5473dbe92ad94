import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../src/client/runs/runs.js';
import type { PendingToolCall } from '../../src/schemas/decisions.js';
import { inboxEntries, INBOX_TRAIL_LENGTH } from '../../src/server/inbox.js';

const call = (over: Partial<PendingToolCall>): PendingToolCall => ({
  toolCallId: 'call-0-0',
  toolName: 'wire',
  args: { account: 'DE44-SECRET' },
  fingerprint: 'f',
  kind: 'approval',
  requiresApproval: true,
  path: [],
  askedAt: '2026-05-01T09:00:00.000Z',
  ...over,
});

const run = (runId: string, pendingToolCalls: PendingToolCall[], over: Partial<RunInfo> = {}): RunInfo => ({
  runId,
  agentId: 'bank',
  threadId: undefined,
  resourceId: 'acme',
  startTime: new Date('2026-05-01T08:00:00.000Z'),
  pendingToolCalls,
  status: 'suspended',
  workflowStatus: 'RUNNING',
  closeTime: undefined,
  decisions: [],
  refusals: { count: 0, recent: [] },
  startedBy: { id: 'alice' },
  read: undefined,
  ...over,
});

describe('inboxEntries', () => {
  it('shows what the stream shows: display transforms replace the raw arguments and payload', () => {
    const [entry] = inboxEntries(
      [run('r1', [call({ display: { args: { account: '****' }, suspendPayload: 'hidden' }, suspendPayload: 'raw' })])],
      { id: 'bob' },
    );
    expect(entry!.call.args).toEqual({ account: '****' });
    expect(entry!.call.suspendPayload).toBe('hidden');
    expect(entry!.call.transformed).toBe(true);
    expect(JSON.stringify(entry)).not.toContain('DE44-SECRET');
  });

  it('lists every call newest first, one entry a call', () => {
    const entries = inboxEntries(
      [
        run('r1', [call({ askedAt: '2026-05-01T09:00:00.000Z' })]),
        run('r2', [
          call({ toolCallId: 'a', askedAt: '2026-05-01T10:00:00.000Z' }),
          call({ toolCallId: 'b', askedAt: '2026-05-01T08:30:00.000Z' }),
        ]),
      ],
      { id: 'bob' },
    );
    expect(entries.map((e) => `${e.runId}/${e.call.toolCallId}`)).toEqual(['r2/a', 'r1/call-0-0', 'r2/b']);
  });

  it('says why the principal may not decide: the starter of an approval, or outside its rule', () => {
    const runs = [run('r1', [call({ selfApproval: false }), call({ toolCallId: 'x', decide: ['role:approver'] })])];
    const [own, ruled] = inboxEntries(runs, { id: 'alice' });
    expect(own).toMatchObject({ mayDecide: false, refusal: expect.stringContaining('started this run') });
    expect(ruled).toMatchObject({ mayDecide: false, refusal: expect.stringContaining('allowed: role:approver') });
    expect(inboxEntries(runs, { id: 'bob', roles: ['approver'] }).map((e) => e.mayDecide)).toEqual([true, true]);
  });

  it('keeps the most recent trail entries', () => {
    const decisions = Array.from({ length: INBOX_TRAIL_LENGTH + 5 }, (_, i) => ({
      decisionId: `d${i}`,
      kind: 'approve' as const,
      toolCallId: null,
      toolName: null,
      by: null,
      reason: null,
      at: '2026-05-01T09:00:00.000Z',
      accepted: false,
    }));
    const [entry] = inboxEntries([run('r1', [call({})], { decisions })], { id: 'bob' });
    expect(entry!.trail.map((d) => d.decisionId)).toEqual(decisions.slice(5).map((d) => d.decisionId));
  });
});
