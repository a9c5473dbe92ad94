/**
 * A run's turn on its thread begins: the thread workflow is started if need be, and asked for the
 * earlier messages. A sub-agent whose supervisor shares the thread reads it, and adds nothing to it.
 */
import { Context } from '@temporalio/activity';
import {
  QueryNotRegisteredError,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Message } from '../../../schemas/message.js';
import { MAX_HISTORY_BYTES, threadWorkflowId } from '../../../schemas/thread.js';
import type { agentThread } from '../../../workflows/thread/agent-thread.js';
import { AgentThreadIdKey, threadSearchAttributes } from '../../../protocol/search-attributes.js';
import { historyForModel } from '../../../workflows/thread/thread-history.js';
import { beginTurnUpdate, threadTurnsQuery, turnKeyQuery, type BeganTurn } from '../../../protocol/thread-messages.js';
import type {
  BeginThreadTurnInput,
  ReadThreadHistoryInput,
  VerifyThreadWriterInput,
  VerifyThreadWriterOutput,
} from '../../../protocol/activities.js';

/**
 * Update-with-start: the first run on a thread starts its workflow, on the run's own task queue. The
 * answer is recorded in the run's history, so the run replays with the messages it was shown.
 */
export async function beginThreadTurn(input: BeginThreadTurnInput): Promise<BeganTurn> {
  const { threadId, resourceId, turnKey, ...turn } = input;
  const activity = Context.current();
  // The thread belongs to who started the run that begins it (a thread that exists keeps its owner).
  const owner = turn.startedBy;
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof agentThread>('agentThread', {
    workflowId: threadWorkflowId(resourceId, threadId),
    taskQueue: activity.info.taskQueue,
    args: [{ threadId, ...(resourceId ? { resourceId } : {}), ...(owner ? { owner } : {}) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: threadSearchAttributes({ threadId, resourceId }),
  });
  try {
    return await activity.client.workflow.executeUpdateWithStart(beginTurnUpdate, {
      args: turnKey ? [turn, { runId: turn.runId, key: turnKey }] : [turn],
      startWorkflowOperation,
    });
  } catch (err) {
    // A turn the thread refuses is refused again on every attempt: the run fails with the reason.
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'ThreadWriteRefused') {
      throw ApplicationFailure.nonRetryable(
        `thread "${threadId}" refused the run's turn: ${cause.message}`,
        cause.type,
      );
    }
    throw err;
  }
}

/**
 * The thread's question to a run that asks to begin a turn on it (a local activity of the thread):
 * the run must be a run (`agentRun`), running, on this thread, and vouch for the key itself (a query
 * only its own code answers). Whoever can only send updates cannot make a run vouch for their key.
 */
export async function verifyThreadWriter(input: VerifyThreadWriterInput): Promise<VerifyThreadWriterOutput> {
  const { runId, threadId, threadWorkflowId: thread, digest } = input;
  const handle = Context.current().client.workflow.getHandle(runId);
  const refused = (why: string): VerifyThreadWriterOutput => ({
    ok: false,
    reason: `${why}; only a run on this thread writes it`,
  });
  let described;
  try {
    described = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return refused(`there is no run "${runId}"`);
    throw err;
  }
  if (described.type !== 'agentRun') return refused(`"${runId}" is not a run of an agent`);
  if (described.status.name !== 'RUNNING') return refused(`run "${runId}" is not running`);
  const onThread = described.typedSearchAttributes.get(AgentThreadIdKey);
  if (onThread !== undefined && onThread !== threadId) return refused(`run "${runId}" is on another thread`);
  let proof;
  try {
    proof = await handle.query(turnKeyQuery);
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) return refused(`run "${runId}" holds no turn key`);
    throw err;
  }
  if (!proof || proof.threadWorkflowId !== thread || proof.digest !== digest) {
    return refused(`run "${runId}" did not begin a turn on this thread with that key`);
  }
  return { ok: true };
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
