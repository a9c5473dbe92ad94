/**
 * Reading a run's stream costs the run nothing: no history, no update slots. Many readers of one run
 * in one process share one poller; a reader that waits, or walks away, holds nothing in the run.
 */
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamOffsetError, type Script } from '../../src/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { collect, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

/** Fails when `promise` takes longer than `ms`: "promptly", for waits that used to hang. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function historySize(runId: string): Promise<{ events: number; bytes: number }> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  const bytes = temporal.api.history.v1.History.encode(history).finish().length;
  return { events: history.events?.length ?? 0, bytes };
}

/** A long answer, a tool that takes 1.5 s (readers wait meanwhile), and a last answer. */
const longRun: Script = [
  { text: 'A long answer. '.repeat(200), toolCalls: [{ toolName: 'slow', args: { ms: 1500 } }] },
  { text: 'And the end of it.' },
];

describe('stream readers', () => {
  it('add nothing to the history of the run they read: 0, 1 and 50 concurrent readers', async () => {
    const sizes: Record<number, { events: number; bytes: number }> = {};
    for (const readers of [0, 1, 50]) {
      const { runId } = await w.client.stream('toolbox-agent', 'go', {
        model: 'scripted',
        script: longRun,
        streamGraceMs: 0,
      });
      const reads = Array.from({ length: readers }, () => collect(w.client.subscribe(runId)));
      await w.client.result(runId);
      const read = await Promise.all(reads);
      for (const chunks of read) expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
      sizes[readers] = await historySize(runId);
    }
    console.log('history with 0 / 1 / 50 readers:', JSON.stringify(sizes));
    // The same run each time: only the timing of its own workflow tasks may differ (a signal and an
    // activity completing in one task or two), never anything that grows with readers.
    for (const readers of [1, 50]) {
      expect(Math.abs(sizes[readers]!.events - sizes[0]!.events)).toBeLessThanOrEqual(3);
      expect(Math.abs(sizes[readers]!.bytes - sizes[0]!.bytes)).toBeLessThanOrEqual(1024);
    }
  });

  it('that wait or walk away hold nothing: after 20 idle and abandoned readers, waits and new readers go on at once', async () => {
    const paused = await w.client.stream('toolbox-agent', 'go', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] }, { text: 'Done.' }],
    });
    const first = await collect(paused);
    const end = first.at(-1)!.offset + 1;

    // Ten readers wait at the end of the stream; ten more start waiting and are walked away from.
    const idle = Array.from({ length: 10 }, () => w.client.subscribe(paused.runId, { fromOffset: end }));
    const idleNext = idle.map((reader) => reader.next());
    const walkAway = new AbortController();
    const abandoned = Array.from({ length: 10 }, () =>
      w.client.subscribe(paused.runId, { fromOffset: end, signal: walkAway.signal }),
    );
    const abandonedNext = abandoned.map((reader) => reader.next().catch((err: unknown) => err));
    await new Promise((r) => setTimeout(r, 500));
    walkAway.abort();
    for (const outcome of await within(5_000, 'abandoned readers to stop', Promise.all(abandonedNext))) {
      expect(outcome).toMatchObject({ done: true });
    }

    const result = await within(10_000, 'approve and wait', w.client.approveToolCallGenerate({ runId: paused.runId }));
    expect(result.finishReason).toBe('stop');
    const fresh = await within(10_000, 'a new reader', collect(w.client.subscribe(paused.runId, { fromOffset: end })));
    expect(fresh.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    // The readers that waited get the next segment too.
    for (const next of await within(10_000, 'idle readers', Promise.all(idleNext))) {
      expect(next).toMatchObject({ done: false, value: { type: 'start', offset: end } });
    }
    await Promise.all(idle.map((reader) => reader.return(undefined)));
  });

  it('refuses an offset past the end of the stream, naming where the stream ends', async () => {
    const paused = await w.client.generate('toolbox-agent', 'go', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] }, { text: 'Done.' }],
    });
    const whole = await collect(w.client.subscribe(paused.runId));
    const end = whole.at(-1)!.offset + 1;
    const beyond = within(5_000, 'the refusal', collect(w.client.subscribe(paused.runId, { fromOffset: end + 5 })));
    await expect(beyond).rejects.toThrow(StreamOffsetError);
    await expect(beyond).rejects.toThrow(`offset ${end + 5} is past the end of run "${paused.runId}"'s stream`);
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });
});
