/**
 * The task tools' way to their thread's list: an update of the thread workflow to change it, a query
 * to read it, from inside the tool's activity (with the worker's Temporal client).
 */
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { Task, TaskChange, TaskList } from '../../schemas/tasks.js';
import { threadWorkflowId, type TurnWriter } from '../../schemas/thread.js';
import { changeTasksUpdate, threadTasksQuery } from '../../protocol/thread-messages.js';
import { writerArgs } from './turn-writers.js';

/** The thread of the run whose tool asks, from the tool's context. */
export interface TaskThread {
  threadId: string | undefined;
  resourceId: string | undefined;
}

/** What the thread answered, or why the tool could not have it: `reason` is for the model. */
export type TaskAnswer<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Changes the thread's list. A change the thread refuses comes back with its reason; a thread that
 * cannot be reached for another cause throws, so the activity is retried. `updateId` (the call's
 * idempotency key) makes a retried attempt get the answer of the first one that went through.
 */
export async function changeThreadTasks(
  toolName: string,
  thread: TaskThread,
  change: TaskChange,
  updateId: string,
): Promise<TaskAnswer<Task[]>> {
  // The thread takes the change only with the turn key of the call's run (given to the call's context).
  const args: [TaskChange, TurnWriter?] = [change, ...writerArgs(thread)];
  return onThread(toolName, thread, async (handle) => {
    try {
      const { tasks } = await handle.executeUpdate(changeTasksUpdate, { args, updateId });
      return { ok: true, value: tasks };
    } catch (err) {
      // Loaded here, in the worker that runs the tool: defining an agent (the task tools) must not load the client.
      const { WorkflowUpdateFailedError } = await import('@temporalio/client');
      const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure) return { ok: false, reason: cause.message };
      throw err;
    }
  });
}

/** The thread's list (none until a task tool wrote one). */
export async function readThreadTasks(toolName: string, thread: TaskThread): Promise<TaskAnswer<TaskList | undefined>> {
  return onThread(toolName, thread, async (handle) => ({ ok: true, value: await handle.query(threadTasksQuery) }));
}

async function onThread<T>(
  toolName: string,
  { threadId, resourceId }: TaskThread,
  act: (handle: WorkflowHandle) => Promise<TaskAnswer<T>>,
): Promise<TaskAnswer<T>> {
  if (!threadId) {
    return {
      ok: false,
      reason:
        `${toolName} keeps the task list on the run's thread, and this run has none: ` +
        'start the run with a threadId (and a resourceId) to track tasks',
    };
  }
  const handle = Context.current().client.workflow.getHandle(threadWorkflowId(resourceId, threadId));
  try {
    return await act(handle);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // "Not found" may also be an update that met the thread as it continued as new: then try again.
    const running = await handle.describe().then(
      (d) => d.status.name === 'RUNNING',
      () => false,
    );
    if (running) throw err;
    const where = resourceId === undefined ? '' : ` of resource "${resourceId}"`;
    return {
      ok: false,
      reason: `thread "${threadId}"${where} is not open: its task list is kept by the thread, which a run on it starts`,
    };
  }
}
