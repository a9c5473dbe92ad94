/**
 * How a sub-agent's activity sends its progress to the run that streams it: straight to that run, with
 * the delegation's secret, in the same batches as the model's deltas, and never past its slice of the
 * delegation's budget. The sub-agent's own workflow is not in the way, so its history does not grow with it.
 */
import type { Client } from '@temporalio/client';
import { jsonBytes, kib, utf8Bytes } from '../../../schemas/limits.js';
import type { ProgressTarget } from '../../../schemas/run-input.js';
import type { AgentProgressChunk, ProgressEvent, PublishedChunk } from '../../../schemas/stream-chunks.js';
import { ChunkPublisher } from './chunk-publisher.js';

export class ProgressSender {
  private spent = 0;
  private cut = false;
  private readonly publisher: ChunkPublisher;

  constructor(
    client: Client,
    private readonly target: ProgressTarget,
    /** The sub-agent whose progress this is: its agent and its run. */
    private readonly from: { agentId: string; runId: string },
    batchIntervalMs: number,
  ) {
    this.publisher = new ChunkPublisher(client.workflow.getHandle(target.runId), target.token, batchIntervalMs);
  }

  /** Bytes of JSON sent (or buffered to be sent): what the sub-agent's run counts against its budget. */
  get bytes(): number {
    return this.spent;
  }

  /** A piece of the model's text; the pieces of one batch go as one event. */
  text(stepNumber: number, delta: string): void {
    const chunk = this.chunk({ type: 'text-delta', stepNumber, delta });
    const whole = jsonBytes(chunk);
    if (!this.affords(whole)) return;
    const folded = this.publisher.publish(chunk, {
      fold: (last) => {
        const event = progressEvent(last);
        if (event?.type !== 'text-delta' || event.stepNumber !== stepNumber) return undefined;
        return this.chunk({ ...event, delta: event.delta + delta });
      },
    });
    // Folded, the chunk grows by the delta as JSON escapes it (the quotes are there already).
    this.spent += folded ? utf8Bytes(JSON.stringify(delta)) - 2 : whole;
  }

  event(event: ProgressEvent, options: { now?: boolean } = {}): void {
    const chunk = this.chunk(event);
    const bytes = jsonBytes(chunk);
    if (!this.affords(bytes)) return;
    this.publisher.publish(chunk, options);
    this.spent += bytes;
  }

  /** Sends what is buffered; resolves once it is in the run, throws if it could not be sent. */
  flush(): Promise<void> {
    return this.publisher.flush();
  }

  /**
   * Whether `bytes` more fit in the slice, keeping room for the one `truncated` event that says the
   * rest was cut; past it, that event goes out and nothing more.
   */
  private affords(bytes: number): boolean {
    if (this.cut) return false;
    const reason =
      `the progress of sub-agent "${this.from.agentId}" was cut here: it may send ` +
      `${kib(this.target.budgetBytes)} per step or tool call, and at most its delegation's budget in all`;
    const truncated = this.chunk({ type: 'truncated', reason });
    const room = jsonBytes(truncated);
    if (this.spent + bytes + room <= this.target.budgetBytes) return true;
    this.cut = true;
    if (this.spent + room <= this.target.budgetBytes) {
      this.publisher.publish(truncated);
      this.spent += room;
    }
    return false;
  }

  private chunk(event: ProgressEvent): AgentProgressChunk {
    return {
      type: 'data-agent-progress',
      data: { agentId: this.from.agentId, runId: this.from.runId, toolCallId: this.target.toolCallId, event },
    };
  }
}

function progressEvent(chunk: PublishedChunk): ProgressEvent | undefined {
  return chunk.type === 'data-agent-progress' ? (chunk as AgentProgressChunk).data.event : undefined;
}
