/**
 * A run asks its grant book for a standing grant that covers a call. The book counts the use; the run
 * checks the grant again before it takes it. A book nobody made a grant in yet does not exist: no grant.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { useGrantUpdate } from '../../../protocol/grant-messages.js';
import type { UseGrantInput } from '../../../protocol/approval-activities.js';
import { grantBookId, type Grant } from '../../../schemas/grants.js';

export async function useGrant(input: UseGrantInput): Promise<Grant | null> {
  const { agentId, resourceId, ...use } = input;
  const book = Context.current().client.workflow.getHandle(grantBookId(agentId, resourceId));
  try {
    // One update per call, whatever the attempt: a retried activity gets the use the book counted, not a second.
    const updateId = `use:${use.runId}:${use.toolCallId}:${use.fingerprint}`;
    return await book.executeUpdate(useGrantUpdate, { args: [use], updateId });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
