/**
 * A run's stream as one process reads it: one poller per run, however many readers. It polls the
 * run's `readStream` query, which costs the run no history and holds nothing in it, while any reader
 * waits, and serves every reader of the run in this process from one cache.
 */
import {
  QueryNotRegisteredError,
  QueryRejectedError,
  WorkflowClient,
  WorkflowNotFoundError,
  type Client,
  type DataConverter,
} from '@temporalio/client';
import proto from '@temporalio/proto';
import { StreamOffsetError } from '../../errors.js';
import type { RunStreamChunk } from '../../schemas/stream-chunks.js';
import type { StreamPage } from '../../schemas/stream-protocol.js';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const { WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW: CONTINUED_AS_NEW } =
  proto.temporal.api.enums.v1.WorkflowExecutionStatus;
/**
 * How often a run is asked while a model step streams or chunks keep coming. The model activity
 * sends a batch every 100 ms; at 20 ms a batch waits 10 ms for its poll on average, which keeps a
 * delta's way to the reader near 100 ms, for one query (a worker's cached workflow answers it) per
 * 20 ms per run per process.
 */
const FAST_POLL_MS = 20;
/** While the run is quiet (a tool runs, it waits for a decision) the pause doubles up to this. */
const SLOW_POLL_MS = 500;
/** A query that no worker answers in this time is tried again (the readers wait on). */
const QUERY_DEADLINE_MS = 10_000;
/** The most chunks kept per run; a reader further behind reads past the cache. */
const CACHE_CHUNKS = 10_000;
/** How long a run's cache outlives its last reader, for readers that come back (a reconnect). */
const LINGER_MS = 30_000;

/**
 * What a read gets: chunks (and the offset to read from next), or that the run has closed (its
 * result is final), or that the reader left.
 */
export type FeedRead = { chunks: RunStreamChunk[]; next: number } | { closed: true } | { left: true };

/** What one query got: a page, or that the run has closed, or no answer in time. */
type Polled = StreamPage | 'closed' | 'unanswered';

/** The feeds of one client, by run. */
export class StreamFeeds {
  private readonly feeds = new Map<string, StreamFeed>();
  /** Queries of a closed run are refused, not answered by replaying its whole history on a worker. */
  private readonly queries: WorkflowClient;

  constructor(temporal: Client) {
    this.queries = new WorkflowClient({
      connection: temporal.connection,
      namespace: temporal.options.namespace,
      identity: temporal.options.identity,
      // The client's own converter, codec included (a loaded converter is taken as it is).
      dataConverter: temporal.options.loadedDataConverter as DataConverter,
      interceptors: temporal.options.interceptors.workflow,
      queryRejectCondition: 'NOT_OPEN',
    });
  }

  /** The feed of a run; readers look it up on every read, so a feed can go once nobody reads. */
  of(runId: string): StreamFeed {
    const existing = this.feeds.get(runId);
    if (existing) return existing;
    const feed: StreamFeed = new StreamFeed(
      runId,
      (from) => this.page(runId, from),
      () => this.feeds.get(runId) === feed && this.feeds.delete(runId),
    );
    this.feeds.set(runId, feed);
    return feed;
  }

  private async page(runId: string, fromOffset: number): Promise<Polled> {
    const handle = this.queries.getHandle(runId);
    // The protocol (and zod with it) loads with the first read of a stream, not with the client's entry.
    const { readStreamQuery } = await import('../../protocol/run-messages.js');
    try {
      const deadline = Date.now() + QUERY_DEADLINE_MS;
      return await this.queries.withDeadline(deadline, () => handle.query(readStreamQuery, { fromOffset }));
    } catch (err) {
      // A run that just continued as new answers from its next run: ask again.
      if (err instanceof QueryRejectedError) return err.status === CONTINUED_AS_NEW ? 'unanswered' : 'closed';
      if (err instanceof WorkflowNotFoundError) throw err;
      if (err instanceof QueryNotRegisteredError) {
        const message = `run "${runId}" cannot be read: its worker has no readStream query (${err.message})`;
        throw new Error(message, { cause: err });
      }
      // No worker answered in time, or the connection broke: readers wait on, and the next poll asks again.
      return 'unanswered';
    }
  }
}

export class StreamFeed {
  /** Chunks by offset from `base` on; a hole where a page held something that is not a run chunk. */
  private cache: Array<RunStreamChunk | undefined> = [];
  private base = -1;
  /** Where the run's stream ended when it last answered. */
  private runEnd = 0;
  private live = false;
  private closed = false;
  private failure: unknown;
  private readonly waiters = new Set<() => void>();
  private polling = false;
  private polled: Promise<Polled> | undefined;
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly runId: string,
    private readonly page: (from: number) => Promise<Polled>,
    private readonly evict: () => void,
  ) {}

  /**
   * The chunks from `from` on: at once when there are some, else when the run publishes more. An
   * offset past the end of the stream is refused (`StreamOffsetError`).
   */
  async read(from: number, signal?: AbortSignal): Promise<FeedRead> {
    clearTimeout(this.lingering);
    if (this.base < 0) this.base = from;
    try {
      for (;;) {
        if (this.failure !== undefined) throw this.failure;
        if (signal?.aborted) return { left: true };
        if (from < this.base) return await this.readBehind(from);
        if (from < this.cacheEnd) return { chunks: present(this.cache.slice(from - this.base)), next: this.cacheEnd };
        if (this.closed) return { closed: true };
        if (from === this.cacheEnd) {
          await this.more(signal);
        } else if ((await this.poll()) === 'unanswered') {
          await pause(SLOW_POLL_MS);
        } else if (from > this.runEnd && !this.closed) {
          throw new StreamOffsetError(this.runId, from, this.runEnd);
        }
      }
    } finally {
      this.linger();
    }
  }

  /** Where the run's stream ends now, or `closed`. */
  async end(): Promise<number | 'closed'> {
    // A new feed asks from past any end: the answer says where the end is, with no chunks to carry.
    if (this.base < 0) this.base = Number.MAX_SAFE_INTEGER;
    try {
      while ((await this.poll()) === 'unanswered') await pause(SLOW_POLL_MS);
      if (this.failure !== undefined) throw this.failure;
      return this.closed ? 'closed' : this.runEnd;
    } finally {
      this.linger();
    }
  }

  private get cacheEnd(): number {
    return this.base + this.cache.length;
  }

  /** A reader behind the cache reads on its own, straight from the run. */
  private async readBehind(from: number): Promise<FeedRead> {
    let page: Polled;
    while ((page = await this.page(from)) === 'unanswered') await pause(SLOW_POLL_MS);
    if (page === 'closed') return { closed: true };
    return { chunks: present(await chunksOf(page)), next: page.from + page.chunks.length };
  }

  /** Resolves when the cache grows, the run closes, the poll fails, or the reader leaves. */
  private more(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
      if (!this.polling) void this.pollWhileWaited();
    });
  }

  private async pollWhileWaited(): Promise<void> {
    this.polling = true;
    let interval = FAST_POLL_MS;
    try {
      while (this.waiters.size > 0 && !this.closed && this.failure === undefined) {
        const before = this.cacheEnd;
        await this.poll();
        const grew = this.cacheEnd > before;
        if (this.cacheEnd !== before || this.closed || this.failure !== undefined) this.wakeAll();
        if (grew && this.runEnd > this.cacheEnd) continue; // a page cut short: the rest is ready
        interval = grew || this.live ? FAST_POLL_MS : Math.min(interval * 2, SLOW_POLL_MS);
        await pause(interval);
      }
    } finally {
      this.polling = false;
      this.wakeAll();
      this.linger();
    }
  }

  private wakeAll(): void {
    [...this.waiters].forEach((wake) => wake());
  }

  /** Forgets the run's chunks a while after its last reader, unless one comes back. */
  private linger(): void {
    clearTimeout(this.lingering);
    if (this.polling || this.waiters.size > 0) return;
    this.lingering = setTimeout(this.evict, LINGER_MS).unref();
  }

  /** One query from the end of the cache, one at a time. */
  private poll(): Promise<Polled> {
    this.polled ??= this.pollOnce().finally(() => (this.polled = undefined));
    return this.polled;
  }

  private async pollOnce(): Promise<Polled> {
    let page: Polled;
    try {
      page = await this.page(this.cacheEnd);
    } catch (err) {
      // No such run (or no way to read it): the readers waiting now get the error, later ones ask afresh.
      this.failure = err;
      this.evict();
      return 'unanswered';
    }
    if (page === 'closed') this.closed = true;
    if (typeof page !== 'object') return page;
    // Parsed before the cache changes, so that the changes below happen at once.
    const chunks = await chunksOf(page);
    this.runEnd = page.end;
    this.live = page.live;
    if (page.from > page.end) {
      // The first reader started past the end: the cache starts where the stream ends.
      this.base = page.end;
      this.cache = [];
    } else if (page.from > this.cacheEnd) {
      // A continued run does not carry its finished segments: the cache starts again where its log does.
      this.base = page.from;
      this.cache = chunks;
    } else if (page.from === this.cacheEnd) {
      this.cache.push(...chunks);
      const over = this.cache.length - CACHE_CHUNKS;
      if (over > 0) {
        this.cache.splice(0, over);
        this.base += over;
      }
    }
    return page;
  }
}

/** A page's chunks with their offsets; one that is not a run chunk (a run from before checks) is a hole. */
async function chunksOf(page: StreamPage): Promise<Array<RunStreamChunk | undefined>> {
  const { RunChunkSchema, clientChunk } = await import('../../schemas/stream-chunks.js');
  return page.chunks.map((raw, i) => {
    const chunk = RunChunkSchema.safeParse(raw);
    return chunk.success ? { ...clientChunk(chunk.data), offset: page.from + i } : undefined;
  });
}

function present(chunks: Array<RunStreamChunk | undefined>): RunStreamChunk[] {
  return chunks.filter((c): c is RunStreamChunk => c !== undefined);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
