/**
 * How an activity sends chunks to a run's stream: in batches (one signal per batch, so the history
 * grows with batches, not tokens), each with a publish secret, which the run checks: the run's own (the
 * model's deltas, what a tool writes) or a delegation's (a sub-agent's progress).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { PublishedChunk } from '../../../schemas/stream-chunks.js';
import type { ChunkBatch } from '../../../schemas/stream-protocol.js';
import { publishChunksSignal } from '../../../protocol/run-messages.js';

/** A batch is sent early once it holds this many bytes of JSON, to stay far from payload limits. */
const MAX_BATCH_BYTES = 256 * 1024;
/** How often a batch is tried before the publisher gives up (and the activity fails, to be retried). */
const SEND_ATTEMPTS = 5;

export class ChunkPublisher {
  private buffer: PublishedChunk[] = [];
  private bufferBytes = 0;
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Batches go out one after the other, so the run sees them in order. */
  private sending: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** This publisher's id: the run drops a batch whose sequence it has seen from it. */
  private readonly publisher = randomUUID();

  constructor(
    private readonly run: WorkflowHandle,
    private readonly token: string,
    private readonly batchIntervalMs: number,
  ) {}

  /**
   * Buffers a chunk; it goes out with the next batch (at once with `now`). `fold` may make the last
   * chunk still buffered and this one a single chunk (text deltas of one batch as one); returns whether it did.
   */
  publish(
    chunk: PublishedChunk,
    options: { now?: boolean; fold?: (last: PublishedChunk) => PublishedChunk | undefined } = {},
  ): boolean {
    const last = this.buffer.at(-1);
    const folded = last && options.fold ? options.fold(last) : undefined;
    if (folded) this.buffer[this.buffer.length - 1] = folded;
    else this.buffer.push(chunk);
    this.bufferBytes += JSON.stringify(chunk).length;
    if (options.now || this.bufferBytes >= MAX_BATCH_BYTES) this.send();
    else this.timer ??= setTimeout(() => this.send(), this.batchIntervalMs);
    return folded !== undefined;
  }

  /** Sends what is buffered and resolves once every batch so far is in the run; throws if one could not be sent. */
  async flush(): Promise<void> {
    this.send();
    await this.sending;
    if (this.failure !== undefined) throw this.failure;
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const batch: ChunkBatch = {
      token: this.token,
      publisher: this.publisher,
      sequence: ++this.sequence,
      chunks: this.buffer,
    };
    this.buffer = [];
    this.bufferBytes = 0;
    this.sending = this.sending.then(() => this.deliver(batch));
  }

  private async deliver(batch: ChunkBatch): Promise<void> {
    if (this.failure !== undefined) return;
    for (let attempt = 1; ; attempt++) {
      try {
        // The same batch with the same sequence: if an earlier send did arrive, the run drops this one.
        await this.run.signal(publishChunksSignal, batch);
        return;
      } catch (err) {
        if (attempt >= SEND_ATTEMPTS) {
          this.failure = err;
          return;
        }
        await sleep(100 * 2 ** attempt);
      }
    }
  }
}
