/**
 * A run's chunks as the AI SDK's UI message stream over SSE. One chunk can map to several UI chunks
 * (a text's start and its first delta; a text's end and the finish), so each UI chunk has an event id
 * of its own: the chunk's offset for the first, `offset:index` for the next ones. A client that
 * reconnects with any of them as Last-Event-ID gets exactly the UI chunks after it.
 */
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { failureOf } from '../client/failures.js';
import { RunFailedError } from '../errors.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';
import { publicRunFailure } from './public-errors.js';
import { UiChunkMapper } from './ui-message-chunks.js';

/** About how much of a run's stream (in characters of SSE events) one write to a reader holds. */
export const MAX_SSE_WRITE_CHARS = 64 * 1024;

/** Where an SSE stream starts: at a chunk's offset, past the first `skip` UI chunks it maps to. */
export interface SsePosition {
  offset: number;
  skip: number;
}

/** The event id of the `index`th UI chunk that the chunk at `offset` maps to. */
export function eventId(offset: number, index: number): string {
  return index === 0 ? String(offset) : `${offset}:${index}`;
}

/** Where a request reads from: after its Last-Event-ID (a reconnect), else from `?offset` (default 0). */
export function streamPosition(offset: string | undefined, lastEventId: string | undefined): SsePosition | string {
  if (lastEventId !== undefined) {
    const id = /^(\d{1,15})(?::([1-9]\d{0,3}))?$/.exec(lastEventId);
    if (!id) return `Last-Event-ID must be an event id this server sent ("12" or "12:1"), not "${lastEventId}"`;
    return { offset: Number(id[1]), skip: Number(id[2] ?? 0) + 1 };
  }
  if (offset === undefined) return { offset: 0, skip: 0 };
  if (!/^\d{1,15}$/.test(offset)) return `offset must be a whole number >= 0, not "${offset}"`;
  return { offset: Number(offset), skip: 0 };
}

/**
 * The SSE response. `open` reads the run's chunks, in batches, from `from.offset` (and stops when its signal is
 * aborted: the client went away); `before` are the chunks before that offset, which the UI mapping
 * goes through first so that it maps the rest exactly as it did the first time (which texts are open).
 */
export function sse(
  runId: string,
  open: (signal: AbortSignal) => AsyncIterable<RunStreamChunk[]>,
  from: SsePosition,
  before: RunStreamChunk[],
): Response {
  const mapper = new UiChunkMapper(runId);
  for (const chunk of before) mapper.map(chunk);
  const left = new AbortController();
  const iterator = open(left.signal)[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const event = (id: string | undefined, ui: unknown) =>
    `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(ui)}\n\n`;
  const events = (raw: RunStreamChunk): string => {
    const chunk: RunStreamChunk =
      raw.type === 'error' ? { ...raw, error: publicRunFailure(raw.failureType, raw.error) } : raw;
    const skip = chunk.offset === from.offset ? from.skip : 0;
    return mapper
      .map(chunk)
      .map((ui, i) => event(chunk.offset >= 0 ? eventId(chunk.offset, i) : undefined, ui))
      .slice(skip)
      .join('');
  };
  // The batch being written, and how far: a pull writes what is left of it before reading on.
  let batch: RunStreamChunk[] = [];
  let written = 0;
  // Set when the reader goes away: nothing more is written, and that is no error.
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // A pull that enqueues nothing would stall the stream, so read on until a chunk maps to something.
        for (;;) {
          if (written === batch.length) {
            const next = await iterator.next();
            if (next.done) {
              controller.enqueue(encoder.encode('data: [DONE]\n\n'));
              controller.close();
              return;
            }
            batch = next.value;
            written = 0;
          }
          // One write for a batch, not one a chunk (with many readers of a run, a write per chunk to
          // each was most of the server's work while a step streams), but no more than
          // MAX_SSE_WRITE_CHARS a write: a reader that does not read holds at most that, not the run's
          // whole stream when it starts from offset 0.
          let text = '';
          while (written < batch.length && text.length < MAX_SSE_WRITE_CHARS) text += events(batch[written++]!);
          if (text === '') continue;
          controller.enqueue(encoder.encode(text));
          return;
        }
      } catch (err) {
        if (cancelled) return;
        // A typed refusal says what; anything else is for the server's log, not the reader.
        const failure = failureOf(err);
        const errorText =
          failure.expected && !(err instanceof RunFailedError)
            ? failure.message
            : 'the stream broke; reconnect from the last event id';
        if (!failure.expected) console.error(`server: the stream of run ${runId} broke`, err);
        controller.enqueue(encoder.encode(event(undefined, { type: 'error', errorText })));
        controller.close();
      }
    },
    async cancel() {
      cancelled = true;
      left.abort();
      await iterator.return?.();
    },
  });
  return new Response(body, { headers: { ...UI_MESSAGE_STREAM_HEADERS, 'x-run-id': runId } });
}
