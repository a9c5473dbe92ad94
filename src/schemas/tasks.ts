/**
 * A thread's task list: what the task tools (`task_write`, `task_update`, `task_complete`,
 * `task_check`) keep on the thread workflow. Bounded, so that the whole list fits in the thread's
 * memo and in what the thread carries when it continues as new. Sandbox-safe: zod only.
 */
import { z } from 'zod';

/** How many tasks a list holds, and how long each field may be. */
export const TASK_LIMITS = {
  maxTasks: 100,
  maxIdChars: 64,
  maxContentChars: 500,
  maxActiveFormChars: 200,
  /** Bytes of JSON of the whole list: it is in the thread's memo, whole. */
  maxListBytes: 64 * 1024,
} as const;

/** `pending`: not started; `in_progress`: being worked on (one task at most); `completed`: done. */
export const TaskStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** Ids travel in tool calls, agentctl's output and URLs: a short word. */
export const TaskIdSchema = z
  .string()
  .min(1)
  .max(TASK_LIMITS.maxIdChars)
  .regex(/^[\w.:-]+$/, 'a task id is letters, digits, "_", ".", ":" and "-" only')
  .describe('The task id, as task_write set it or returned it');

// Patterns rather than trim(): they survive the trip to JSON schema, so the model is told too.
const content = z
  .string()
  .max(TASK_LIMITS.maxContentChars)
  .regex(/\S/, 'the task is blank')
  .describe("What to do, in the imperative (e.g. 'Fix the login bug')");
const activeForm = z
  .string()
  .max(TASK_LIMITS.maxActiveFormChars)
  .regex(/\S/, 'activeForm is blank')
  .describe("What is being done while the task is in progress (e.g. 'Fixing the login bug')");

/** One task of a thread's list. */
export const TaskSchema = z.strictObject({
  id: TaskIdSchema,
  content,
  status: TaskStatusSchema,
  activeForm: activeForm.optional(),
});
export type Task = z.infer<typeof TaskSchema>;

/** A task as `task_write` takes it: without an id, it gets one (an existing task's, when it has the same content). */
export const TaskDraftSchema = TaskSchema.extend({ id: TaskIdSchema.optional() });
export type TaskDraft = z.infer<typeof TaskDraftSchema>;

/** The tasks of `task_write`: the whole list, which replaces the one the thread has. */
export const TaskDraftsSchema = z
  .array(TaskDraftSchema)
  .max(TASK_LIMITS.maxTasks, `a task list has at most ${TASK_LIMITS.maxTasks} tasks`)
  .describe('The whole task list, in order; it replaces the one the thread has');

/** What changes one task (`task_update`): the fields given, at least one. */
export const TaskPatchSchema = z.strictObject({
  id: TaskIdSchema,
  content: content.optional(),
  status: TaskStatusSchema.optional(),
  activeForm: activeForm.optional(),
});
export type TaskPatch = z.infer<typeof TaskPatchSchema>;

/**
 * A change to a thread's list, as the task tools send it to the thread workflow (the `changeTasks`
 * update): replace the list, change one task, or mark one completed.
 */
export const TaskChangeSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('write'), tasks: TaskDraftsSchema }),
  TaskPatchSchema.extend({ op: z.literal('update') }),
  z.strictObject({ op: z.literal('complete'), id: TaskIdSchema }),
]);
export type TaskChange = z.infer<typeof TaskChangeSchema>;

/** The list a thread keeps, and when a task tool last changed it (workflow time, ISO 8601). */
export const TaskListSchema = z.strictObject({
  tasks: z.array(TaskSchema).max(TASK_LIMITS.maxTasks),
  updatedAt: z.string(),
});
export type TaskList = z.infer<typeof TaskListSchema>;

/** How far the list is: counts by status; `allCompleted` only for a list that has tasks, all completed. */
export interface TaskSummary {
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  allCompleted: boolean;
}
