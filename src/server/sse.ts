/** A run's chunks as the AI SDK's UI message stream over SSE; each event's `id` is the chunk's offset. */
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { failureOf } from '../client/failures.js';
import { RunFailedError } from '../errors.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';
import { publicRunFailure } from './public-errors.js';
import { UiChunkMapper } from './ui-message-chunks.js';

export function sse(runId: string, chunks: AsyncIterable<RunStreamChunk>): Response {
  const mapper = new UiChunkMapper(runId);
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const event = (id: string, ui: unknown) => `${id}data: ${JSON.stringify(ui)}\n\n`;
  // Set when the reader goes away: nothing more is written, and that is no error.
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // A pull that enqueues nothing would stall the stream, so read on until a chunk maps to something.
        for (;;) {
          const next = await iterator.next();
          if (next.done) {
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
            return;
          }
          const chunk: RunStreamChunk =
            next.value.type === 'error'
              ? { ...next.value, error: publicRunFailure(next.value.failureType, next.value.error) }
              : next.value;
          const id = chunk.offset >= 0 ? `id: ${chunk.offset}\n` : '';
          const events = mapper.map(chunk).map((ui) => event(id, ui));
          if (events.length === 0) continue;
          controller.enqueue(encoder.encode(events.join('')));
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
        controller.enqueue(encoder.encode(event('', { type: 'error', errorText })));
        controller.close();
      }
    },
    async cancel() {
      cancelled = true;
      await iterator.return?.();
    },
  });
  return new Response(body, { headers: { ...UI_MESSAGE_STREAM_HEADERS, 'x-run-id': runId } });
}
