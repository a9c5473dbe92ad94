/**
 * Approvals bound to a tool's preview: the fingerprint a person decides on covers the preview, an
 * approval must name it (one that names nothing, or the call without its preview, is refused; a decline
 * need not), and a memo short of space keeps the previews' hashes while it only mentions their values.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson, previewFingerprint, sha256Hex, toolCallFingerprint } from '../../src/approvals/fingerprint.js';
import { checkDecision } from '../../src/approvals/rules.js';
import { createTool } from '../../src/index.js';
import type { PendingToolCall } from '../../src/schemas/decisions.js';
import { fitMemo } from '../../src/workflows/run/payload-bounds.js';
import type { RunMemo } from '../../src/schemas/run-result.js';

const args = { to: 'ann', amount: 20 };
const own = toolCallFingerprint({ runId: 'run-1', toolCallId: 'c1', toolName: 'transfer', args });
const preview = { balance: 100, after: 80 };
const hash = sha256Hex(canonicalJson(preview));
const bound = previewFingerprint(own, hash);
const waiting: PendingToolCall = {
  toolCallId: 'c1',
  toolName: 'transfer',
  args,
  fingerprint: bound,
  kind: 'approval',
  requiresApproval: true,
  path: [],
  askedAt: '2026-12-06T10:00:00.000Z',
  preview: { value: preview, hash },
};
const none = new Map();

describe('the fingerprint of a call with a preview', () => {
  it('is bound to the preview: another preview of the same call has another', () => {
    expect(bound).toMatch(/^[0-9a-f]{64}$/);
    expect(bound).not.toBe(own);
    expect(previewFingerprint(own, sha256Hex(canonicalJson({ balance: 100, after: 79 })))).not.toBe(bound);
    // Canonical JSON: the order of the preview's keys does not matter.
    expect(previewFingerprint(own, sha256Hex(canonicalJson({ after: 80, balance: 100 })))).toBe(bound);
  });
});

describe('deciding a call with a preview', () => {
  it('takes an approval that names the fingerprint shown with the preview, and refuses one that names none', () => {
    expect(checkDecision('approve', { toolCallId: 'c1', fingerprint: bound }, [waiting], none)).toMatchObject({
      accepted: true,
    });
    expect(checkDecision('approve', { toolCallId: 'c1' }, [waiting], none)).toMatchObject({
      accepted: false,
      type: 'FingerprintMismatch',
      message: expect.stringContaining('is approved on its preview: send the fingerprint'),
    });
    // The call's own fingerprint (its `tool-call` chunk's) is not the one with the preview.
    expect(checkDecision('approve', { toolCallId: 'c1', fingerprint: own }, [waiting], none)).toMatchObject({
      accepted: false,
      type: 'FingerprintMismatch',
    });
  });

  it('takes a decline that names nothing: refusing a call needs no preview', () => {
    expect(checkDecision('decline', { toolCallId: 'c1' }, [waiting], none)).toMatchObject({ accepted: true });
  });
});

describe('a memo short of space', () => {
  it('keeps previews whole (an approver sees all the fingerprint binds), and leaves out the calls that do not fit', () => {
    const large = { rows: 'x'.repeat(30_000) };
    const calls = Array.from({ length: 40 }, (_, i) => ({
      ...waiting,
      toolCallId: `c${i}`,
      preview: { value: large, hash, previous: { value: large, hash: 'h0' } },
    }));
    const memo = { pendingToolCalls: calls, decisions: [] } as unknown as RunMemo;
    const fitted = fitMemo(memo);
    expect(fitted.pendingToolCalls.length).toBeLessThan(40);
    expect(fitted.omittedPendingToolCalls).toBe(40 - fitted.pendingToolCalls.length);
    for (const call of fitted.pendingToolCalls) {
      expect(call.preview).toEqual({ value: large, hash, previous: { value: large, hash: 'h0' } });
    }
  });
});

describe('createTool', () => {
  const base = { id: 't', inputSchema: z.object({}) };
  it('refuses a preview that is no function, and one on a client tool (it is checked where the call runs)', () => {
    expect(() => createTool({ ...base, execute: async () => 1, preview: 'diff' as never })).toThrow(
      /`preview` must be a function of the input/,
    );
    expect(() => createTool({ ...base, preview: () => 'diff' })).toThrow(/`preview` needs `execute`/);
  });
});
