import { describe, expect, it } from 'vitest';
import { UiChunkMapper } from '../../src/server/ui-message-chunks.js';
import { clientChunk, type RunStreamChunk } from '../../src/schemas/stream-chunks.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

describe('UiChunkMapper', () => {
  it('opens a text part on its first delta and closes it at the end of the step', () => {
    const m = new UiChunkMapper('run-1');
    const chunks: RunStreamChunk[] = [
      { type: 'start', runId: 'run-1', agentId: 'a', resumed: false, offset: 0 },
      { type: 'start-step', stepNumber: 0, offset: 1 },
      { type: 'text-delta', stepNumber: 0, attempt: 1, id: 't', delta: 'Hel', offset: 2 },
      { type: 'text-delta', stepNumber: 0, attempt: 1, id: 't', delta: 'lo', offset: 3 },
      { type: 'step-finish', stepNumber: 0, text: 'Hello', finishReason: 'stop', usage, offset: 4 },
    ];
    expect(chunks.flatMap((c) => m.map(c))).toEqual([
      { type: 'start', messageId: 'run-1', messageMetadata: { runId: 'run-1', offset: 0 } },
      { type: 'start-step' },
      { type: 'text-start', id: '0-1-t' },
      { type: 'text-delta', id: '0-1-t', delta: 'Hel' },
      { type: 'text-delta', id: '0-1-t', delta: 'lo' },
      { type: 'text-end', id: '0-1-t' },
      { type: 'finish-step' },
    ]);
  });

  it('maps tool calls, approvals, suspensions, results, declines and errors', () => {
    const m = new UiChunkMapper('r');
    const call = { toolCallId: 'c', toolName: 't' };
    expect(m.map({ type: 'tool-call', stepNumber: 0, ...call, args: { x: 1 }, fingerprint: 'f', offset: 1 })).toEqual([
      { type: 'tool-input-available', toolCallId: 'c', toolName: 't', input: { x: 1 } },
    ]);
    expect(
      m.map({ ...clientChunk({ type: 'tool-call-approval', ...call, args: {}, fingerprint: 'f' }), offset: 2 }),
    ).toEqual([{ type: 'tool-approval-request', approvalId: 'f', toolCallId: 'c' }]);
    expect(
      m.map({
        ...clientChunk({ type: 'tool-call-suspended', ...call, args: {}, fingerprint: 'f', payload: { q: 1 } }),
        offset: 3,
      }),
    ).toEqual([
      {
        type: 'data-tool-suspended',
        id: 'c',
        data: { toolCallId: 'c', toolName: 't', args: {}, fingerprint: 'f', payload: { q: 1 } },
      },
    ]);
    expect(m.map({ type: 'tool-result', ...call, output: 5, offset: 4 })).toEqual([
      { type: 'tool-output-available', toolCallId: 'c', output: 5 },
    ]);
    expect(m.map({ type: 'tool-error', ...call, error: 'declined', declined: true, offset: 5 })).toEqual([
      { type: 'tool-output-denied', toolCallId: 'c' },
    ]);
    expect(m.map({ type: 'tool-error', ...call, error: 'boom', declined: false, offset: 6 })).toEqual([
      { type: 'tool-output-error', toolCallId: 'c', errorText: 'boom' },
    ]);
    // A failure of the caller's own making says why; any other says only that it failed.
    expect(
      m.map({
        type: 'error',
        error: 'Unknown agent "x": the worker has "a"',
        failureType: 'UnknownAgentError',
        offset: 7,
      }),
    ).toEqual([{ type: 'error', errorText: 'Unknown agent "x"' }]);
    expect(m.map({ type: 'error', error: 'run failed', offset: 8 })).toEqual([
      { type: 'error', errorText: 'the run failed (unknown cause); an operator can read why in its history' },
    ]);
  });

  // The probe: tool error texts and run failures carried internal addresses to every stream reader.
  it('shows a tool error without the addresses the worker reached, and a run failure in its own terms', () => {
    const m = new UiChunkMapper('r');
    const error =
      'connect ECONNREFUSED 10.0.0.5:5432 (db.internal.example:5432), see http://169.254.169.254/latest and [fd00::1]:8080';
    const [shown] = m.map({
      ...clientChunk({ type: 'tool-error', toolCallId: 'c', toolName: 't', error, declined: false }),
      offset: 1,
    });
    expect(shown).toMatchObject({ type: 'tool-output-error', toolCallId: 'c' });
    const text = (shown as { errorText: string }).errorText;
    expect(text).toContain('connect ECONNREFUSED');
    expect(text).not.toMatch(/10\.0\.0\.5|db\.internal|169\.254|fd00/);
    const [failure] = m.map({
      type: 'error',
      error: 'provider said: password hunter2 at http://10.0.0.5/admin',
      failureType: 'ModelCallFailed',
      offset: 2,
    } as RunStreamChunk);
    expect((failure as { errorText: string }).errorText).not.toMatch(/hunter2|10\.0\.0\.5/);
  });

  it('turns a model retry into reset-step, and a pause into a finish the UI waits on', () => {
    const m = new UiChunkMapper('r');
    m.map({ type: 'text-delta', stepNumber: 0, attempt: 1, id: 't', delta: 'part', offset: 1 });
    expect(m.map({ type: 'model-retry', stepNumber: 0, attempt: 2, error: 'x', offset: 2 })).toEqual([
      { type: 'reset-step' },
    ]);
    expect(
      m.map({ type: 'finish', finishReason: 'suspended', text: '', usage, pendingToolCalls: [], offset: 3 }),
    ).toEqual([
      {
        type: 'finish',
        finishReason: 'tool-calls',
        messageMetadata: { runId: 'r', offset: 3, finishReason: 'suspended', pendingToolCalls: [] },
      },
    ]);
  });
});
