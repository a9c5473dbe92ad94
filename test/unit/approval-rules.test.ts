import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, toolCallFingerprint } from '../../src/approvals/fingerprint.js';
import type { DecisionRecord, PendingToolCall } from '../../src/schemas/decisions.js';
import type { JsonValue } from '../../src/schemas/json.js';
import { declineMessage } from '../../src/approvals/decision-messages.js';
import { decisionRecord } from '../../src/approvals/decision-record.js';
import { checkDecision, judgeDecision, resumeAsApproval } from '../../src/approvals/rules.js';

const approval = (id: string, fingerprint = `fp-${id}`): PendingToolCall => ({
  toolCallId: id,
  toolName: 'deleteRecord',
  args: { id: 'r2' },
  fingerprint,
  kind: 'approval',
  requiresApproval: true,
  path: [],
  askedAt: '2026-01-01T00:00:00.000Z',
});
const suspension = (id: string): PendingToolCall => ({
  ...approval(id),
  toolName: 'ask',
  kind: 'suspend',
  requiresApproval: false,
  suspendPayload: { question: '?' },
});
const none = new Map<string, DecisionRecord>();

describe('fingerprints', () => {
  it('do not depend on key order, at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    const call = { runId: 'r', toolCallId: 'c', toolName: 't' };
    expect(toolCallFingerprint({ ...call, args: { a: 1, b: 2 } })).toBe(
      toolCallFingerprint({ ...call, args: { b: 2, a: 1 } }),
    );
  });
  it('change with the run, the tool-call id, the tool name and the arguments', () => {
    const call = { runId: 'run-1', toolCallId: 'call-1-0', toolName: 'deleteRecord', args: { id: 'r2' } };
    const base = toolCallFingerprint(call);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    // The same call in another run, or another call of the same run, cannot share an approval.
    expect(toolCallFingerprint({ ...call, runId: 'run-2' })).not.toBe(base);
    expect(toolCallFingerprint({ ...call, toolCallId: 'call-2-0' })).not.toBe(base);
    expect(toolCallFingerprint({ ...call, toolName: 'deleteRecords' })).not.toBe(base);
    expect(toolCallFingerprint({ ...call, args: { id: 'r3' } })).not.toBe(base);
    // SHA-256 of the four parts, one a line: what a third party computes to check one.
    expect(toolCallFingerprint({ runId: 'r', toolCallId: 'c', toolName: 't', args: {} })).toBe(
      createHash('sha256').update('r\nc\nt\n{}').digest('hex'),
    );
  });
});

describe('checkDecision', () => {
  it('takes the most recent pending call of the fitting kind when no id is given', () => {
    const pending = [approval('a'), suspension('s'), approval('b')];
    expect(checkDecision('approve', {}, pending, none)).toMatchObject({ accepted: true, call: { toolCallId: 'b' } });
    expect(checkDecision('resume', {}, pending, none)).toMatchObject({ accepted: true, call: { toolCallId: 's' } });
  });

  it('accepts a matching fingerprint and refuses another, naming neither the arguments nor the real one', () => {
    expect(checkDecision('approve', { toolCallId: 'a', fingerprint: 'fp-a' }, [approval('a')], none).accepted).toBe(
      true,
    );
    const refused = checkDecision('approve', { toolCallId: 'a', fingerprint: 'fp-other' }, [approval('a')], none);
    expect(refused).toMatchObject({ accepted: false, type: 'FingerprintMismatch' });
    expect(!refused.accepted && refused.message).toBe(
      'fingerprint fp-other does not match tool call a (deleteRecord): the call you decided on is not the one ' +
        'waiting; read the call again and decide on what it shows',
    );
  });

  it('refuses an unknown tool-call id, listing the pending ones', () => {
    const refused = checkDecision('approve', { toolCallId: 'x' }, [approval('a')], none);
    expect(refused).toEqual({
      accepted: false,
      type: 'UnknownToolCall',
      message: 'the run waits on no tool call x; pending: deleteRecord a',
    });
  });

  it('refuses a second decision for a call, saying who decided it', () => {
    const earlier: DecisionRecord = {
      decisionId: 'd1',
      kind: 'decline',
      toolCallId: 'a',
      toolName: 'deleteRecord',
      by: 'bob',
      reason: null,
      at: '2026-01-01T00:00:01.000Z',
      accepted: true,
    };
    const refused = checkDecision('approve', { toolCallId: 'a' }, [], new Map([['a', earlier]]));
    expect(refused).toMatchObject({ accepted: false, type: 'AlreadyDecided' });
    expect(!refused.accepted && refused.message).toContain('decline by bob at 2026-01-01T00:00:01.000Z');
  });

  it('refuses resume for an approval and approval for a suspension', () => {
    expect(checkDecision('resume', { toolCallId: 'a' }, [approval('a')], none)).toMatchObject({
      accepted: false,
      type: 'WrongPauseKind',
    });
    expect(checkDecision('approve', { toolCallId: 's' }, [suspension('s')], none)).toMatchObject({
      accepted: false,
      type: 'WrongPauseKind',
    });
    expect(checkDecision('approve', {}, [suspension('s')], none)).toMatchObject({
      accepted: false,
      type: 'WrongPauseKind',
    });
  });

  it('refuses when nothing is pending', () => {
    expect(checkDecision('decline', {}, [], none)).toEqual({
      accepted: false,
      type: 'NothingPending',
      message: 'the run waits on no tool call',
    });
  });
});

describe('decision records and decline messages', () => {
  it('record who, when, why and the verdict', () => {
    const check = checkDecision('approve', { toolCallId: 'a', fingerprint: 'bad' }, [approval('a')], none);
    expect(
      decisionRecord('approve', { decisionId: 'd', toolCallId: 'a', fingerprint: 'bad', by: 'alice' }, 'T', check),
    ).toMatchObject({
      decisionId: 'd',
      kind: 'approve',
      toolCallId: 'a',
      toolName: 'deleteRecord',
      by: 'alice',
      at: 'T',
      accepted: false,
      refusal: { type: 'FingerprintMismatch' },
    });
  });
  it('tell the model who declined and why', () => {
    expect(declineMessage('deleteRecord', 'alice', 'not today')).toBe(
      'The call of tool "deleteRecord" was declined by alice: not today. It did not run.',
    );
    expect(declineMessage('deleteRecord', null, null)).toBe(
      'The call of tool "deleteRecord" was declined. It did not run.',
    );
  });
});

describe('judgeDecision: changed arguments', () => {
  const run = { resourceId: undefined, startedBy: undefined };
  const judged = (inputSchema: Record<string, unknown>, args: JsonValue) =>
    judgeDecision('approve', { toolCallId: 'a', args }, [{ ...approval('a'), inputSchema }], none, run);

  it('are checked against the input schema', () => {
    const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    expect(judged(schema, { id: 'r3' }).accepted).toBe(true);
    expect(judged(schema, { id: 3 })).toMatchObject({ accepted: false, type: 'InvalidArguments' });
  });

  it('are left to where the tool runs when zod cannot rebuild the schema (an MCP server may use any keyword)', () => {
    const schema = { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } };
    expect(judged(schema, { id: 'r3' }).accepted).toBe(true);
  });

  it('are refused, not checked, where checking them would hold the run past its workflow task deadline', () => {
    let node: Record<string, unknown> = { type: 'string' };
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 8; i++) {
      $defs[`d${i}`] = node;
      node = { allOf: [{ $ref: `#/$defs/d${i}` }, { $ref: `#/$defs/d${i}` }] };
    }
    const schema = { type: 'object', properties: { ids: { type: 'array', items: node } }, $defs };
    const args = { ids: Array.from({ length: 50_000 }, () => 'x') };
    expect(judged(schema, args)).toMatchObject({
      accepted: false,
      type: 'InvalidArguments',
      message: expect.stringMatching(
        /^the changed arguments of tool call a \(.*\) are not checked: checking .* would take too long/,
      ),
    });
    expect(judged(schema, { ids: ['x'] }).accepted).toBe(true);
  });
});

describe('judgeDecision: a model step that waits', () => {
  const run = { resourceId: undefined, startedBy: undefined };
  const step: PendingToolCall = {
    ...approval('@model-step-2'),
    toolName: '@model',
    kind: 'uncertain',
    requiresApproval: false,
    uncertainty: 'the model provider of "openai/gpt-5-mini" refused the call (HTTP 401 unauthorized): bad key',
  };
  const judged = (resolution: 'retry' | 'skip' | 'fail') =>
    judgeDecision('resolve', { toolCallId: '@model-step-2', resolution }, [step], none, run);

  it('is retried or failed, never skipped: nothing stands in for the model', () => {
    expect(judged('retry').accepted).toBe(true);
    expect(judged('fail').accepted).toBe(true);
    expect(judged('skip')).toMatchObject({
      accepted: false,
      type: 'InvalidDecision',
      message: '@model-step-2 is a model step that waits: resolve it with retry or fail, not skip',
    });
  });
});

describe('safeParse', () => {
  it('refuses input too deep to check before zod walks it, instead of a thrown RangeError', async () => {
    const { JsonValueSchema, MAX_PARSE_DEPTH, safeParse } = await import('../../src/schemas/json.js');
    const nested = (levels: number) => {
      let deep: unknown = 0;
      for (let i = 0; i < levels; i++) deep = [deep];
      return deep;
    };
    for (const levels of [MAX_PARSE_DEPTH + 1, 20_000]) {
      expect(safeParse(JsonValueSchema, nested(levels))).toEqual({
        success: false,
        error: `it nests deeper than ${MAX_PARSE_DEPTH} levels`,
      });
    }
    expect(safeParse(JsonValueSchema, nested(MAX_PARSE_DEPTH)).success).toBe(true);
    expect(safeParse(JsonValueSchema, { a: [1, 'x', null] })).toEqual({ success: true, data: { a: [1, 'x', null] } });
  });
});

describe("Mastra's decision forms", () => {
  const deep = (id: string): PendingToolCall => ({
    ...approval(id),
    path: [{ runId: 'run-1::call-0', agentId: 'ops-agent', viaToolCallId: 'call-0' }],
  });

  it('takes the id of the delegation a call waits beneath, when exactly one call waits there', () => {
    const pending = [deep('call-0/call-1-0'), approval('call-9')];
    const check = checkDecision('approve', { toolCallId: 'call-0' }, pending, none);
    expect(check).toMatchObject({ accepted: true, call: { toolCallId: 'call-0/call-1-0' } });

    const two = [deep('call-0/call-1-0'), deep('call-0/call-1-1')];
    expect(checkDecision('approve', { toolCallId: 'call-0' }, two, none)).toMatchObject({
      accepted: false,
      type: 'UnknownToolCall',
      message: expect.stringMatching(/2 calls wait beneath the delegation call-0; name one by its own id/),
    });
    // A prefix of an id is not a delegation.
    expect(checkDecision('approve', { toolCallId: 'call-0/call-1' }, pending, none)).toMatchObject({
      accepted: false,
    });
  });

  it('reads resume({ approved }) on an approval as that approval or decline, and leaves any other resume', () => {
    const pending = [suspension('call-1'), approval('call-2')];
    expect(resumeAsApproval('resume', { resumeData: { approved: true } }, pending)).toEqual({
      kind: 'approve',
      target: {},
    });
    expect(
      resumeAsApproval('resume', { toolCallId: 'call-2', resumeData: { approved: false, reason: 'no' } }, pending),
    ).toEqual({ kind: 'decline', target: { toolCallId: 'call-2', reason: 'no' } });
    // The suspension takes its data, whatever its shape.
    const forSuspension = { toolCallId: 'call-1', resumeData: { approved: true } };
    expect(resumeAsApproval('resume', forSuspension, pending)).toEqual({ kind: 'resume', target: forSuspension });
    expect(resumeAsApproval('resume', { resumeData: { answer: 'x' } }, pending)).toMatchObject({ kind: 'resume' });
    expect(resumeAsApproval('approve', { resumeData: { approved: false } }, pending)).toMatchObject({
      kind: 'approve',
    });
    // Data for the tool would be dropped by an approval: refused, with the keys named.
    expect(resumeAsApproval('resume', { resumeData: { approved: true, note: 'x' } }, pending)).toEqual({
      refusal: expect.stringMatching(/an approval carries no data to the tool, and this one has "note"/),
    });
  });
});
