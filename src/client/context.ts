import type { Client } from '@temporalio/client';
import type { StreamFeeds } from './stream/stream-feed.js';

/** What every part of the client needs: the Temporal client, where runs start, and the streams it reads. */
export interface ClientContext {
  temporal: Client;
  namespace: string;
  taskQueue: string;
  /** One poller per run, shared by every reader of it through this client. */
  feeds: StreamFeeds;
}
