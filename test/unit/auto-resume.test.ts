import { describe, expect, it } from 'vitest';
import { autoResumeTarget, autoResumeVerdict } from '../../src/approvals/auto-resume.js';
import { effectiveRunOptions } from '../../src/approvals/policy.js';
import type { AgentSpec } from '../../src/schemas/agent-spec.js';
import { APPROVAL_RESUME_SCHEMA, extractionSchema, lastUserText } from '../../src/schemas/auto-resume.js';
import type { PendingToolCall } from '../../src/schemas/decisions.js';
import { zodFromJsonSchema } from '../../src/schemas/json.js';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const call = (over: Partial<PendingToolCall> = {}): PendingToolCall => ({
  toolCallId: 'c1',
  toolName: 'weather',
  args: {},
  fingerprint: 'f',
  kind: 'suspend',
  requiresApproval: false,
  path: [],
  resumeSchema: schema,
  askedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const on = { suspensions: true, approvals: false };
const off = { suspensions: false, approvals: false };

describe('which call a message may decide', () => {
  it('resumes a suspension with a resumeSchema where the agent or the message turns it on', () => {
    expect(autoResumeVerdict(call(), on, undefined)).toEqual({ ok: true, kind: 'suspend', schema });
    expect(autoResumeVerdict(call(), off, true)).toMatchObject({ ok: true });
    expect(autoResumeVerdict(call(), undefined, true)).toMatchObject({ ok: true });
  });

  it('is off by default, and a message may turn it off', () => {
    expect(autoResumeVerdict(call(), off, undefined)).toMatchObject({ ok: false, type: 'NotAllowed' });
    expect(autoResumeVerdict(call(), undefined, undefined)).toMatchObject({ ok: false, type: 'NotAllowed' });
    expect(autoResumeVerdict(call(), on, false)).toMatchObject({ ok: false, type: 'NotAllowed' });
  });

  it('does not guess for a tool without a resumeSchema', () => {
    const verdict = autoResumeVerdict(call({ resumeSchema: undefined }), on, undefined);
    expect(verdict).toMatchObject({
      ok: false,
      type: 'WrongPauseKind',
      message: expect.stringMatching(/no resumeSchema/),
    });
  });

  it('decides an approval only where the agent lets messages decide approvals: a message cannot', () => {
    const approval = call({ kind: 'approval', requiresApproval: true, resumeSchema: undefined });
    expect(autoResumeVerdict(approval, on, true)).toMatchObject({ ok: false, type: 'WrongPauseKind' });
    expect(autoResumeVerdict(approval, { suspensions: false, approvals: true }, undefined)).toEqual({
      ok: true,
      kind: 'approval',
      schema: APPROVAL_RESUME_SCHEMA,
    });
    expect(autoResumeVerdict(approval, { suspensions: true, approvals: true }, false)).toMatchObject({ ok: false });
  });

  it('never decides a client tool or an uncertain call', () => {
    for (const kind of ['client', 'uncertain'] as const) {
      expect(autoResumeVerdict(call({ kind }), { suspensions: true, approvals: true }, true)).toMatchObject({
        ok: false,
        type: 'WrongPauseKind',
      });
    }
  });

  it('picks the most recent call a message may decide, across the thread’s waiting runs', () => {
    const runs = [
      {
        runId: 'a',
        pendingToolCalls: [call({ toolCallId: 'old', askedAt: '2026-01-01T00:00:00.000Z' })],
        autoResume: on,
      },
      {
        runId: 'b',
        pendingToolCalls: [
          call({ toolCallId: 'new', askedAt: '2026-01-02T00:00:00.000Z' }),
          call({ toolCallId: 'newest-client', kind: 'client', askedAt: '2026-01-03T00:00:00.000Z' }),
        ],
        autoResume: on,
      },
      { runId: 'c', pendingToolCalls: [call({ toolCallId: 'off', askedAt: '2026-01-04T00:00:00.000Z' })] },
    ];
    expect(autoResumeTarget(runs, undefined)).toMatchObject({ runId: 'b', call: { toolCallId: 'new' } });
    expect(autoResumeTarget(runs, true)).toMatchObject({ runId: 'c', call: { toolCallId: 'off' } });
    expect(autoResumeTarget(runs, false)).toBeUndefined();
  });
});

describe('what the model is asked for', () => {
  it('the data or null, and what is missing', () => {
    const shape = zodFromJsonSchema(extractionSchema(schema));
    expect(shape.safeParse({ resumeData: { city: 'Paris' }, missing: null }).success).toBe(true);
    expect(shape.safeParse({ resumeData: null, missing: 'which city?' }).success).toBe(true);
    expect(shape.safeParse({ resumeData: { town: 'Paris' }, missing: null }).success).toBe(false);
  });

  it('reads the text of the last user message', () => {
    expect(lastUserText([{ role: 'user', content: 'Paris' }])).toBe('Paris');
    expect(
      lastUserText([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image', image: 'x' },
            { type: 'text', text: 'b' },
          ],
        },
      ]),
    ).toBe('a\nb');
    expect(lastUserText([{ role: 'user', content: [{ type: 'image', image: 'x' }] }])).toBeUndefined();
    expect(lastUserText([{ role: 'assistant', content: 'no user' }])).toBeUndefined();
  });
});

describe('approvals by message are the agent’s to allow', () => {
  const spec = { id: 'a', name: 'a', instructions: '', tools: [] } as unknown as AgentSpec;
  it('a run may turn them off, never on', () => {
    expect(effectiveRunOptions(spec, { autoResumeApprovals: true })).toMatchObject({
      allowed: false,
      problems: [expect.stringMatching(/autoResumeApprovals: agent "a" does not let a chat message decide/)],
    });
    const allowing = { ...spec, defaultOptions: { autoResumeApprovals: true } };
    expect(effectiveRunOptions(allowing, { autoResumeApprovals: false })).toMatchObject({
      allowed: true,
      options: { autoResumeApprovals: false },
    });
  });
});
