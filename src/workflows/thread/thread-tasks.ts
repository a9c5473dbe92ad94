/**
 * A thread's task list: the changes the task tools ask for, checked and applied, and how the list is
 * told to the model. Pure, sandbox-safe: the thread workflow, the tools and the unit tests use it.
 */
import { jsonBytes } from '../../schemas/limits.js';
import { safeParse } from '../../schemas/json.js';
import type { Message } from '../../schemas/message.js';
import {
  TASK_LIMITS,
  TaskChangeSchema,
  type Task,
  type TaskDraft,
  type TaskPatch,
  type TaskSummary,
} from '../../schemas/tasks.js';

/** The list after a change, or why the change is refused (the model reads it, and the list stays as it was). */
export type TaskChangeOutcome = { ok: true; tasks: Task[] } | { ok: false; reason: string };

/**
 * Applies a change (`write`, `update` or `complete`) to the list, as the thread workflow does for the
 * `changeTasks` update. Refused: a change that does not fit its schema, ids given twice, an unknown id,
 * an update that changes nothing, a list with two tasks `in_progress`, a list over its bounds.
 */
export function changeTasks(current: readonly Task[], raw: unknown): TaskChangeOutcome {
  const parsed = safeParse(TaskChangeSchema, raw);
  if (!parsed.success) return { ok: false, reason: `the task change does not fit: ${parsed.error}` };
  const change = parsed.data;
  const next =
    change.op === 'write'
      ? written(current, change.tasks)
      : change.op === 'update'
        ? updated(current, change)
        : updated(current, { id: change.id, status: 'completed' });
  return next.ok ? withinRules(next.tasks) : next;
}

/** The whole list replaced; a task without an id gets one. */
function written(current: readonly Task[], drafts: TaskDraft[]): TaskChangeOutcome {
  const taken = new Set<string>();
  for (const { id } of drafts) {
    if (id === undefined) continue;
    if (taken.has(id)) return { ok: false, reason: `task ids must be unique: "${id}" is given twice` };
    taken.add(id);
  }
  let next = 1;
  const freshId = (): string => {
    while (taken.has(`task-${next}`)) next++;
    return `task-${next}`;
  };
  const tasks = drafts.map((draft): Task => {
    const id = draft.id ?? keptId(current, draft.content, taken) ?? freshId();
    taken.add(id);
    return { ...draft, id };
  });
  return { ok: true, tasks };
}

/** The id of the one current task with this content, so that rewriting the list keeps its ids. */
function keptId(current: readonly Task[], content: string, taken: Set<string>): string | undefined {
  const same = current.filter((t) => t.content === content);
  return same.length === 1 && !taken.has(same[0]!.id) ? same[0]!.id : undefined;
}

/** One task changed, by id; the others as they were. */
function updated(current: readonly Task[], patch: TaskPatch): TaskChangeOutcome {
  const { id, content, status, activeForm } = patch;
  const at = current.findIndex((t) => t.id === id);
  if (at < 0) return { ok: false, reason: unknownTask(current, id) };
  if (content === undefined && status === undefined && activeForm === undefined) {
    return { ok: false, reason: `task_update of "${id}" changes nothing: give content, status or activeForm` };
  }
  const change = {
    ...(content !== undefined ? { content } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(activeForm !== undefined ? { activeForm } : {}),
  };
  const tasks = current.map((t, i) => (i === at ? { ...t, ...change } : t));
  return { ok: true, tasks };
}

function unknownTask(current: readonly Task[], id: string): string {
  if (current.length === 0) return `no task "${id}": the task list is empty; write one with task_write`;
  return `no task "${id}" in the task list; its ids: ${current.map((t) => t.id).join(', ')}`;
}

/** At most one task in progress, and the list within its bounds. */
function withinRules(tasks: Task[]): TaskChangeOutcome {
  const inProgress = tasks.filter((t) => t.status === 'in_progress').map((t) => `"${t.id}"`);
  if (inProgress.length > 1) {
    return {
      ok: false,
      reason:
        `only one task may be in_progress at a time, and ${inProgress.join(' and ')} would be: ` +
        'complete the one in progress (task_complete) or set it back to pending first',
    };
  }
  if (tasks.length > TASK_LIMITS.maxTasks) {
    return { ok: false, reason: `a task list has at most ${TASK_LIMITS.maxTasks} tasks, not ${tasks.length}` };
  }
  const bytes = jsonBytes(tasks);
  if (bytes > TASK_LIMITS.maxListBytes) {
    return {
      ok: false,
      reason:
        `the task list would take ${bytes} bytes of JSON, over the ${TASK_LIMITS.maxListBytes} it may ` +
        'have: write shorter tasks',
    };
  }
  return { ok: true, tasks };
}

/** How far the list is. */
export function taskSummary(tasks: readonly Task[]): TaskSummary {
  const count = (status: Task['status']) => tasks.filter((t) => t.status === status).length;
  const completed = count('completed');
  return {
    total: tasks.length,
    completed,
    inProgress: count('in_progress'),
    pending: count('pending'),
    allCompleted: tasks.length > 0 && completed === tasks.length,
  };
}

/** One line a task: `- [status] id: content`, with what is being done for the task in progress. */
export function taskLines(tasks: readonly Task[]): string[] {
  return tasks.map((t) => {
    const doing = t.status === 'in_progress' && t.activeForm ? ` (${t.activeForm})` : '';
    return `- [${t.status}] ${t.id}: ${t.content}${doing}`;
  });
}

/** The list in a few lines, for the model: how far it is, then each task. */
export function taskReport(tasks: readonly Task[]): string {
  if (tasks.length === 0) return 'The task list is empty.';
  const { total, completed } = taskSummary(tasks);
  return [`${completed} of ${total} tasks completed:`, ...taskLines(tasks)].join('\n');
}

/**
 * What a run's model is shown of its thread's list when the run begins: the list is not in the
 * thread's messages, so it is there however few of them the model is shown. A user message at the end
 * of the thread's part of the conversation (a system message in the middle is refused by the AI SDK),
 * saying what it is.
 */
export function taskListMessage(tasks: readonly Task[]): Message {
  const intro =
    'The task list of this conversation, as it stands now (kept with task_write, task_update and ' +
    'task_complete; this is not a message from the user):';
  return { role: 'user', content: `${intro}\n${taskReport(tasks)}` };
}
