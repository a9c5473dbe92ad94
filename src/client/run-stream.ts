/**
 * Reading a run's stream: chunks by offset, to the end of a segment (a pause or the end of the run).
 */
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { RunFailedError } from '../errors.js';
import {
  endsSegment,
  finishChunk,
  RUN_CHUNK_TOPIC,
  RunChunkSchema,
  type RunChunk,
  type RunStreamChunk,
} from '../schemas/stream-chunks.js';
import { runRef } from './checks.js';
import type { ClientContext } from './context.js';
import { runError } from './runs.js';
import { runResult } from './waiting.js';

/**
 * A run's chunks from an offset to the end of the current segment: the run finished (`finish`),
 * paused for a decision (`finish` with `finishReason: 'suspended'`), or failed (`error`).
 * Iterate it once; to read again, or after a disconnect, call `AgentClient.subscribe` with the
 * last offset + 1.
 */
export class RunStream implements AsyncIterable<RunStreamChunk> {
  constructor(
    private readonly ctx: ClientContext,
    readonly runId: string,
    readonly fromOffset: number,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<RunStreamChunk> {
    return subscribe(this.ctx, this.runId, this.fromOffset)[Symbol.asyncIterator]();
  }
}

/**
 * Reads a run's chunks from `fromOffset` to the end of that segment. Reconnecting with the last
 * offset seen + 1 gives every chunk once. When the run has closed before the end was read, the last
 * chunk is made from the run's result (`offset` -1).
 */
export async function* subscribe(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
): AsyncGenerator<RunStreamChunk, void, undefined> {
  runRef(runId);
  const streamClient = WorkflowStreamClient.create(ctx.temporal, runId);
  try {
    for await (const item of streamClient.topic<RunChunk>(RUN_CHUNK_TOPIC).subscribe(fromOffset)) {
      const chunk = RunChunkSchema.parse(item.data);
      yield { ...chunk, offset: item.offset };
      if (endsSegment(chunk)) return;
    }
  } catch (err) {
    throw runError(ctx, runId, err);
  }
  try {
    yield { ...finishChunk(await runResult(ctx, runId), []), offset: -1 };
  } catch (err) {
    if (!(err instanceof RunFailedError)) throw err;
    const failureType = err.failureType ? { failureType: err.failureType } : {};
    yield { type: 'error', error: err.reason, ...failureType, offset: -1 };
  }
}

/** The offset a run's stream has reached: where a reader of what comes next starts. */
export async function streamOffset(ctx: ClientContext, runId: string): Promise<number> {
  return WorkflowStreamClient.create(ctx.temporal, runId).getOffset();
}
