/**
 * A run's stream as the run writes it: its chunks, the segments that pause while every call waits and
 * resume when one goes on, sub-agents' progress, and how long the finished run stays readable.
 */
import type { PendingToolCall } from '../../schemas/decisions.js';
import { shownPending } from '../../schemas/shown-pending.js';
import type { AgentProgressChunk, RunChunk } from '../../schemas/stream-chunks.js';
import { ChunkLog } from '../stream/chunk-log.js';
import { StreamSegments } from '../stream/stream-segments.js';
import type { ProgressRouting } from './progress.js';

export class RunStream {
  /** The chunks by offset, in memory; readers query it. */
  readonly log: ChunkLog;
  /** How long the finished run stays readable for subscribers; see `stream()` and the stream forms of decisions. */
  graceMs = 0;
  /** The run's publish secret, which its own activities publish to its stream with. */
  publishToken: string | undefined;
  /** Where its sub-agents' progress goes, and its own (a sub-agent's run below a streamed run). */
  progress: ProgressRouting | undefined;
  private readonly segments = new StreamSegments();
  /** The offset of the open segment's `start` chunk: a continuation carries the stream from there. */
  private segmentStart: number;
  /** Sub-agents' progress that arrived while the stream was paused: it opens the next segment. */
  private readonly heldProgress: AgentProgressChunk[] = [];

  constructor(carried?: Record<string, unknown>) {
    this.log = new ChunkLog(carried);
    this.segmentStart = this.log.start;
  }

  publish(chunk: RunChunk): void {
    if (chunk.type === 'start') this.segmentStart = this.log.end;
    this.log.append(chunk);
    this.progress?.forward(chunk);
  }

  /**
   * A sub-agent's progress, as it arrives. While the stream's segment is paused nobody reads it: a
   * signal that came after the pause it preceded (Temporal does not keep signals from one workflow in
   * order) waits for the next segment, and opens it.
   */
  takeProgress(chunks: AgentProgressChunk[]): void {
    if (this.segments.paused) this.heldProgress.push(...chunks);
    else this.log.append(...chunks);
  }

  /** The tool calls of a step start; the run pauses once every one of them finished or waits. */
  callsStart(count: number): void {
    this.segments.callsStart(count);
  }

  callStops(): void {
    this.segments.callStops();
  }

  callGoesOn(): void {
    this.segments.callGoesOn();
  }

  get paused(): boolean {
    return this.segments.paused;
  }

  /** Whether the segment ends now, with this many calls waiting; the run then publishes its finish. */
  pauseNow(waiting: number): boolean {
    return this.segments.pauseNow(waiting);
  }

  /** Opens the next segment when a call goes on after a pause; whether it did. */
  resume(runId: string, agentId: string): boolean {
    if (!this.segments.resumeNow()) return false;
    this.publish({ type: 'start', runId, agentId, resumed: true });
    this.log.append(...this.heldProgress.splice(0));
    return true;
  }

  keepFor(ms: number | undefined): void {
    this.graceMs = Math.max(this.graceMs, ms ?? 0);
  }

  /** What a continuation of the run carries: the open segment on. */
  carry(): ReturnType<ChunkLog['carry']> {
    return this.log.carry(this.segmentStart);
  }

  publishWaiting(waiting: PendingToolCall): void {
    this.publish(waitingChunk(waiting));
  }
}

/** The chunk that says a call waits: what the display transforms make of it, never the raw values then. */
export function waitingChunk(waiting: PendingToolCall): RunChunk {
  const entry = shownPending(waiting);
  const ids = {
    toolCallId: entry.toolCallId,
    toolName: entry.toolName,
    args: entry.args,
    fingerprint: entry.fingerprint,
  };
  switch (entry.kind) {
    case 'approval': {
      const { preview } = entry;
      if (!preview) return { type: 'tool-call-approval', ...ids };
      const previous = preview.previous ? { previousPreview: preview.previous.value } : {};
      return { type: 'tool-call-approval', ...ids, preview: preview.value, ...previous };
    }
    case 'uncertain':
      return { type: 'tool-call-uncertain', ...ids, reason: entry.uncertainty ?? 'cut off' };
    default: {
      const payload = entry.suspendPayload !== undefined ? { payload: entry.suspendPayload } : {};
      return { type: 'tool-call-suspended', ...ids, ...payload };
    }
  }
}
