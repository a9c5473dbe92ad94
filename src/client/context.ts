import type { Client } from '@temporalio/client';

/** What every part of the client needs: the Temporal client and where runs start. */
export interface ClientContext {
  temporal: Client;
  namespace: string;
  taskQueue: string;
}
