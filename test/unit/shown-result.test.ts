import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/schemas/run-result.js';
import type { RunStreamChunk } from '../../src/schemas/stream-chunks.js';
import { NOT_SHOWN, shownResult } from '../../src/server/shown-result.js';

const call = (toolCallId: string, args: unknown) => ({ toolCallId, toolName: 'lookup', args });
const result = (toolCallId: string, output: unknown) => ({ toolCallId, toolName: 'lookup', output, isError: false });

/** Only the fields shownResult reads: the calls and their outcomes, none waiting. */
function runResult(): RunResult {
  const toolCalls = [call('shown', { ssn: '123-45-6789' }), call('unseen', { ssn: '987-65-4321' })];
  const toolResults = [result('shown', null), result('unseen', { ssn: '987-65-4321' })];
  // The conversation holds the same values: the model's calls and the tool's results.
  const messages = [
    { role: 'user', content: 'look them up' },
    {
      role: 'assistant',
      content: toolCalls.map((c) => ({
        type: 'tool-call',
        toolCallId: c.toolCallId,
        toolName: 'lookup',
        input: c.args,
      })),
    },
    {
      role: 'tool',
      content: toolResults.map((r) => ({
        type: 'tool-result',
        toolCallId: r.toolCallId,
        toolName: 'lookup',
        output: { type: 'json', value: r.output },
      })),
    },
  ];
  return {
    steps: [{ toolCalls, toolResults }],
    toolCalls,
    toolResults,
    messages,
    pendingToolCalls: [],
  } as unknown as RunResult;
}

describe('shownResult (what POST /generate answers)', () => {
  it('gives each call as the stream showed it, and no value of a call the stream did not show', () => {
    const chunks = [
      { type: 'tool-call', toolCallId: 'shown', toolName: 'lookup', args: { ssn: '***-**-****' } },
      { type: 'tool-result', toolCallId: 'shown', toolName: 'lookup', output: null },
    ] as unknown as RunStreamChunk[];
    const answered = shownResult(runResult(), chunks);
    expect(answered.toolCalls.map((c) => c.args)).toEqual([{ ssn: '***-**-****' }, NOT_SHOWN]);
    expect(answered.toolResults.map((r) => (r.isError ? r.error : r.output))).toEqual([null, NOT_SHOWN]);
    expect(JSON.stringify(answered)).not.toMatch(/\d{3}-\d{2}-\d{4}/);
  });

  // The probe: the answer's `messages` carried the raw values that its steps hid.
  it('shows the conversation as the stream showed it too', () => {
    const chunks = [
      { type: 'tool-call', toolCallId: 'shown', toolName: 'lookup', args: { ssn: '***-**-****' } },
      { type: 'tool-result', toolCallId: 'shown', toolName: 'lookup', output: { found: true } },
    ] as unknown as RunStreamChunk[];
    const { messages } = shownResult(runResult(), chunks);
    expect(messages[0]).toEqual({ role: 'user', content: 'look them up' });
    expect(messages[1]!.content).toMatchObject([
      { type: 'tool-call', toolCallId: 'shown', input: { ssn: '***-**-****' } },
      { type: 'tool-call', toolCallId: 'unseen', input: NOT_SHOWN },
    ]);
    expect(messages[2]!.content).toMatchObject([
      { type: 'tool-result', toolCallId: 'shown', output: { type: 'json', value: { found: true } } },
      { type: 'tool-result', toolCallId: 'unseen', output: { type: 'json', value: NOT_SHOWN } },
    ]);
    expect(JSON.stringify(messages)).not.toMatch(/\d{3}-\d{2}-\d{4}/);
  });
});

describe('shownResult: the waiting call', () => {
  const raw = { toolCallId: 'w', toolName: 'lookup', args: { ssn: '123-45-6789' }, fingerprint: 'f' };
  const suspended = (pending: unknown[]): RunResult =>
    ({
      steps: [],
      toolCalls: [],
      toolResults: [],
      messages: [],
      pendingToolCalls: pending,
      finishReason: 'suspended',
      suspendPayload: { ...raw, requiresApproval: false, payload: { ssn: '123-45-6789' } },
    }) as unknown as RunResult;

  it('is shown in its display form, without the raw payload a transform left out', () => {
    const answered = shownResult(suspended([{ ...raw, display: { args: { ssn: '***' } } }]), []);
    expect(answered.suspendPayload).toMatchObject({ toolCallId: 'w', args: { ssn: '***' } });
    expect(answered.suspendPayload).not.toHaveProperty('payload');
  });

  it('is shown with no values when the result lists no such waiting call', () => {
    const answered = shownResult(suspended([]), []);
    expect(answered.suspendPayload).toMatchObject({ toolCallId: 'w', args: NOT_SHOWN, payload: NOT_SHOWN });
  });

  it('keeps its own values when no transform shapes it', () => {
    const answered = shownResult(suspended([raw]), []);
    expect(answered.suspendPayload).toMatchObject({ args: raw.args, payload: { ssn: '123-45-6789' } });
  });
});
