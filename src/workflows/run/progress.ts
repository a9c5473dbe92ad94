/**
 * Sub-agents' progress, as runs route it. A run that streams gives each sub-agent it delegates to a
 * publish secret of its own and a budget; the sub-agent's run sends its progress straight to that run:
 * its activities send their part themselves (the model's text, what its tools write), in the batches
 * they publish with anyway, and the run sends its tool events (as its own stream shows them) with a
 * signal, those that come while one is on its way together in the next. Its own sub-agents send to the
 * same run, under a qualified call id, within a share of what is left. The streamed run's history grows
 * by a signal per batch, and by at most the budget; the sub-agent's run, by the signals that carry its
 * tool events. Deterministic.
 */
import { getExternalWorkflowHandle, uuid4, workflowInfo } from '@temporalio/workflow';
import { truncate } from '../../schemas/json.js';
import {
  elided,
  jsonBytes,
  MAX_PROGRESS_BYTES,
  MAX_PROGRESS_PAYLOAD_BYTES,
  MAX_PROGRESS_SLICE_BYTES,
  MAX_TEXT,
} from '../../schemas/limits.js';
import type { ProgressTarget } from '../../schemas/run-input.js';
import type { AgentProgressChunk, ProgressEvent, RunChunk } from '../../schemas/stream-chunks.js';
import type { ChunkBatch } from '../../schemas/stream-protocol.js';
import { publishChunksSignal } from '../../protocol/run-messages.js';
import type { ChunkIntake } from '../stream/stream-handlers.js';

/** Less than this is not worth a slice or a share: an activity or sub-agent gets none. */
const MIN_SHARE_BYTES = 1024;

export class ProgressRouting {
  /** Of the budget, what is neither sent, nor given to an activity or a sub-agent. */
  private remaining: number;
  private cut = false;
  private queue: AgentProgressChunk[] = [];
  private busy = false;
  private sequence = 0;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: { runId: string; agentId: string },
    private readonly intake: ChunkIntake,
    /** This run streams: the progress of its sub-agents comes to it. */
    private readonly streams: boolean,
    /** This is a sub-agent's run below a streamed run: where its progress goes. */
    private readonly target: ProgressTarget | undefined,
  ) {
    this.remaining = target?.budgetBytes ?? 0;
  }

  /** Whether this run sends progress. */
  get sends(): boolean {
    return this.target !== undefined;
  }

  /** The target of a continuation of this run: what is left of the budget. */
  carried(): ProgressTarget | undefined {
    return this.target && { ...this.target, budgetBytes: this.remaining };
  }

  /** Where the sub-agent this call delegates to sends its progress, if anywhere. */
  forChild(toolCallId: string): ProgressTarget | undefined {
    if (this.target) {
      // Its sub-agent's spending is not reported back: half of what is left is the most it takes.
      const share = Math.floor(this.remaining / 2);
      if (this.cut || share < MIN_SHARE_BYTES) return undefined;
      this.remaining -= share;
      const qualified = `${this.target.toolCallId}/${toolCallId}`;
      return { runId: this.target.runId, token: this.target.token, toolCallId: qualified, budgetBytes: share };
    }
    if (!this.streams) return undefined;
    const token = uuid4();
    this.intake.delegate(token, toolCallId);
    return { runId: this.run.runId, token, toolCallId, budgetBytes: MAX_PROGRESS_BYTES };
  }

  /** The sub-agent ended: this run takes no more progress with its secret. */
  childEnded(target: ProgressTarget | undefined): void {
    if (target && !this.target) this.intake.revoke(target.token);
  }

  /** A slice of the budget for one activity of this run; `settle` gives back what it did not send. */
  slice(): ProgressTarget | undefined {
    const budgetBytes = Math.min(this.remaining, MAX_PROGRESS_SLICE_BYTES);
    if (!this.target || this.cut || budgetBytes < MIN_SHARE_BYTES) return undefined;
    this.remaining -= budgetBytes;
    return { ...this.target, budgetBytes };
  }

  /** What an activity sent of its slice; unknown (it failed) counts as all of it. */
  settle(slice: ProgressTarget | undefined, sent: number | undefined): void {
    if (slice) this.remaining += Math.max(0, slice.budgetBytes - (sent ?? slice.budgetBytes));
  }

  /** Sends the run's tool events (as its stream shows them) as progress; other chunks are not progress. */
  forward(chunk: RunChunk): void {
    if (!this.target || this.cut) return;
    const event = progressEventOf(chunk);
    if (!event) return;
    const progress = this.chunk(event);
    const bytes = jsonBytes(progress);
    const truncated = this.chunk({
      type: 'truncated',
      reason: `the progress of sub-agent "${this.run.agentId}" reached its budget; the rest is not shown`,
    });
    const room = jsonBytes(truncated);
    if (bytes + room <= this.remaining) {
      this.remaining -= bytes;
      return this.enqueue(progress);
    }
    this.cut = true;
    if (room <= this.remaining) {
      this.remaining -= room;
      this.enqueue(truncated);
    }
  }

  /** Resolves once every batch forwarded so far is in the streamed run (or could not be sent). */
  sent(): Promise<void> {
    return this.sending;
  }

  /**
   * Sends at once when no batch is on its way, so that the signal's command comes in order with the
   * run's others (a report to its parent that a call waits comes after the call's event); what comes
   * while one is on its way goes as the next batch, after it, so that batches arrive in order.
   */
  private enqueue(chunk: AgentProgressChunk): void {
    this.queue.push(chunk);
    if (!this.busy) this.sending = this.sendAll();
  }

  private async sendAll(): Promise<void> {
    this.busy = true;
    const target = this.target!;
    while (this.queue.length > 0) {
      const batch: ChunkBatch = {
        token: target.token,
        publisher: workflowInfo().runId,
        sequence: ++this.sequence,
        chunks: this.queue,
      };
      this.queue = [];
      // The streamed run may have ended (cancelled); then nobody reads the progress.
      await getExternalWorkflowHandle(target.runId)
        .signal(publishChunksSignal, batch)
        .catch(() => undefined);
    }
    this.busy = false;
  }

  private chunk(event: ProgressEvent): AgentProgressChunk {
    const { runId, agentId } = this.run;
    return { type: 'data-agent-progress', data: { agentId, runId, toolCallId: this.target!.toolCallId, event } };
  }
}

/** A tool event of the run's stream as progress: payloads over the bound are mentioned, not held. */
function progressEventOf(chunk: RunChunk): ProgressEvent | undefined {
  const payload = (value: Parameters<typeof elided>[0]) => elided(value, MAX_PROGRESS_PAYLOAD_BYTES);
  switch (chunk.type) {
    case 'tool-call':
      return { type: 'tool-call', toolCallId: chunk.toolCallId, toolName: chunk.toolName, args: payload(chunk.args) };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: chunk.toolCallId,
        toolName: chunk.toolName,
        output: payload(chunk.output),
      };
    case 'tool-error':
      return {
        type: 'tool-error',
        toolCallId: chunk.toolCallId,
        toolName: chunk.toolName,
        error: truncate(chunk.error, MAX_TEXT),
      };
    default:
      return undefined;
  }
}
