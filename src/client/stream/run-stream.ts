/**
 * A run's stream as the client hands it out. What reads it (read-stream.ts) loads the run's schemas and
 * protocol, so it is imported on the first read: the client's entry loads without them.
 */
import type { JsonValue } from '../../schemas/json.js';
import type { RunStreamChunk } from '../../schemas/stream-chunks.js';
import type { StructuredOutput } from '../../structured-output.js';
import type { ClientContext } from '../context.js';

/** What a partial object may lack: any key, at any depth, as the AI SDK's `DeepPartial`. */
export type DeepPartial<T> = T extends (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * A run's chunks from an offset to the end of the current segment: the run finished (`finish`),
 * paused for a decision (`finish` with `finishReason: 'suspended'`), or failed (`error`).
 * Each iteration reads the run's durable stream from `fromOffset` again, so the stream, its
 * `fullStream` and its `textStream` can each be read, in any order; after a disconnect, call
 * `AgentClient.subscribe` with the last offset + 1.
 */
export class RunStream<TObject = JsonValue> implements AsyncIterable<RunStreamChunk> {
  // Private to the class: the caller's schema, which checks the object (`object`).
  readonly #output: StructuredOutput | undefined;

  constructor(
    private readonly ctx: ClientContext,
    readonly runId: string,
    readonly fromOffset: number,
    output?: StructuredOutput,
  ) {
    this.#output = output;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunStreamChunk> {
    return subscribe(this.ctx, this.runId, this.fromOffset)[Symbol.asyncIterator]();
  }

  /** Every chunk, as the AI SDK's and Mastra's `fullStream`: the same as iterating the stream itself. */
  get fullStream(): AsyncIterable<RunStreamChunk> {
    return { [Symbol.asyncIterator]: () => this[Symbol.asyncIterator]() };
  }

  /**
   * The text the model writes, delta by delta, as the AI SDK's `textStream`. A delta of a model attempt
   * that was retried (`model-retry`) has been written already and is not taken back: read `fullStream`
   * where that matters.
   */
  get textStream(): AsyncIterable<string> {
    const chunks = this.fullStream;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of chunks) if (chunk.type === 'text-delta') yield chunk.delta;
      },
    };
  }

  /**
   * A run with an output schema (`structuredOutput`): the object as the model writes it, one deeper
   * partial object after another, as the AI SDK's `partialOutputStream`. A step that calls tools, or a
   * model attempt that was retried, starts over. Partial objects are the model's JSON, before the
   * schema's transforms: a field a transform turns into a `Date` is still its string here.
   */
  get partialObjectStream(): AsyncIterable<DeepPartial<TObject>> {
    const chunks = this.fullStream;
    return {
      async *[Symbol.asyncIterator]() {
        const { partialObjects } = await import('./object-stream.js');
        yield* partialObjects(chunks) as AsyncIterable<DeepPartial<TObject>>;
      },
    };
  }

  /**
   * The finished run's object, as its schema makes it (the caller's, given to `stream`); undefined when
   * the segment ends with a pause (read the next one after the decision). Rejects with
   * `StructuredOutputError` when the run finished without it, `RunFailedError` when the run failed.
   */
  get object(): Promise<TObject | undefined> {
    return import('./object-stream.js').then(
      ({ finishedObject }) => finishedObject(this.runId, this.fullStream, this.#output) as Promise<TObject | undefined>,
    );
  }
}

/** read-stream.ts's `subscribe`, loaded when the reading starts (a generator runs nothing before its first `next`). */
export async function* subscribe(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
  signal?: AbortSignal,
): AsyncGenerator<RunStreamChunk, void, undefined> {
  const reading = await import('./read-stream.js');
  yield* reading.subscribe(ctx, runId, fromOffset, signal);
}

/** read-stream.ts's `subscribeBatches`, loaded when the reading starts. */
export async function* subscribeBatches(
  ctx: ClientContext,
  runId: string,
  fromOffset: number,
  signal?: AbortSignal,
): AsyncGenerator<RunStreamChunk[], void, undefined> {
  const reading = await import('./read-stream.js');
  yield* reading.subscribeBatches(ctx, runId, fromOffset, signal);
}
