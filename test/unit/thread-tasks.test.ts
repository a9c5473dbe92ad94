/** A thread's task list: what the task tools may make of it, as the thread workflow applies their changes. */
import { describe, expect, it } from 'vitest';
import { TASK_LIMITS, type Task } from '../../src/schemas/tasks.js';
import { changeTasks, taskListMessage, taskReport, taskSummary } from '../../src/workflows/thread/thread-tasks.js';

const list: Task[] = [
  { id: 'plan', content: 'Write the plan', status: 'completed' },
  { id: 'build', content: 'Build it', status: 'in_progress', activeForm: 'Building it' },
  { id: 'ship', content: 'Ship it', status: 'pending' },
];

function applied(current: Task[], change: unknown): Task[] {
  const outcome = changeTasks(current, change);
  if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
  return outcome.tasks;
}

function refusal(current: Task[], change: unknown): string {
  const outcome = changeTasks(current, change);
  if (outcome.ok) throw new Error(`applied: ${outcome.tasks.length} tasks`);
  return outcome.reason;
}

describe('task_write: the whole list', () => {
  it('replaces the list, and gives a task without an id one that is free', () => {
    const tasks = applied(list, {
      op: 'write',
      tasks: [
        { id: 'task-1', content: 'Taken id', status: 'pending' },
        { content: 'Fresh', status: 'pending' },
      ],
    });
    expect(tasks).toEqual([
      { id: 'task-1', content: 'Taken id', status: 'pending' },
      { id: 'task-2', content: 'Fresh', status: 'pending' },
    ]);
  });

  it('keeps the id of a task written again without it (same content, one such task)', () => {
    const tasks = applied(list, {
      op: 'write',
      tasks: [
        { content: 'Build it', status: 'completed' },
        { content: 'Ship it', status: 'in_progress' },
      ],
    });
    expect(tasks.map((t) => [t.id, t.status])).toEqual([
      ['build', 'completed'],
      ['ship', 'in_progress'],
    ]);
  });

  it('refuses an id given twice, and two tasks in progress', () => {
    const twice = { id: 'a', content: 'A', status: 'pending' };
    expect(refusal([], { op: 'write', tasks: [twice, twice] })).toBe('task ids must be unique: "a" is given twice');
    const busy = [
      { id: 'a', content: 'A', status: 'in_progress' },
      { id: 'b', content: 'B', status: 'in_progress' },
    ];
    expect(refusal([], { op: 'write', tasks: busy })).toMatch(
      /^only one task may be in_progress at a time, and "a" and "b" would be/,
    );
  });

  it('empties the list', () => {
    expect(applied(list, { op: 'write', tasks: [] })).toEqual([]);
  });
});

describe('task_update and task_complete: one task by id', () => {
  it('changes only the fields given', () => {
    const tasks = applied(list, { op: 'update', id: 'ship', content: 'Ship it on Friday' });
    expect(tasks[2]).toEqual({ id: 'ship', content: 'Ship it on Friday', status: 'pending' });
    expect(tasks.slice(0, 2)).toEqual(list.slice(0, 2));
  });

  it('refuses a second task in progress, and lets the first be completed then the next started', () => {
    expect(refusal(list, { op: 'update', id: 'ship', status: 'in_progress' })).toBe(
      'only one task may be in_progress at a time, and "build" and "ship" would be: complete the one in ' +
        'progress (task_complete) or set it back to pending first',
    );
    const built = applied(list, { op: 'complete', id: 'build' });
    expect(built[1]!.status).toBe('completed');
    const shipping = applied(built, { op: 'update', id: 'ship', status: 'in_progress' });
    expect(taskSummary(shipping)).toEqual({ total: 3, completed: 2, inProgress: 1, pending: 0, allCompleted: false });
  });

  it('refuses an unknown id, naming the ids the list has', () => {
    expect(refusal(list, { op: 'update', id: 'deploy', status: 'completed' })).toBe(
      'no task "deploy" in the task list; its ids: plan, build, ship',
    );
    expect(refusal(list, { op: 'complete', id: 'deploy' })).toBe(
      'no task "deploy" in the task list; its ids: plan, build, ship',
    );
    expect(refusal([], { op: 'complete', id: 'x' })).toBe(
      'no task "x": the task list is empty; write one with task_write',
    );
  });

  it('refuses an update that changes nothing', () => {
    expect(refusal(list, { op: 'update', id: 'ship' })).toBe(
      'task_update of "ship" changes nothing: give content, status or activeForm',
    );
  });
});

describe('bounds: what does not fit is refused, the list stays as it was', () => {
  const task = (i: number) => ({ id: `t${i}`, content: `Task ${i}`, status: 'pending' });

  it('at most 100 tasks', () => {
    const full = Array.from({ length: TASK_LIMITS.maxTasks }, (_, i) => task(i));
    expect(applied([], { op: 'write', tasks: full })).toHaveLength(100);
    expect(refusal([], { op: 'write', tasks: [...full, task(100)] })).toMatch(/at most 100 tasks/);
  });

  it('bounded fields, and a bounded list in bytes', () => {
    expect(refusal([], { op: 'write', tasks: [{ ...task(1), content: 'x'.repeat(501) }] })).toMatch(/content/);
    expect(refusal([], { op: 'write', tasks: [{ ...task(1), content: '   ' }] })).toMatch(/the task is blank/);
    expect(refusal([], { op: 'write', tasks: [{ ...task(1), id: 'has space' }] })).toMatch(/a task id is letters/);
    expect(refusal([], { op: 'write', tasks: [{ ...task(1), id: 'x'.repeat(65) }] })).toMatch(/id/);
    // 100 tasks with every field at its bound: each one fits, the list is over 64 KiB.
    const long = Array.from({ length: 100 }, (_, i) => ({
      ...task(i),
      content: `${i} ${'y'.repeat(490)}`,
      activeForm: 'z'.repeat(200),
    }));
    expect(refusal([], { op: 'write', tasks: long })).toMatch(/over the 65536 it may have: write shorter tasks/);
  });

  it('refuses what is not a change: an unknown op, a stray field, a status that is not one', () => {
    expect(refusal(list, { op: 'delete', id: 'ship' })).toMatch(/^the task change does not fit/);
    expect(refusal(list, { op: 'complete', id: 'ship', by: 'me' })).toMatch(/by/);
    expect(refusal(list, { op: 'update', id: 'ship', status: 'cancelled' })).toMatch(/status/);
    expect(refusal(list, 'write everything')).toMatch(/^the task change does not fit/);
  });
});

describe('what the model reads', () => {
  it('a report of the list, and the message a run begins with', () => {
    expect(taskReport(list)).toBe(
      [
        '1 of 3 tasks completed:',
        '- [completed] plan: Write the plan',
        '- [in_progress] build: Build it (Building it)',
        '- [pending] ship: Ship it',
      ].join('\n'),
    );
    const message = taskListMessage(list);
    expect(message.role).toBe('user');
    expect(message.content).toMatch(
      /^The task list of this conversation, as it stands now .*not a message from the user/,
    );
    expect(message.content).toContain('- [pending] ship: Ship it');
    expect(taskSummary([])).toMatchObject({ total: 0, allCompleted: false });
  });
});
