/** A run's turn on its thread begins: the thread workflow is started if need be, and asked for the earlier messages. */
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { threadWorkflowId } from '../schemas/thread.js';
import type { agentThread } from '../workflows/agent-thread.js';
import { threadSearchAttributes } from '../workflows/search-attributes.js';
import { beginTurnUpdate, type BeganTurn } from '../workflows/thread-messages.js';
import type { BeginThreadTurnInput } from './contracts.js';

/**
 * Update-with-start: the first run on a thread starts its workflow, on the run's own task queue. The
 * answer is recorded in the run's history, so the run replays with the messages it was shown.
 */
export async function beginThreadTurn(input: BeginThreadTurnInput): Promise<BeganTurn> {
  const { threadId, resourceId, ...turn } = input;
  const activity = Context.current();
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof agentThread>('agentThread', {
    workflowId: threadWorkflowId(resourceId, threadId),
    taskQueue: activity.info.taskQueue,
    args: [{ threadId, ...(resourceId ? { resourceId } : {}) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: threadSearchAttributes({ threadId, resourceId }),
  });
  return activity.client.workflow.executeUpdateWithStart(beginTurnUpdate, { args: [turn], startWorkflowOperation });
}
