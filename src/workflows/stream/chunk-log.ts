/**
 * The run's stream: an append-only log of chunks in the workflow's memory, read by offset. Publishing
 * adds nothing to the history, and neither does reading (the `readStream` query); a run that
 * continues as new carries its open segment on, so offsets go on across the chain.
 */
import { defaultPayloadConverter } from '@temporalio/workflow';
import { decodePayloadWire } from '@temporalio/workflow-streams/workflow';
import { CarriedLogSchema, LegacyCarriedLogSchema } from '../../schemas/stream-carried.js';
import { MAX_PAGE_BYTES, type StreamPage } from '../../schemas/stream-protocol.js';

/** The log as a continued run carries it, or (from a run from before) @temporalio/workflow-streams' state. */
function carriedLog(carried: Record<string, unknown>): CarriedLog | undefined {
  const ours = CarriedLogSchema.safeParse(carried);
  if (ours.success) return ours.data;
  const legacy = LegacyCarriedLogSchema.safeParse(carried);
  if (!legacy.success) return undefined;
  return {
    base: legacy.data.base_offset,
    chunks: legacy.data.log.map((item) => defaultPayloadConverter.fromPayload(decodePayloadWire(item.data))),
  };
}
export type CarriedLog = { base: number; chunks: unknown[] };

export class ChunkLog {
  private readonly chunks: unknown[];
  /** The size of each chunk as JSON, so that a read stays within its byte budget. */
  private readonly sizes: number[];
  /** The offset of the first chunk held (0 unless an older run dropped some). */
  private readonly base: number;
  /** A model step is streaming: readers should look again soon. */
  live = false;
  /**
   * Set when the run ends or hands over. Only polls of @temporalio/workflow-streams that an earlier
   * version accepted wait on the log (see legacy-stream.ts); this releases them.
   */
  draining = false;

  constructor(carried?: Record<string, unknown>) {
    const log = (carried && carriedLog(carried)) ?? { base: 0, chunks: [] };
    this.base = log.base;
    this.chunks = [...log.chunks];
    this.sizes = this.chunks.map(jsonSize);
  }

  /** The offset the next chunk will get. */
  get end(): number {
    return this.base + this.chunks.length;
  }

  append(...chunks: unknown[]): void {
    // Sizes first: a chunk that cannot be measured (it throws) leaves the log as it was.
    const sizes = chunks.map(jsonSize);
    this.chunks.push(...chunks);
    this.sizes.push(...sizes);
  }

  /** The chunks from `from` on, within `maxBytes` (at least one, when there is one). */
  read(from: number, maxBytes = MAX_PAGE_BYTES): StreamPage {
    const start = Math.max(from, this.base) - this.base;
    const chunks: unknown[] = [];
    let bytes = 0;
    for (let i = start; i < this.chunks.length; i++) {
      if (chunks.length > 0 && bytes + this.sizes[i]! > maxBytes) break;
      bytes += this.sizes[i]!;
      chunks.push(this.chunks[i]);
    }
    return { from: this.base + start, chunks, end: this.end, live: this.live };
  }

  /** Every chunk held, oldest first. */
  held(): readonly unknown[] {
    return this.chunks;
  }

  /** The offset of the first chunk held. */
  get start(): number {
    return this.base;
  }

  /**
   * What the next run of a run that continues as new starts its log with: the chunks from `from` on
   * (the open segment's start), at the same offsets. Finished segments stay in the run that ends;
   * readers behind read them there, and the result has what they said.
   */
  carry(from = this.base): CarriedLog {
    const at = Math.min(Math.max(from, this.base), this.end);
    return { base: at, chunks: this.chunks.slice(at - this.base) };
  }
}

function jsonSize(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}
