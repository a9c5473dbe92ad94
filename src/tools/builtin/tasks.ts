/**
 * The built-in task tools: a structured task list per thread, kept by the thread's workflow (durable
 * like the thread, carried when it continues as new, not in its messages), changed by `task_write`,
 * `task_update` and `task_complete`, read by `task_check`. At most one task is `in_progress`.
 */
import { z } from 'zod';
import { changeThreadTasks, readThreadTasks, type TaskThread } from './thread-task-list.js';
import { TaskDraftsSchema, TaskIdSchema, TaskPatchSchema, TaskSchema, type TaskChange } from '../../schemas/tasks.js';
import { taskLines, taskReport, taskSummary } from '../../workflows/thread/thread-tasks.js';
import { createTool } from '../create-tool.js';
import { builtinTool } from './builtin-names.js';

/** A refusal, which the model reads: the list is as it was. */
const RefusalSchema = z.object({ isError: z.literal(true), content: z.string().describe('Why nothing changed') });

/** What `task_write`, `task_update` and `task_complete` return: the list after the change. */
export const TaskListOutputSchema = z.union([
  z.object({
    isError: z.literal(false),
    content: z.string().describe('How far the list is, and each task'),
    tasks: z.array(TaskSchema),
  }),
  RefusalSchema,
]);
export type TaskListOutput = z.output<typeof TaskListOutputSchema>;

/** What `task_check` returns: the list, with counts and the tasks not completed. */
export const TaskCheckOutputSchema = z.union([
  z.object({
    isError: z.literal(false),
    content: z.string(),
    tasks: z.array(TaskSchema),
    summary: z.object({
      total: z.number().int(),
      completed: z.number().int(),
      inProgress: z.number().int(),
      pending: z.number().int(),
      allCompleted: z.boolean().describe('True when the list has tasks and every one is completed'),
    }),
    incompleteTasks: z.array(TaskSchema),
  }),
  RefusalSchema,
]);
export type TaskCheckOutput = z.output<typeof TaskCheckOutputSchema>;

/** The thread of the call, and the call's idempotency key (a retried attempt gets the first answer). */
interface CallContext extends TaskThread {
  toolName: string;
  idempotencyKey: string;
}

async function change(context: CallContext, taskChange: TaskChange): Promise<TaskListOutput> {
  const answer = await changeThreadTasks(context.toolName, context, taskChange, context.idempotencyKey);
  if (!answer.ok) return { isError: true, content: answer.reason };
  return { isError: false, content: taskReport(answer.value), tasks: answer.value };
}

/** `task_write`: creates the thread's task list, or replaces it whole. */
export const taskWriteTool = builtinTool(
  createTool({
    id: 'task_write',
    description:
      'Creates the task list of this conversation, or replaces it: pass the whole list each time. Use it to ' +
      'plan work of several steps. Each task has an id (kept across changes; leave it out to have one made), ' +
      'content (what to do), status (pending, in_progress or completed) and an optional activeForm (what is ' +
      'being done, shown while in progress). Only one task may be in_progress. Prefer task_update and ' +
      'task_complete to change single tasks.',
    inputSchema: z.strictObject({ tasks: TaskDraftsSchema }),
    outputSchema: TaskListOutputSchema,
    // The same change twice leaves the same list: a call cut off by a dying worker may simply run again.
    idempotent: true,
    execute: async ({ tasks }, context) => change(context, { op: 'write', tasks }),
  }),
);

/** `task_update`: changes one task by id (its content, status or activeForm). */
export const taskUpdateTool = builtinTool(
  createTool({
    id: 'task_update',
    description:
      'Changes one task of the task list by its id: give only what changes (content, status, activeForm). ' +
      'Only one task may be in_progress: complete or set back the one in progress first. An unknown id is ' +
      'refused with the ids the list has.',
    inputSchema: TaskPatchSchema,
    outputSchema: TaskListOutputSchema,
    idempotent: true,
    execute: async (patch, context) => change(context, { op: 'update', ...patch }),
  }),
);

/** `task_complete`: marks one task completed, by id. */
export const taskCompleteTool = builtinTool(
  createTool({
    id: 'task_complete',
    description: 'Marks one task of the task list completed, by its id, as soon as it is done.',
    inputSchema: z.strictObject({ id: TaskIdSchema }),
    outputSchema: TaskListOutputSchema,
    idempotent: true,
    execute: async ({ id }, context) => change(context, { op: 'complete', id }),
  }),
);

/** `task_check`: how far the list is: counts by status, whether all is done, the tasks still to do. */
export const taskCheckTool = builtinTool(
  createTool({
    id: 'task_check',
    description:
      'Reports how far the task list is: counts by status, whether every task is completed (allCompleted; ' +
      'false for an empty list), and the tasks still to do. Check before you finish tracked work.',
    inputSchema: z.strictObject({}),
    outputSchema: TaskCheckOutputSchema,
    idempotent: true,
    execute: async (_input, context): Promise<TaskCheckOutput> => {
      const answer = await readThreadTasks(context.toolName, context);
      if (!answer.ok) return { isError: true, content: answer.reason };
      const tasks = answer.value?.tasks ?? [];
      const summary = taskSummary(tasks);
      const incompleteTasks = tasks.filter((t) => t.status !== 'completed');
      const content =
        tasks.length === 0
          ? 'The task list is empty: write one with task_write for work of several steps.'
          : [
              `${summary.completed} of ${summary.total} tasks completed; ` +
                `all completed: ${summary.allCompleted ? 'yes' : 'no'}.`,
              ...(incompleteTasks.length > 0 ? ['Still to do:', ...taskLines(incompleteTasks)] : []),
            ].join('\n');
      return { isError: false, content, tasks, summary, incompleteTasks };
    },
  }),
);
