/**
 * Visibility answers read raw (for what the SDK's list leaves out: the unreadable memo, the build)
 * get their stored payloads back here, as the SDK's own list would: a memo over the payload store's
 * threshold is recorded as a reference.
 */
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

type ListResponse = proto.temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse;

/**
 * `response` with every payload reference in it replaced by the payload. Without a payload store, a
 * reference stays, and the run it is in is listed as unreadable, not the whole list refused.
 */
export async function withStoredPayloads(temporal: Client, response: ListResponse): Promise<void> {
  const { externalStorage } = temporal.options.loadedDataConverter;
  if (!externalStorage) return;
  // The SDK's payload walk (25 ms to load) only where there is a store to read from.
  const { extstoreInboundOptions, visit, walkListWorkflowExecutionsResponse } =
    await import('@temporalio/common/lib/internal-non-workflow/index.js');
  await visit(response, walkListWorkflowExecutionsResponse, extstoreInboundOptions(externalStorage));
}
