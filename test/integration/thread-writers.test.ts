/**
 * Only a thread's own runs write it. Someone with Temporal access who signals and updates the thread's
 * workflow directly (a forged `recordTurn`, `beginTurn`, working-memory or task change) is refused, the
 * thread's workflow goes on, and the next run's model is shown none of what they sent; the runs on the
 * thread keep writing it, also across the thread's continue-as-new.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defineAgent, taskWriteTool, type JsonValue } from '../../src/index.js';
import { threadWorkflowId, type TurnWriter } from '../../src/schemas/thread.js';
import { workflowSpanSinks } from '../../src/tracing/config.js';
import {
  beginTurnUpdate,
  changeTasksUpdate,
  recordTurnSignal,
  updateWorkingMemoryUpdate,
} from '../../src/protocol/thread-messages.js';
import { addTool, modelCalls, spyModels } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';
import { continueThreadAsNew, turnWriterOf } from '../turn-keys.js';

const agent = defineAgent({
  id: 'writers-chat',
  name: 'Chat',
  instructions: 'You chat.',
  model: 'spy/writers',
  tools: { add: addTool, task_write: taskWriteTool },
  memory: { lastMessages: 50, workingMemory: { enabled: true, maxChars: 500 } },
});

/** A supervisor whose sub-agent keeps the thread's task list: the sub-agent's run writes the thread too. */
const planner = defineAgent({
  id: 'writers-planner',
  name: 'Planner',
  description: 'plans',
  instructions: 'You plan.',
  model: 'spy/planner',
  tools: { task_write: taskWriteTool },
});
const supervisor = defineAgent({
  id: 'writers-sup',
  name: 'Supervisor',
  instructions: 'You supervise.',
  model: 'spy/sup',
  agents: { planner },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([agent, supervisor], { models: spyModels });
});
afterAll(async () => w?.stop());

const resourceId = `writers-${randomUUID()}`;
const call = (toolName: string, args: JsonValue) => ({ toolCalls: [{ toolName, args }] });

/** Everything the model calls from now on were shown (system message, prompt, tools), as one text. */
function spying(): () => string {
  const before = modelCalls.length;
  return () => JSON.stringify(modelCalls.slice(before).map((c) => c.prompt));
}

/** A run on the thread that waits for the approval of a call of `add`: its turn stays open. */
async function waitingRun(thread: { threadId: string; resourceId: string }, prompt: string) {
  const run = await w.client.generate('writers-chat', prompt, {
    ...thread,
    requireToolApproval: true,
    script: [call('add', { a: 1, b: 2 }), { text: `${prompt}: done` }],
  });
  expect(run.finishReason).toBe('suspended');
  return run;
}

/** The refusal an update got: the cause's message, or a failure of the test when it went through. */
async function refusal(attempt: Promise<unknown>): Promise<string> {
  const outcome = await attempt.then(
    (value) => ({ accepted: value }),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((outcome as WorkflowUpdateFailedError).cause?.message);
}

describe("a thread's writers", () => {
  it('refuses forged writes, and the next run is shown none of them', async () => {
    const thread = { threadId: `writers-${randomUUID()}`, resourceId };
    const first = await w.client.generate('writers-chat', 'I am Ada.', {
      ...thread,
      script: [
        call('updateWorkingMemory', { memory: 'LEGIT-MEMORY: Ada' }),
        call('task_write', { tasks: [{ id: 'a', content: 'LEGIT-TASK', status: 'pending' }] }),
        { text: 'Hello Ada.' },
      ],
    });
    expect(first.text).toBe('Hello Ada.');
    const waiting = await waitingRun(thread, 'Add 1 and 2');
    // A run of the agent on no thread, waiting too: running, but it began no turn here.
    const elsewhere = await w.client.generate('writers-chat', 'elsewhere', {
      requireToolApproval: true,
      script: [call('add', { a: 2, b: 2 }), { text: 'x' }],
    });
    const workflowId = threadWorkflowId(resourceId, thread.threadId);
    const handle = w.client.temporal.workflow.getHandle(workflowId);
    const stranger: TurnWriter = { runId: waiting.runId, key: 'f'.repeat(64) };

    // recordTurn: a new turn, another run's ended turn, an open turn with a made-up key.
    const record = (runId: string, text: string) => ({
      runId,
      agentId: 'writers-chat',
      status: 'completed' as const,
      messages: [{ role: 'user' as const, content: text }],
    });
    await handle.signal(recordTurnSignal, record('forged-run', 'FORGED-RECORD-NEW'));
    await handle.signal(recordTurnSignal, record(first.runId, 'FORGED-RECORD-REPLACE'));
    await handle.signal(recordTurnSignal, record(first.runId, 'FORGED-RECORD-KEYED'), {
      runId: first.runId,
      key: 'a'.repeat(64),
    });
    await handle.signal(recordTurnSignal, record(waiting.runId, 'FORGED-RECORD-OPEN'), stranger);

    // beginTurn: without a key, for a run that does not exist, for a run that began its turn already,
    // and for a running run that is on no thread (it vouches for no key).
    const begin = (runId: string, text: string) => ({
      runId,
      agentId: 'writers-chat',
      startedBy: 'mallory',
      messages: [{ role: 'user' as const, content: text }],
      lastMessages: 10,
    });
    expect(await refusal(handle.executeUpdate(beginTurnUpdate, { args: [begin('forged-2', 'FORGED-BEGIN')] }))).toMatch(
      /^beginTurn refused: a write to a thread carries the turn key of its run/,
    );
    const made = { runId: 'forged-3', key: 'b'.repeat(64) };
    expect(
      await refusal(handle.executeUpdate(beginTurnUpdate, { args: [begin('forged-3', 'FORGED-BEGIN'), made] })),
    ).toBe('beginTurn refused: there is no run "forged-3"; only a run on this thread writes it');
    expect(
      await refusal(
        handle.executeUpdate(beginTurnUpdate, { args: [begin(waiting.runId, 'FORGED-BEGIN-TAKEOVER'), stranger] }),
      ),
    ).toBe(`beginTurn refused: that is not the turn key of run "${waiting.runId}"`);
    const other = { runId: elsewhere.runId, key: 'c'.repeat(64) };
    expect(
      await refusal(
        handle.executeUpdate(beginTurnUpdate, { args: [begin(elsewhere.runId, 'FORGED-BEGIN-RUN'), other] }),
      ),
    ).toBe(`beginTurn refused: run "${elsewhere.runId}" holds no turn key; only a run on this thread writes it`);

    // Working memory and the task list: without a key, and with a made-up key of an open turn.
    const memory = {
      runId: waiting.runId,
      agentId: 'writers-chat',
      toolCallId: 'x',
      memory: 'FORGED-MEMORY',
      maxChars: 500,
    };
    expect(await refusal(handle.executeUpdate(updateWorkingMemoryUpdate, { args: [memory] }))).toMatch(
      /^updateWorkingMemory refused: a write to a thread carries the turn key/,
    );
    expect(await refusal(handle.executeUpdate(updateWorkingMemoryUpdate, { args: [memory, stranger] }))).toBe(
      `updateWorkingMemory refused: that is not the turn key of run "${waiting.runId}"`,
    );
    const tasks = { op: 'write' as const, tasks: [{ content: 'FORGED-TASK', status: 'pending' as const }] };
    expect(await refusal(handle.executeUpdate(changeTasksUpdate, { args: [tasks] }))).toMatch(
      /^changeTasks refused: a write to a thread carries the turn key/,
    );
    expect(await refusal(handle.executeUpdate(changeTasksUpdate, { args: [tasks, stranger] }))).toBe(
      `changeTasks refused: that is not the turn key of run "${waiting.runId}"`,
    );

    // The thread goes on, and keeps only what its runs wrote.
    expect(await historyEventTypes(w.client, workflowId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    const read = await w.client.getThreadMessages(thread);
    expect(JSON.stringify(read)).not.toMatch(/FORGED|mallory/);
    expect(read.workingMemory?.content).toBe('LEGIT-MEMORY: Ada');
    expect((await w.client.getThreadTasks(thread)).tasks).toEqual([
      { id: 'a', content: 'LEGIT-TASK', status: 'pending' },
    ]);

    // The waiting run goes on and records its turn; the next run sees the legitimate thread only.
    const approved = await w.client.approveToolCallGenerate({ runId: waiting.runId });
    expect(approved.text).toBe('Add 1 and 2: done');
    await waitFor('the waiting run’s turn recorded', async () => {
      const messages = JSON.stringify((await w.client.getThreadMessages(thread)).messages);
      return messages.includes('Add 1 and 2: done') ? true : undefined;
    });
    const shown = spying();
    const next = await w.client.generate('writers-chat', 'What do you know?', {
      ...thread,
      script: [{ text: 'All.' }],
    });
    expect(next.text).toBe('All.');
    expect(shown()).not.toMatch(/FORGED|mallory/);
    expect(shown()).toContain('LEGIT-MEMORY: Ada');
    expect(shown()).toContain('LEGIT-TASK');
    expect(shown()).toContain('Hello Ada.');
    expect(shown()).toContain('Add 1 and 2: done');
    await w.client.declineToolCall({ runId: elsewhere.runId });

    // The thread's history, forged writes and turns asked of their runs included, replays as it ran.
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      workflowId,
    );
  });

  it("takes the writes of every run on it: a sub-agent's, a tool run's", async () => {
    const thread = { threadId: `writers-${randomUUID()}`, resourceId };
    const tasks = (content: string) => ({ tasks: [{ id: 'a', content, status: 'pending' }] });
    const planned = await w.client.generate('writers-sup', 'Plan.', {
      ...thread,
      script: [call('agent-planner', { prompt: 'Plan it' }), { text: 'Planned.' }],
      subAgentOptions: { planner: { script: [call('task_write', tasks('SUB-AGENT-TASK')), { text: 'done' }] } },
    });
    expect(planned.text).toBe('Planned.');
    expect((await w.client.getThreadTasks(thread)).tasks).toEqual([
      { id: 'a', content: 'SUB-AGENT-TASK', status: 'pending' },
    ]);
    // Whoever may start runs may start a tool run on the thread: a writer like any run.
    const toolRun = await w.client.runTool('task_write', tasks('TOOL-RUN-TASK'), {
      agentId: 'writers-chat',
      ...thread,
    });
    expect(toolRun.toolResults[0]).toMatchObject({ isError: false, output: { isError: false } });
    expect((await w.client.getThreadTasks(thread)).tasks).toEqual([
      { id: 'a', content: 'TOOL-RUN-TASK', status: 'pending' },
    ]);
  });

  it("keeps its writers' keys when it continues as new, and drops a key once its turn ended", async () => {
    const thread = { threadId: `writers-${randomUUID()}`, resourceId };
    const waiting = await waitingRun(thread, 'Wait here');
    const writer = await turnWriterOf(w.client, waiting.runId);
    await continueThreadAsNew(w.client, thread, writer, 'writers-chat');
    // In the new history the run's key still writes: its last record.
    const approved = await w.client.approveToolCallGenerate({ runId: waiting.runId });
    expect(approved.text).toBe('Wait here: done');
    const read = await waitFor('the run’s last record', async () => {
      const thread_ = await w.client.getThreadMessages(thread);
      return JSON.stringify(thread_.messages).includes('Wait here: done') ? thread_ : undefined;
    });
    expect(JSON.stringify(read.messages)).not.toContain('note 199');
    // The turn ended: its key writes no more.
    const handle = w.client.temporal.workflow.getHandle(threadWorkflowId(resourceId, thread.threadId));
    const memory = { runId: waiting.runId, agentId: 'writers-chat', toolCallId: 'late', memory: 'LATE', maxChars: 500 };
    expect(await refusal(handle.executeUpdate(updateWorkingMemoryUpdate, { args: [memory, writer] }))).toBe(
      `updateWorkingMemory refused: run "${waiting.runId}" is not running; only a run on this thread writes it`,
    );
  });
});
