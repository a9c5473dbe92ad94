import type { Client } from '@temporalio/client';
import type { SigningKey } from './decisions/signing.js';
import type { PrincipalInput } from './identity.js';
import type { StreamFeeds } from './stream/stream-feed.js';

/** What every part of the client needs: the Temporal client, where runs start, and the streams it reads. */
export interface ClientContext {
  temporal: Client;
  namespace: string;
  taskQueue: string;
  /** One poller per run, shared by every reader of it through this client. */
  feeds: StreamFeeds;
}

/** How a client acts where a call does not say: set when it is made (see `ClientBehaviour`). */
export interface ClientActor {
  /** Who it starts runs and decides in the name of. */
  principal: PrincipalInput | undefined;
  warn: (message: string) => void;
  /** The key it signs its decisions with. */
  signingKey: SigningKey | undefined;
}
