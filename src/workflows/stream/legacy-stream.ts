/**
 * How runs started before the stream was guarded replay as they ran. Those runs took
 * @temporalio/workflow-streams' publish signal from anyone, served its long-poll update, and took any
 * grace period; their histories hold what those handlers did, so a replay must do it again.
 *
 * The patch is asked only where the old and the new code part (a library publish, a grace period
 * past the bound), so a run that never meets one carries no marker: while a run from before replays,
 * `patched` is false there; anywhere else it is true, and the marker it records makes it true on
 * every later replay too.
 */
import { ApplicationFailure, condition, defaultPayloadConverter, log } from '@temporalio/workflow';
import {
  decodePayloadWire,
  encodePayloadWire,
  type PollResult,
  type PublishInput,
} from '@temporalio/workflow-streams/workflow';
import { safeParse } from '../../schemas/json.js';
import { LegacyPollSchema, LegacyPublishSchema } from '../../schemas/stream-carried.js';
import { MAX_STREAM_GRACE_MS } from '../../schemas/stream-grace.js';
import { takes } from '../patches.js';
import type { ChunkLog } from './chunk-log.js';

/** Whether the run is at a point of a run from before the guarded stream (only while replaying one). */
export function fromBefore(): boolean {
  return !takes('guardedStream');
}

/** The library's topic that carried the chunks. */
const TOPIC = 'chunks';

/**
 * The library's long-poll, for polls an earlier version accepted (new ones are refused before they
 * are accepted): it answers when the log has chunks past the offset, as the library did, so that
 * the update completes where the history says it did.
 */
export async function legacyPoll(chunks: ChunkLog, raw: unknown): Promise<PollResult> {
  const input = safeParse(LegacyPollSchema, raw);
  if (!input.success) throw ApplicationFailure.nonRetryable(`Invalid poll: ${input.error}`, 'InvalidStreamPoll');
  const { from_offset: from, topics } = input.data;
  await condition(() => chunks.draining || chunks.end > from);
  const page = chunks.read(from);
  const wanted = topics.length === 0 || topics.includes(TOPIC);
  const items = wanted
    ? page.chunks.map((chunk, i) => ({
        topic: TOPIC,
        data: encodePayloadWire(defaultPayloadConverter.toPayload(chunk)),
        offset: page.from + i,
      }))
    : [];
  const next = page.from + page.chunks.length;
  return { items, next_offset: next, more_ready: next < page.end };
}

/** The library's publish signal, as runs from before took it: from anyone, dropping repeated batches. */
export class LegacyPublishIntake {
  private readonly sequences = new Map<string, number>();

  constructor(private readonly chunks: ChunkLog) {}

  take(raw: unknown): void {
    const parsed = safeParse(LegacyPublishSchema, raw);
    if (!parsed.success) return log.warn('stream: dropped a malformed publish', { issues: parsed.error });
    const input: PublishInput = parsed.data;
    if (input.publisher_id) {
      if (input.sequence <= (this.sequences.get(input.publisher_id) ?? 0)) return;
      this.sequences.set(input.publisher_id, input.sequence);
    }
    try {
      this.chunks.append(
        ...input.items.map((item) => defaultPayloadConverter.fromPayload(decodePayloadWire(item.data))),
      );
    } catch (err) {
      log.warn('stream: dropped a publish that does not decode', { error: String(err) });
    }
  }
}

/**
 * A run's input, with a grace period past the bound cut to it in a run from before (which took any
 * length; a timer's length is not part of what replays, its command is). A new run's is refused.
 */
export function legacyRunInput(raw: unknown): unknown {
  if (!isRecord(raw) || !isRecord(raw.stream) || !tooLong(raw.stream.graceMs) || !fromBefore()) return raw;
  return { ...raw, stream: { ...raw.stream, graceMs: MAX_STREAM_GRACE_MS } };
}

/** A decision signal, with a grace period past the bound cut to it in a run from before; a new run refuses it. */
export function legacyDecision(raw: unknown): unknown {
  if (!isRecord(raw) || !tooLong(raw.streamGraceMs) || !fromBefore()) return raw;
  return { ...raw, streamGraceMs: MAX_STREAM_GRACE_MS };
}

function tooLong(ms: unknown): boolean {
  return typeof ms === 'number' && ms > MAX_STREAM_GRACE_MS;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
