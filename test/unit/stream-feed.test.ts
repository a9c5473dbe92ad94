/** One feed per run: many readers, one poller; readers that leave are let go; offsets past the end are refused. */
import { describe, expect, it } from 'vitest';
import { StreamOffsetError } from '../../src/errors.js';
import type { RunChunk, RunStreamChunk } from '../../src/schemas/stream-chunks.js';
import type { StreamPage } from '../../src/schemas/stream-protocol.js';
import { StreamFeed } from '../../src/client/stream/stream-feed.js';

/** A run's stream as the readStream query answers it, with a count of the queries. */
function fakeRun() {
  const chunks: RunChunk[] = [];
  const run = {
    queries: 0,
    closed: false,
    publish(n: number) {
      for (let i = 0; i < n; i++) chunks.push({ type: 'start-step', stepNumber: chunks.length });
    },
    async page(from: number): Promise<StreamPage | 'closed'> {
      run.queries++;
      if (run.closed) return 'closed';
      return { from, chunks: chunks.slice(from), end: chunks.length, live: false };
    },
  };
  return run;
}

async function readAll(feed: StreamFeed, from: number, until: number, signal?: AbortSignal) {
  const got: RunStreamChunk[] = [];
  for (let at = from; at < until;) {
    const read = await feed.read(at, signal);
    if (!('chunks' in read)) return { got, end: read };
    got.push(...read.chunks);
    at = read.next;
  }
  return { got, end: undefined };
}

describe('StreamFeed', () => {
  it('serves 50 readers of a run from one poller', async () => {
    const run = fakeRun();
    const feed = new StreamFeed(
      'run-1',
      (from) => run.page(from),
      () => undefined,
    );
    const readers = Array.from({ length: 50 }, () => readAll(feed, 0, 30));
    for (let batch = 0; batch < 3; batch++) {
      await new Promise((r) => setTimeout(r, 50));
      run.publish(10);
    }
    for (const { got } of await Promise.all(readers)) expect(got.map((c) => c.offset)).toEqual([...Array(30).keys()]);
    // One poller: a query every few tens of ms while they waited, not one per reader.
    expect(run.queries).toBeLessThan(40);
  });

  it('lets a reader that leaves go at once, and stops polling when nobody waits', async () => {
    const run = fakeRun();
    const feed = new StreamFeed(
      'run-1',
      (from) => run.page(from),
      () => undefined,
    );
    const left = new AbortController();
    const waiting = feed.read(0, left.signal);
    await new Promise((r) => setTimeout(r, 100));
    left.abort();
    expect(await waiting).toEqual({ left: true });
    await new Promise((r) => setTimeout(r, 100));
    const after = run.queries;
    await new Promise((r) => setTimeout(r, 600));
    expect(run.queries).toBe(after);
  });

  it('refuses an offset past the end, and tells readers when the run has closed', async () => {
    const run = fakeRun();
    run.publish(3);
    const feed = new StreamFeed(
      'run-1',
      (from) => run.page(from),
      () => undefined,
    );
    await expect(feed.read(5)).rejects.toThrow(StreamOffsetError);
    await expect(feed.read(5)).rejects.toThrow('offset 5 is past the end of run "run-1"\'s stream, which has 3');
    const waiting = feed.read(3);
    run.closed = true;
    expect(await waiting).toEqual({ closed: true });
  });
});
