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
  return { steps: [{ toolCalls, toolResults }], toolCalls, toolResults, pendingToolCalls: [] } as unknown as RunResult;
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
});
