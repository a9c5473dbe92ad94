/**
 * Every handler of the run's stream, each checking what it is given: chunks are taken from the run's
 * own activities and its sub-agents' progress only, reads are queries, and @temporalio/workflow-streams'
 * own handler names answer raw callers with a refusal instead of wedging the run.
 */
import { ApplicationFailure, log, setHandler } from '@temporalio/workflow';
import {
  workflowStreamOffsetQuery,
  workflowStreamPollUpdate,
  workflowStreamPublishSignal,
} from '@temporalio/workflow-streams/workflow';
import { safeParse } from '../../schemas/json.js';
import { jsonBytes, kib, MAX_PROGRESS_BYTES } from '../../schemas/limits.js';
import type { AgentProgressChunk, PublishedChunk } from '../../schemas/stream-chunks.js';
import { ChunkBatchSchema, StreamReadSchema } from '../../schemas/stream-protocol.js';
import type { ChunkLog } from './chunk-log.js';
import { fromBefore, legacyPoll, type LegacyPublishIntake } from './legacy-stream.js';
import { publishChunksSignal, readStreamQuery } from '../../protocol/run-messages.js';

/** A delegation whose sub-agent's progress this run streams: the call, and the bytes taken so far. */
export interface Delegation {
  toolCallId: string;
  bytes: number;
  truncated: boolean;
}

/**
 * Takes batches of chunks: from the run's own activities with the run's publish secret (the model's
 * deltas, what tools write), and a sub-agent's progress with the secret of its delegation; each batch once.
 */
export class ChunkIntake {
  /**
   * The run's publish secret (a `uuid4()` of the workflow's deterministic randomness), given to its
   * own activities only.
   */
  token: string | undefined;
  private readonly sequences = new Map<string, number>();
  /** The secrets of the delegations whose progress this run streams, each given to that sub-agent's run only. */
  private readonly delegations = new Map<string, Delegation>();

  constructor(
    private readonly chunks: ChunkLog,
    /** Where a sub-agent's progress goes: the log, unless the run holds it back (see `RunState.takeProgress`). */
    private readonly takeProgress: (chunks: AgentProgressChunk[]) => void = (progress) => chunks.append(...progress),
  ) {}

  /** Takes progress for this delegating call (and every run below it) with this secret, until `revoke`. */
  delegate(token: string, toolCallId: string): void {
    this.delegations.set(token, { toolCallId, bytes: 0, truncated: false });
  }

  revoke(token: string): void {
    this.delegations.delete(token);
  }

  take(raw: unknown): void {
    const parsed = safeParse(ChunkBatchSchema, raw);
    if (!parsed.success) return log.warn('stream: dropped a malformed batch of chunks', { issues: parsed.error });
    const { token, publisher, sequence, chunks } = parsed.data;
    const delegation = this.delegations.get(token);
    const own = this.token !== undefined && token === this.token;
    if (!own && !delegation) {
      return log.warn("stream: dropped a batch of chunks without the run's publish token", { publisher });
    }
    // The run's own activities publish no progress; a sub-agent publishes nothing else, and only its own.
    const allowed = (chunk: PublishedChunk) => (own ? !isProgress(chunk) : ownProgress(chunk, delegation!));
    const misplaced = chunks.find((chunk) => !allowed(chunk));
    if (misplaced) {
      return log.warn('stream: dropped a batch with a chunk its publisher may not publish', {
        publisher,
        type: misplaced.type,
      });
    }
    // A batch whose signal was sent again (the first send's answer got lost) is here already.
    if (sequence <= (this.sequences.get(publisher) ?? 0)) return;
    this.sequences.set(publisher, sequence);
    if (delegation) this.takeProgress(withinBudget(delegation, chunks as AgentProgressChunk[]));
    else this.chunks.append(...chunks);
  }
}

function isProgress(chunk: PublishedChunk): boolean {
  return chunk.type === 'data-agent-progress';
}

/** Progress of this delegation: its call, or a call below it (`<call>/<inner call>`). */
function ownProgress(chunk: PublishedChunk, delegation: Delegation): boolean {
  if (!isProgress(chunk)) return false;
  const { toolCallId } = (chunk as AgentProgressChunk).data;
  return toolCallId === delegation.toolCallId || toolCallId.startsWith(`${delegation.toolCallId}/`);
}

/**
 * The chunks of a delegation's progress that fit its budget. Its sub-agents keep within it as they
 * send; what comes over it anyway is dropped, and the stream says so once.
 */
export function withinBudget(delegation: Delegation, chunks: AgentProgressChunk[]): AgentProgressChunk[] {
  const taken: AgentProgressChunk[] = [];
  for (const chunk of chunks) {
    if (delegation.truncated) break;
    const bytes = jsonBytes(chunk);
    if (delegation.bytes + bytes <= MAX_PROGRESS_BYTES) {
      delegation.bytes += bytes;
      taken.push(chunk);
      continue;
    }
    delegation.truncated = true;
    const budget = kib(MAX_PROGRESS_BYTES);
    const reason = `the progress of this delegation reached its budget of ${budget}; the rest is not shown`;
    taken.push({ type: 'data-agent-progress', data: { ...chunk.data, event: { type: 'truncated', reason } } });
  }
  return taken;
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
