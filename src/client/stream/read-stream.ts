/**
 * Reading a run's stream: chunks by offset, to the end of a segment (a pause or the end of the run).
 * Reads go through the client's feed of the run (see stream-feed.ts): queries, which cost the run
 * nothing, one poller per run however many read. Loaded on the first read, with the run's schemas.
 */
import { RunFailedError, StreamOffsetError } from '../../errors.js';
import { endsSegment, finishChunk, type RunStreamChunk } from '../../schemas/stream-chunks.js';
import { runRef } from '../checks.js';
import type { ClientContext } from '../context.js';
import { runError } from '../runs/runs.js';
import { runResult } from '../decisions/waiting.js';

/**
 * Reads a run's chunks from `fromOffset` to the end of that segment. Reconnecting with the last
 * offset seen + 1 gives every chunk once. When the run has closed before the end was read, the last
 * chunk is made from the run's result (`offset` -1). An offset past the end of the stream is refused
 * (`StreamOffsetError`); aborting `signal` ends the reading at once, even while it waits.
 */
export async function* subscribe(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
  signal?: AbortSignal,
): AsyncGenerator<RunStreamChunk, void, undefined> {
  for await (const batch of subscribeBatches(ctx, runId, fromOffset, signal)) yield* batch;
}

/**
 * {@link subscribe}, a batch at a time: the chunks that came with one read of the run, so that a relay
 * (the HTTP server's SSE) writes them at once rather than one write per chunk to every reader.
 */
export async function* subscribeBatches(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
  signal?: AbortSignal,
): AsyncGenerator<RunStreamChunk[], void, undefined> {
  runRef(runId);
  for (let at = fromOffset; ;) {
    let read;
    try {
      read = await ctx.feeds.of(runId).read(at, signal);
    } catch (err) {
      throw runError(ctx, runId, err);
    }
    if ('left' in read) return;
    if ('closed' in read) break;
    const end = read.chunks.findIndex(endsSegment);
    if (end >= 0) {
      yield read.chunks.slice(0, end + 1);
      return;
    }
    if (read.chunks.length > 0) yield read.chunks;
    at = read.next;
  }
  yield [await finalChunk(ctx, runId)];
}

/** The chunks already in a run's stream from `fromOffset` up to `toOffset` (not included); none once it closed. */
export async function readChunks(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
  toOffset: number,
): Promise<RunStreamChunk[]> {
  const chunks: RunStreamChunk[] = [];
  try {
    const end = await ctx.feeds.of(runId).end();
    if (end === 'closed') return [];
    // Checked first, so that the reads below never wait for chunks that are not there.
    if (toOffset > end) throw new StreamOffsetError(runId, toOffset, end);
    for (let at = fromOffset; at < toOffset;) {
      const read = await ctx.feeds.of(runId).read(at);
      if (!('chunks' in read)) return [];
      chunks.push(...read.chunks.filter((c) => c.offset < toOffset));
      at = read.next;
    }
  } catch (err) {
    throw runError(ctx, runId, err);
  }
  return chunks;
}

/** The offset a run's stream has reached: where a reader of what comes next starts. */
export async function streamOffset(ctx: ClientContext, runId: string): Promise<number> {
  try {
    const end = await ctx.feeds.of(runId).end();
    return end === 'closed' ? 0 : end;
  } catch (err) {
    throw runError(ctx, runId, err);
  }
}

/** A closed run's last chunk, made from its result. */
async function finalChunk(ctx: ClientContext, runId: string): Promise<RunStreamChunk> {
  try {
    return { ...finishChunk(await runResult(ctx, runId), []), offset: -1 };
  } catch (err) {
    if (!(err instanceof RunFailedError)) throw err;
    const failureType = err.failureType ? { failureType: err.failureType } : {};
    return { type: 'error', error: err.reason, ...failureType, offset: -1 };
  }
}
