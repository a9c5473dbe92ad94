/**
 * `context.writer` of a tool's execution: what the tool writes goes to its run's stream through the
 * same publisher (and publish secret) as the model's deltas, and, in a sub-agent's run below a
 * streamed run, to that run as progress. Every chunk is checked where the tool writes it.
 */
import { Context } from '@temporalio/activity';
import { StreamWriteError } from '../../../errors.js';
import { kib, MAX_WRITES_PER_CALL, MAX_WRITTEN_BYTES_PER_CALL } from '../../../schemas/limits.js';
import { checkWrite } from '../../../schemas/data-chunks.js';
import type { ToolStreamWriter } from '../../../tools/tool-context.js';
import { ChunkPublisher } from '../stream/chunk-publisher.js';
import type { ExecuteToolInput } from '../../../protocol/activities.js';
import { ProgressSender } from '../stream/progress-sender.js';

/** How often written chunks go to the run, ms: as often as the model's deltas. */
const WRITE_BATCH_INTERVAL_MS = 100;

export class ToolWriter implements ToolStreamWriter {
  private count = 0;
  private bytes = 0;
  private closed = false;
  private publisher: ChunkPublisher | undefined;
  private progress: ProgressSender | undefined;
  /** The execution's activity: a write after it ended (from a timer the tool left) still has its logger. */
  private readonly activity = Context.current();

  constructor(private readonly input: ExecuteToolInput) {}

  /** Checks the chunk and queues it; a chunk it refuses throws here, in the tool's own call. */
  write = (chunk: unknown): Promise<void> => {
    const { toolName } = this.input;
    if (this.closed) {
      // Thrown from a timer the tool left behind, an error would take the worker down: say it, and drop it.
      this.activity.log.warn(`tool "${toolName}" wrote to its stream after its execution ended; dropped`, {
        toolCallId: this.input.toolCallId,
      });
      return Promise.resolve();
    }
    const token = this.input.publishToken;
    if (!token) {
      throw new StreamWriteError(
        'unavailable',
        toolName,
        'this call was scheduled by a version of the runner without tool writes; it can write once it runs again',
      );
    }
    const checked = checkWrite(chunk);
    if (!checked.ok) throw new StreamWriteError(checked.tooLarge ? 'too-large' : 'invalid', toolName, checked.problem);
    if (this.count >= MAX_WRITES_PER_CALL) {
      throw new StreamWriteError('too-many', toolName, `one execution may write ${MAX_WRITES_PER_CALL} chunks`);
    }
    if (this.bytes + checked.bytes > MAX_WRITTEN_BYTES_PER_CALL) {
      throw new StreamWriteError(
        'too-many',
        toolName,
        `this one would take what the execution wrote to ${kib(this.bytes + checked.bytes)}, ` +
          `over the ${kib(MAX_WRITTEN_BYTES_PER_CALL)} one execution may write`,
      );
    }
    this.count++;
    this.bytes += checked.bytes;
    const { client } = this.activity;
    this.publisher ??= new ChunkPublisher(client.workflow.getHandle(this.input.runId), token, WRITE_BATCH_INTERVAL_MS);
    this.publisher.publish(checked.chunk);
    if (this.input.progress) {
      this.progress ??= new ProgressSender(
        client,
        this.input.progress,
        { agentId: this.input.agentId, runId: this.input.runId },
        WRITE_BATCH_INTERVAL_MS,
      );
      const { toolCallId } = this.input;
      this.progress.event({ type: 'data', toolCallId, toolName, chunk: checked.chunk });
    }
    return Promise.resolve();
  };

  /**
   * Ends the writing: every chunk is in the run's stream before the call's result (the workflow
   * publishes that after this activity). Returns the bytes of progress sent. A chunk that could not be
   * sent is logged, not thrown: the tool's work is done, and running it again for a chunk would be worse.
   */
  async close(): Promise<number> {
    this.closed = true;
    const sent = await Promise.allSettled([this.publisher?.flush(), this.progress?.flush()]);
    for (const result of sent) {
      if (result.status === 'rejected') {
        this.activity.log.warn(`chunks that tool "${this.input.toolName}" wrote could not be sent`, {
          toolCallId: this.input.toolCallId,
          error: String(result.reason),
        });
      }
    }
    return this.progress?.bytes ?? 0;
  }
}
