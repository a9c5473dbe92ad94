/**
 * What the run's stream handlers take and give: the batches its activities (and its sub-agents)
 * publish, and the pages a reader gets from the `readStream` query. Sandbox-safe: the workflow checks them.
 */
import { z } from 'zod';
import { PublishedChunkSchema } from './stream-chunks.js';

/**
 * A batch of chunks from the run's own activities, or a sub-agent's progress. `token` is the run's
 * publish secret, which the workflow gives its activities only, or the secret of one delegation, which
 * it gives that sub-agent's run; `publisher` and `sequence` let the run drop a batch that was sent
 * twice (a retried signal).
 */
export const ChunkBatchSchema = z
  .object({
    token: z.string().min(1).max(128),
    publisher: z.string().min(1).max(128),
    sequence: z.number().int().positive(),
    chunks: z.array(PublishedChunkSchema).min(1).max(10_000),
  })
  .strict();
export type ChunkBatch = z.infer<typeof ChunkBatchSchema>;

/** The largest page a read returns, in bytes of JSON: well under Temporal's payload limits. */
export const MAX_PAGE_BYTES = 1_000_000;

/** A read of the run's stream from an offset. */
export const StreamReadSchema = z
  .object({
    fromOffset: z.number().int().nonnegative(),
    /** At most this many bytes of chunks (JSON), but always at least one chunk when there is one. */
    maxBytes: z.number().int().positive().max(MAX_PAGE_BYTES).optional(),
  })
  .strict();
export type StreamRead = z.infer<typeof StreamReadSchema>;

/** What a read returns: the chunks from `from` on (offsets `from`, `from + 1`, ...), and where the stream ends. */
export interface StreamPage {
  from: number;
  /** Run chunks; a reader checks each (runs from before publishes were checked may hold anything). */
  chunks: unknown[];
  /** The offset the next chunk will have; a read from past it gets nothing. */
  end: number;
  /** A model step is streaming: more chunks are due soon. */
  live: boolean;
}
