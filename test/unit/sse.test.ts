import { describe, expect, it } from 'vitest';
import type { RunStreamChunk } from '../../src/schemas/stream-chunks.js';
import { MAX_SSE_WRITE_CHARS, sse } from '../../src/server/sse.js';

/** A run's stream as one batch, as a reader from offset 0 of a long run gets it from the cache. */
function longRun(deltas: number): RunStreamChunk[] {
  return [
    { type: 'start', runId: 'run-1', agentId: 'a', resumed: false, offset: 0 },
    { type: 'start-step', stepNumber: 0, offset: 1 },
    ...Array.from({ length: deltas }, (_, i): RunStreamChunk => ({
      type: 'text-delta',
      stepNumber: 0,
      attempt: 1,
      id: 't',
      delta: `${String(i).padStart(6, '0')} ${'x'.repeat(100)}`,
      offset: i + 2,
    })),
  ];
}

async function* once(batch: RunStreamChunk[]): AsyncIterable<RunStreamChunk[]> {
  yield batch;
}

describe('the SSE response', () => {
  it('writes a long batch in bounded writes, every event once and in order', async () => {
    const deltas = 5_000;
    const response = sse('run-1', () => once(longRun(deltas)), { offset: 0, skip: 0 }, []);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const writes: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      writes.push(decoder.decode(value));
    }
    // One event past the budget at most: a write ends after the event that reaches it.
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThan(MAX_SSE_WRITE_CHARS + 1_000);
    expect(writes.length).toBeGreaterThan(1);
    const text = writes.join('');
    const seen = [...text.matchAll(/"delta":"(\d{6}) /g)].map((m) => Number(m[1]));
    expect(seen).toEqual(Array.from({ length: deltas }, (_, i) => i));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
