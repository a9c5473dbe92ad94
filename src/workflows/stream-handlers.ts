/**
 * Every handler of the run's stream, each checking what it is given: chunks are taken from the run's
 * own activities only, reads are queries, and @temporalio/workflow-streams' own handler names answer
 * raw callers with a refusal instead of wedging the run.
 */
import { ApplicationFailure, log, setHandler } from '@temporalio/workflow';
import {
  workflowStreamOffsetQuery,
  workflowStreamPollUpdate,
  workflowStreamPublishSignal,
} from '@temporalio/workflow-streams/workflow';
import { safeParse } from '../schemas/json.js';
import { ChunkBatchSchema, StreamReadSchema } from '../schemas/stream-protocol.js';
import type { ChunkLog } from './chunk-log.js';
import { fromBefore, legacyPoll, type LegacyPublishIntake } from './legacy-stream.js';
import { publishChunksSignal, readStreamQuery } from './messages.js';

/** Takes batches of chunks from the run's model activity: with the run's publish secret, each batch once. */
export class ChunkIntake {
  /**
   * The run's publish secret (a `uuid4()` of the workflow's deterministic randomness), given to its
   * model activity only; unset in a run that does not stream, which then takes no batches at all.
   */
  token: string | undefined;
  private readonly sequences = new Map<string, number>();

  constructor(private readonly chunks: ChunkLog) {}

  take(raw: unknown): void {
    const parsed = safeParse(ChunkBatchSchema, raw);
    if (!parsed.success) return log.warn('stream: dropped a malformed batch of chunks', { issues: parsed.error });
    const { token, publisher, sequence, chunks } = parsed.data;
    if (this.token === undefined || token !== this.token) {
      return log.warn("stream: dropped a batch of chunks without the run's publish token", { publisher });
    }
    // A batch whose signal was sent again (the first send's answer got lost) is here already.
    if (sequence <= (this.sequences.get(publisher) ?? 0)) return;
    this.sequences.set(publisher, sequence);
    this.chunks.append(...chunks);
  }
}

/**
 * Registers the stream's handlers. `legacy` takes the library's publish signal where a run from
 * before the guarded stream took it (see legacy-stream.ts).
 */
export function serveStream(chunks: ChunkLog, intake: ChunkIntake, legacy: LegacyPublishIntake): void {
  setHandler(publishChunksSignal, (raw: unknown) => intake.take(raw));
  setHandler(readStreamQuery, (raw: unknown) => {
    const read = safeParse(StreamReadSchema, raw);
    if (!read.success) {
      const message = `readStream takes { fromOffset: a whole number >= 0, maxBytes?: number }: ${read.error}`;
      throw ApplicationFailure.nonRetryable(message, 'InvalidStreamRead');
    }
    return chunks.read(read.data.fromOffset, read.data.maxBytes);
  });
  setHandler(workflowStreamPublishSignal, (raw: unknown) => {
    if (fromBefore()) return legacy.take(raw);
    log.warn(
      'stream: dropped a publish through @temporalio/workflow-streams; the run takes chunks from its own activities',
    );
  });
  setHandler(workflowStreamPollUpdate, (raw: unknown) => legacyPoll(chunks, raw), {
    // Every poll is refused before it is accepted: an accepted update writes its answer into the
    // history and holds one of the run's few update slots while it waits.
    validator: (_input: unknown) => {
      throw ApplicationFailure.nonRetryable(
        "this run's stream is read with the readStream query (durable-agents' AgentClient.subscribe), " +
          'which costs the run no history; long-poll updates are refused',
        'StreamPollRefused',
      );
    },
  });
  setHandler(workflowStreamOffsetQuery, () => chunks.end);
}
