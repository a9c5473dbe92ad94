import { describe, expect, it } from 'vitest';
import type { PendingToolCall } from '../../src/schemas/decisions.js';
import {
  boundedJson,
  clip,
  jsonBytes,
  MAX_CONVERSATION_BYTES,
  MAX_MEMO_BYTES,
  measureJson,
  RunIdSchema,
  RunRefSchema,
  utf8Bytes,
} from '../../src/schemas/limits.js';
import type { RunMemo } from '../../src/schemas/run-result.js';
import { Conversation } from '../../src/workflows/run/conversation.js';
import { fitMemo, fitResult, pendingAttribute } from '../../src/workflows/run/payload-bounds.js';
import { runResult } from '../../src/workflows/run/transcript.js';

const pending = (id: string, args: unknown = {}): PendingToolCall => ({
  toolCallId: id,
  toolName: 'guarded',
  args: args as never,
  fingerprint: 'f'.repeat(64),
  kind: 'approval',
  requiresApproval: true,
  path: [],
  askedAt: '2026-01-01T00:00:00.000Z',
});

describe('measuring JSON', () => {
  it('walks input nested far too deep to recurse into, and refuses it', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(measureJson(deep)).toEqual({ ok: false, problem: 'it nests deeper than 64 levels' });
    expect(measureJson({ a: [1, 'x'] })).toEqual({ ok: true, bytes: 13 });
    expect(measureJson({ f: () => 1 })).toMatchObject({ ok: false, problem: 'a function is not JSON data' });
    expect(measureJson(Number.NaN)).toMatchObject({ ok: false });
  });

  it('counts UTF-8 bytes, and refuses data over its size with a tooLarge issue', () => {
    expect(utf8Bytes('aé€😀')).toBe(1 + 2 + 3 + 4);
    const parsed = boundedJson(10).safeParse('x'.repeat(20));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({
      message: '22 bytes of JSON; at most 10 bytes',
      params: { tooLarge: true },
    });
  });

  it('quotes a caller’s text on one line, clipped', () => {
    expect(clip('a\n b', 10)).toBe('a b');
    expect(clip('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('run ids', () => {
  it('takes letters, digits and . _ : - up to 200 characters, with :: left to sub-agents', () => {
    expect(RunIdSchema.safeParse('run-1.a_b:c').success).toBe(true);
    for (const bad of ['', 'a b', 'a\nb', 'a/b', 'r'.repeat(201), 'top::call-0-0']) {
      expect(RunIdSchema.safeParse(bad).success).toBe(false);
    }
    expect(RunRefSchema.safeParse('top::call-0-0').success).toBe(true);
    expect(RunRefSchema.safeParse('r'.repeat(1001)).success).toBe(false);
  });
});

describe('fitting the memo, the search attribute and the result', () => {
  const memo = (calls: PendingToolCall[], decisions = 0): RunMemo => ({
    status: 'suspended',
    version: 1,
    pendingToolCalls: calls,
    decisions: Array.from({ length: decisions }, (_, i) => ({
      decisionId: `d${i}`,
      kind: 'approve' as const,
      toolCallId: null,
      toolName: null,
      by: 'n'.repeat(2000),
      reason: 'r'.repeat(2000),
      at: 'now',
      accepted: false,
    })),
  });

  it('keeps a memo that fits as it is', () => {
    const small = memo([pending('call-0-0')], 3);
    expect(fitMemo(small)).toBe(small);
  });

  it('mentions large arguments instead of holding them, then lists only the calls that fit', () => {
    const large = memo(
      [0, 1, 2, 3].map((i) => pending(`call-0-${i}`, { blob: 'x'.repeat(400_000) })),
      50,
    );
    const fitted = fitMemo(large);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(MAX_MEMO_BYTES);
    expect(fitted.pendingToolCalls).toHaveLength(4);
    expect(fitted.pendingToolCalls[0]!.args).toEqual({
      elided: '391 KiB of JSON; the run’s history has it in full'.replace('’', "'"),
    });
    expect(fitted.decisions).toHaveLength(10);

    const many = memo(Array.from({ length: 3000 }, (_, i) => pending(`call-${i}`.padEnd(256, 'x'))));
    const listed = fitMemo(many);
    expect(jsonBytes(listed)).toBeLessThanOrEqual(MAX_MEMO_BYTES);
    expect(listed.pendingToolCalls.length + listed.omittedPendingToolCalls!).toBe(3000);
  });

  it('lists as many pending ids in the search attribute as fit in 2 KiB', () => {
    const ids = pendingAttribute(Array.from({ length: 100 }, (_, i) => pending(`call-${i}`.padEnd(100, 'x'))));
    expect(ids.length).toBeGreaterThan(10);
    expect(jsonBytes(ids)).toBeLessThanOrEqual(1800);
  });

  it('shortens a result that would not fit', () => {
    const result = runResult({
      runId: 'r',
      agentId: 'a',
      steps: [],
      messages: [],
      pending: [0, 1, 2, 3, 4].map((i) => pending(`c${i}`, 'x'.repeat(500_000))),
      decisions: [],
    });
    expect(jsonBytes(fitResult(result))).toBeLessThan(100_000);
  });
});

describe('the conversation budget', () => {
  const call = { toolCallId: 'c1', toolName: 'big', args: {}, fingerprint: 'f' };
  const output = (chars: number) => ({
    call,
    result: {
      type: 'result' as const,
      output: 'x'.repeat(chars),
      modelOutput: { type: 'text' as const, value: 'x'.repeat(chars) },
    },
  });
  const model = {
    text: '',
    toolCalls: [call],
    finishReason: 'tool-calls' as const,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    assistantMessages: [],
  };

  it('turns an output over 256 KiB, or one that would take the conversation over its budget, into a tool error', () => {
    const conversation = new Conversation([{ role: 'user', content: 'x'.repeat(MAX_CONVERSATION_BYTES - 200_000) }]);
    conversation.startStep(0, model);
    expect(conversation.admit(output(300_000)).result).toMatchObject({
      type: 'error',
      error: expect.stringMatching(
        /^The output of tool "big" is 293 KiB of JSON; a tool's output may have at most 256 KiB/,
      ),
    });
    expect(conversation.admit(output(120_000)).result).toMatchObject({
      type: 'error',
      error: expect.stringMatching(/does not fit: the run's conversation holds \d+ KiB of at most 1024 KiB/),
    });
    expect(conversation.admit(output(1000)).result.type).toBe('result');
  });
});
