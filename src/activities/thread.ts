/**
 * A run's turn on its thread begins: the thread workflow is started if need be, and asked for the
 * earlier messages. A sub-agent whose supervisor shares the thread reads it, and adds nothing to it.
 */
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import type { Message } from '../schemas/message.js';
import { MAX_HISTORY_BYTES, threadWorkflowId } from '../schemas/thread.js';
import type { agentThread } from '../workflows/agent-thread.js';
import { threadSearchAttributes } from '../workflows/search-attributes.js';
import { historyForModel } from '../workflows/thread-history.js';
import { beginTurnUpdate, threadTurnsQuery, type BeganTurn } from '../workflows/thread-messages.js';
import type { BeginThreadTurnInput, ReadThreadHistoryInput } from './contracts.js';

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

/**
 * The thread's recent messages as its supervisor's sub-agent is shown them: every turn the thread
 * keeps when the sub-agent starts (the supervisor's own so far: the message it began with), cut as any
 * run's history is. A query, so the thread records nothing of it; it needs a worker polling the
 * thread's task queue, as this activity's own worker does where the supervisor started the thread.
 * The answer is the activity's result, so the sub-agent's run replays with what its model was shown.
 */
export async function readThreadHistory(input: ReadThreadHistoryInput): Promise<{ history: Message[] }> {
  const { threadId, resourceId, lastMessages } = input;
  const handle = Context.current().client.workflow.getHandle(threadWorkflowId(resourceId, threadId));
  try {
    const turns = await handle.query(threadTurnsQuery);
    return { history: historyForModel(turns, lastMessages, MAX_HISTORY_BYTES) };
  } catch (err) {
    // A thread that is not there (gone past retention) leaves the sub-agent with its task alone.
    if (err instanceof WorkflowNotFoundError) return { history: [] };
    throw err;
  }
}
