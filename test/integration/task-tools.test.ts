/**
 * The task tools on the dev server: a thread's list written in one turn, shown to the model at the start
 * of the next (however few messages it is shown, and after the thread continued as new), reported by
 * task_check; at most one task in progress; read with the client while no run goes on; a run without a
 * thread told what to do; a change that does not fit refused by the thread, which goes on.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineAgent,
  taskCheckTool,
  taskCompleteTool,
  taskUpdateTool,
  taskWriteTool,
  type JsonValue,
  type Message,
  type RunResult,
} from '../../src/index.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { changeTasksUpdate } from '../../src/protocol/thread-messages.js';
import { modelCalls, spyModels } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';
import { continueThreadAsNew, turnWriterOf } from '../turn-keys.js';

const taskTools = { taskWriteTool, taskUpdateTool, taskCompleteTool, taskCheckTool };
const planner = defineAgent({
  id: 'task-planner',
  name: 'Planner',
  instructions: 'You plan.',
  model: 'spy/tasks',
  tools: taskTools,
});
/** Shown none of the thread's messages: the list is all it is shown of the thread. */
const forgetful = defineAgent({ ...planner, id: 'task-forgetful', memory: { lastMessages: 0 } });

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([planner, forgetful], { models: spyModels });
});
afterAll(async () => w?.stop());

const RESOURCE = 'task-tools-user';
const newThread = () => ({ threadId: `tasks-${randomUUID()}`, resourceId: RESOURCE });
const call = (toolName: string, args: JsonValue) => ({ toolCalls: [{ toolName, args }] });

/** A run on the thread that waits for the approval of its call of task_check: its turn stays open. */
async function waitingRun(agentId: string, thread: { threadId: string; resourceId: string }): Promise<RunResult> {
  const run = await w.client.generate(agentId, 'Wait.', {
    ...thread,
    requireToolApproval: true,
    script: [call('task_check', {}), { text: 'never' }],
  });
  expect(run.finishReason).toBe('suspended');
  return run;
}

/** The prompt of each model call from now on, one line per message (tool parts by their tool). */
function spying(): () => string[][] {
  const before = modelCalls.length;
  return () =>
    modelCalls.slice(before).map((c) =>
      (c.prompt as Message[]).flatMap((m) => {
        if (typeof m.content === 'string') return [`${m.role}: ${m.content}`];
        return m.content.map((p) =>
          p.type === 'text' ? `${m.role}: ${String(p.text)}` : `${m.role}: ${String(p.type)} ${String(p.toolName)}`,
        );
      }),
    );
}

/** The outputs of the run's tool calls, in the order of its steps. */
function outputs(result: RunResult): unknown[] {
  return result.steps.flatMap((s) => s.toolResults.map((r) => (r.isError ? { toolError: r.error } : r.output)));
}

const planScript = [
  call('task_write', {
    tasks: [
      { id: 'outline', content: 'Write the outline', status: 'in_progress' },
      { content: 'Draft the text', status: 'pending' },
      { id: 'review', content: 'Review it', status: 'pending' },
    ],
  }),
  // A second task in progress: refused, and the model reads why.
  call('task_update', { id: 'task-1', status: 'in_progress' }),
  call('task_complete', { id: 'outline' }),
  call('task_update', { id: 'task-1', status: 'in_progress', activeForm: 'Drafting the text' }),
  { text: 'The outline is done; drafting.' },
];

const listShown = [
  'user: The task list of this conversation, as it stands now (kept with task_write, task_update and ' +
    'task_complete; this is not a message from the user):',
  '1 of 3 tasks completed:',
  '- [completed] outline: Write the outline',
  '- [in_progress] task-1: Draft the text (Drafting the text)',
  '- [pending] review: Review it',
].join('\n');

describe('the task list of a thread', () => {
  it('is written in one turn, shown to the next, and reported by task_check', async () => {
    const thread = newThread();
    const first = await w.client.generate('task-planner', 'Write me an article.', { ...thread, script: planScript });
    expect(first.finishReason).toBe('stop');
    const [written, refused, completed, started] = outputs(first) as Array<Record<string, unknown>>;
    expect(written).toMatchObject({ isError: false, tasks: [{ id: 'outline' }, { id: 'task-1' }, { id: 'review' }] });
    expect(refused).toEqual({
      isError: true,
      content:
        'only one task may be in_progress at a time, and "outline" and "task-1" would be: complete the one in ' +
        'progress (task_complete) or set it back to pending first',
    });
    expect(completed).toMatchObject({ isError: false, content: expect.stringMatching(/^1 of 3 tasks completed/) });
    expect(started).toMatchObject({ isError: false });

    // Any process reads the list from the thread's memo.
    const read = await w.client.getThreadTasks(thread);
    expect(read.tasks).toEqual([
      { id: 'outline', content: 'Write the outline', status: 'completed' },
      { id: 'task-1', content: 'Draft the text', status: 'in_progress', activeForm: 'Drafting the text' },
      { id: 'review', content: 'Review it', status: 'pending' },
    ]);
    expect(read.summary).toEqual({ total: 3, completed: 1, inProgress: 1, pending: 1, allCompleted: false });
    expect(read.tasksUpdatedAt).toBeInstanceOf(Date);

    const prompts = spying();
    const second = await w.client.generate('task-planner', 'How far are we?', {
      ...thread,
      script: [call('task_check', {}), { text: 'Drafting.' }],
    });
    // The model is shown the thread's messages, then the list as the turn began, then the new message.
    expect(prompts()[0]).toEqual([
      'system: You plan.',
      'user: Write me an article.',
      'assistant: tool-call task_write',
      'tool: tool-result task_write',
      'assistant: tool-call task_update',
      'tool: tool-result task_update',
      'assistant: tool-call task_complete',
      'tool: tool-result task_complete',
      'assistant: tool-call task_update',
      'tool: tool-result task_update',
      'assistant: The outline is done; drafting.',
      listShown,
      'user: How far are we?',
    ]);
    expect(outputs(second)[0]).toMatchObject({
      isError: false,
      summary: { total: 3, completed: 1, inProgress: 1, pending: 1, allCompleted: false },
      incompleteTasks: [{ id: 'task-1' }, { id: 'review' }],
      content: expect.stringMatching(
        /^1 of 3 tasks completed; all completed: no\.\nStill to do:\n- \[in_progress\] task-1/,
      ),
    });

    // The list is the thread's state, not one of its messages: the turns do not hold it.
    const messages = await waitFor('the second turn recorded', async () => {
      const { messages } = await w.client.getThreadMessages(thread);
      return messages.length === 14 ? messages : undefined;
    });
    expect(JSON.stringify(messages)).not.toContain('The task list of this conversation');
  });

  it('is shown when the model is shown none of the thread’s messages, and kept when the thread continues as new', async () => {
    const thread = newThread();
    await w.client.generate('task-forgetful', 'Plan.', {
      ...thread,
      script: [call('task_write', { tasks: [{ id: 'a', content: 'Do A', status: 'pending' }] }), { text: 'Planned.' }],
    });
    // 200 changes make the thread continue as new (see threads.test.ts): the turn of a run that waits.
    const waiting = await waitingRun('task-forgetful', thread);
    await continueThreadAsNew(w.client, thread, await turnWriterOf(w.client, waiting.runId), 'task-forgetful');
    expect((await w.client.getThreadTasks(thread)).tasks).toEqual([{ id: 'a', content: 'Do A', status: 'pending' }]);

    const prompts = spying();
    await w.client.generate('task-forgetful', 'Go on.', { ...thread, script: [{ text: 'On it.' }] });
    expect(prompts()[0]).toEqual([
      'system: You plan.',
      expect.stringMatching(
        /^user: The task list of this conversation.*\n0 of 1 tasks completed:\n- \[pending\] a: Do A$/s,
      ),
      'user: Go on.',
    ]);
  });

  it('checks a thread that has no list yet: empty, all completed no', async () => {
    const result = await w.client.generate('task-planner', 'Check.', {
      ...newThread(),
      script: [call('task_check', {}), { text: 'Nothing yet.' }],
    });
    expect(outputs(result)).toEqual([
      {
        isError: false,
        content: 'The task list is empty: write one with task_write for work of several steps.',
        tasks: [],
        summary: { total: 0, completed: 0, inProgress: 0, pending: 0, allCompleted: false },
        incompleteTasks: [],
      },
    ]);
  });

  it('tells a run without a thread what to do, as a result the model reads', async () => {
    const result = await w.client.generate('task-planner', 'Check.', {
      script: [call('task_check', {}), call('task_complete', { id: 'x' }), { text: 'No list.' }],
    });
    const reason =
      "keeps the task list on the run's thread, and this run has none: start the run with a threadId (and a " +
      'resourceId) to track tasks';
    expect(outputs(result)).toEqual([
      { isError: true, content: `task_check ${reason}` },
      { isError: true, content: `task_complete ${reason}` },
    ]);
  });

  it('refuses a change that does not fit at the thread, which goes on', async () => {
    const thread = newThread();
    await w.client.generate('task-planner', 'Plan.', {
      ...thread,
      script: [call('task_write', { tasks: [{ id: 'a', content: 'Do A', status: 'in_progress' }] }), { text: 'ok' }],
    });
    const handle = w.client.temporal.workflow.getHandle(threadWorkflowId(thread.resourceId, thread.threadId));
    // The thread takes changes from its runs only: these come with the turn key of a run that waits on it.
    const writer = await turnWriterOf(w.client, (await waitingRun('task-planner', thread)).runId);
    const accepted = async () =>
      (await historyEventTypes(w.client, threadWorkflowId(thread.resourceId, thread.threadId))).filter(
        (e) => e === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      ).length;
    const acceptedBefore = await accepted();
    const refusal = async (change: unknown) => {
      const err = await handle
        .executeUpdate(changeTasksUpdate, { args: [change as never, writer] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      return (err as WorkflowUpdateFailedError).cause?.message;
    };
    expect(await refusal({ op: 'drop-table' })).toMatch(/^the task change does not fit: op: /);
    expect(await refusal({ op: 'complete', id: 'nope' })).toBe('no task "nope" in the task list; its ids: a');
    expect(await refusal({ op: 'write', tasks: 'x'.repeat(100) })).toMatch(/^the task change does not fit: tasks/);
    // Refused by the validator: nothing in the thread's history, no workflow task failed.
    expect(await accepted()).toBe(acceptedBefore);
    const events = await historyEventTypes(w.client, threadWorkflowId(thread.resourceId, thread.threadId));
    expect(events).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    // A change that fits still goes through.
    const changed = await handle.executeUpdate(changeTasksUpdate, { args: [{ op: 'complete', id: 'a' }, writer] });
    expect(changed.tasks).toEqual([{ id: 'a', content: 'Do A', status: 'completed' }]);
  });
});
