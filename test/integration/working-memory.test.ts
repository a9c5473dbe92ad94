/**
 * Working memory: an agent with `memory.workingMemory` replaces its thread's memory through the
 * built-in `updateWorkingMemory` tool, and every later model call on the thread (in the run and in the
 * next runs) is shown it. Oversized updates are refused with the reason, the memory unchanged; an agent
 * without working memory gets no such tool; the memory is read with no worker up.
 */
import type { ServerType } from '@hono/node-server';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { AgentClient, type ThreadMessages, type WorkingMemory } from '../../src/client/index.js';
import { startServer } from '../../src/server/index.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { updateWorkingMemoryUpdate } from '../../src/protocol/thread-messages.js';
import { addTool, modelCalls, spyModels } from '../fixtures/agents.js';
import { startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';
import { continueThreadAsNew, turnWriterOf } from '../turn-keys.js';

const template = '# User\n- Name:\n- Color:';

const memoryAgent = defineAgent({
  id: 'wm-chat',
  name: 'Chat with working memory',
  instructions: 'You chat.',
  model: 'spy/wm',
  tools: { add: addTool },
  memory: { workingMemory: { enabled: true, template, maxChars: 200 } },
});

/** The same agent without working memory: the same thread, but no memory and no tool. */
const plainAgent = defineAgent({ ...memoryAgent, id: 'wm-plain', memory: { lastMessages: 10 } });

const resourceId = `wm-user-${randomUUID()}`;
const thread = { threadId: `wm-${randomUUID()}`, resourceId };
let w: TestWorker;

beforeAll(async () => {
  w = await startWorker([memoryAgent, plainAgent], { models: spyModels });
});
let stopped = false;
afterAll(async () => {
  if (!stopped) await w?.stop();
});

/** The model calls made from now on. */
function spying(): () => LanguageModelV4CallOptions[] {
  const before = modelCalls.length;
  return () => modelCalls.slice(before);
}

/** The system message a model call got. */
function systemOf(call: LanguageModelV4CallOptions | undefined): string {
  const system = call?.prompt.find((m) => m.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

const toolNames = (call: LanguageModelV4CallOptions | undefined) => (call?.tools ?? []).map((t) => t.name).sort();

const update = (memory: string) => ({ toolName: 'updateWorkingMemory', args: { memory } });
const adaMemory = '# User\n- Name: Ada\n- Color:';
const addCall = { toolName: 'add', args: { a: 1, b: 2 } };

/** The memory once the thread's memo shows a memory stored by `runId`. */
async function memoryOf(runId: string): Promise<WorkingMemory> {
  return waitFor(`the memory stored by ${runId}`, async () => {
    const memory = await w.client.getWorkingMemory(thread);
    return memory?.runId === runId ? memory : undefined;
  });
}

describe('working memory on a thread', () => {
  it('is updated by the tool, and shown to the later steps of the run and to the next run', async () => {
    const calls = spying();
    const first = await w.client.generate('wm-chat', 'I am Ada.', {
      ...thread,
      script: [{ toolCalls: [update(adaMemory)] }, { text: 'Nice to meet you, Ada.' }],
    });
    expect(first.text).toBe('Nice to meet you, Ada.');
    expect(first.toolResults).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: 'updateWorkingMemory',
        isError: false,
        output: { success: true, workingMemory: adaMemory },
      },
    ]);
    const [before, after] = calls();
    // The first step: the tool is offered, and the memory is empty, so the model is shown the template.
    expect(toolNames(before)).toEqual(['add', 'updateWorkingMemory']);
    expect(systemOf(before)).toMatch(/^You chat\.\n\n<working_memory>\n/);
    expect(systemOf(before)).toContain(`<working_memory_template>\n${template}\n</working_memory_template>`);
    expect(systemOf(before)).toContain('at most 200 characters');
    // The next step of the same run is shown what the tool stored.
    expect(systemOf(after)).toContain(`<working_memory_data>\n${adaMemory}\n</working_memory_data>`);
    expect(systemOf(after)).not.toContain('<working_memory_template>');

    const next = spying();
    await w.client.generate('wm-chat', 'What is my name?', { ...thread, script: [{ text: 'Ada.' }] });
    expect(systemOf(next()[0])).toContain(`<working_memory_data>\n${adaMemory}\n</working_memory_data>`);

    const stored = await memoryOf(first.runId);
    expect(stored).toEqual({
      ...thread,
      content: adaMemory,
      updatedAt: expect.any(Date),
      runId: first.runId,
      agentId: 'wm-chat',
    });
  });

  it('refuses an update over the bound with the reason, and keeps the memory as it was', async () => {
    const kept = await w.client.getWorkingMemory(thread);
    expect(kept?.content).toBe(adaMemory);
    const calls = spying();
    const run = await w.client.generate('wm-chat', 'Remember all of this.', {
      ...thread,
      script: [{ toolCalls: [update('x'.repeat(201))] }, { text: 'I could not keep it all.' }],
    });
    expect(run.toolResults[0]).toMatchObject({
      isError: false,
      output: {
        isError: true,
        content:
          'the working memory would have 201 characters, over the 200 it may hold; keep what still matters, ' +
          'shorten the rest, and call updateWorkingMemory again. The memory is unchanged.',
      },
    });
    // The next step is still shown the memory as it was.
    expect(systemOf(calls()[1])).toContain(`<working_memory_data>\n${adaMemory}\n</working_memory_data>`);

    // The thread checks too, whoever sends the update: a refusal, not a failed workflow task.
    const handle = w.client.temporal.workflow.getHandle(threadWorkflowId(resourceId, thread.threadId));
    const refused = (args: unknown) =>
      handle.executeUpdate(updateWorkingMemoryUpdate, { args: [args as never] }).catch((e: unknown) => e);
    const raw = { runId: 'outside', agentId: 'wm-chat', toolCallId: 'c1', memory: 'y'.repeat(300), maxChars: 200 };
    const tooLong = await refused(raw);
    expect(tooLong).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(String((tooLong as WorkflowUpdateFailedError).cause?.message)).toMatch(/300 characters, over the 200/);
    const overHardMax = await refused({ ...raw, memory: 'y'.repeat(16_001), maxChars: 100_000 });
    expect(String((overHardMax as WorkflowUpdateFailedError).cause?.message)).toMatch(/refused: .*maxChars/);
    const notAnUpdate = await refused({ memory: 5 });
    expect(String((notAnUpdate as WorkflowUpdateFailedError).cause?.message)).toMatch(/^updateWorkingMemory refused/);
    expect((await w.client.getWorkingMemory(thread))?.content).toBe(adaMemory);
  });

  it('gives an agent without working memory no tool and no memory, on the same thread', async () => {
    const calls = spying();
    await w.client.generate('wm-plain', 'Hello?', { ...thread, script: [{ text: 'Hi.' }] });
    expect(toolNames(calls()[0])).toEqual(['add']);
    expect(systemOf(calls()[0])).toBe('You chat.');
  });

  it('offers the tool to no run off a thread, and refuses a tool run of it', async () => {
    const calls = spying();
    await w.client.generate('wm-chat', 'No thread here.', { script: [{ text: 'Fine.' }] });
    expect(toolNames(calls()[0])).toEqual(['add']);
    expect(systemOf(calls()[0])).toBe('You chat.');
    const refused = await w.client
      .runTool('updateWorkingMemory', { memory: 'sneaky' }, { agentId: 'wm-chat', ...thread })
      .catch((e: unknown) => e);
    expect(String(refused)).toMatch(/offered only to the model of a run on a thread/);
  });

  it('is carried when the run and the thread continue as new', async () => {
    const other = { threadId: `wm-can-${randomUUID()}`, resourceId };
    const calls = spying();
    // The run continues as new after each step: the step after the update runs in a new history.
    const run = await w.client.generate('wm-chat', 'I like blue.', {
      ...other,
      continueAsNewEvery: 1,
      script: [{ toolCalls: [update('- Color: blue')] }, { toolCalls: [addCall] }, { text: 'Blue, noted.' }],
    });
    expect(run.text).toBe('Blue, noted.');
    expect(calls()).toHaveLength(3);
    for (const call of calls().slice(1)) expect(systemOf(call)).toContain('<working_memory_data>\n- Color: blue\n');

    // A run waits on the thread, and its turn is recorded again and again (each signal, with the run's
    // turn key, replaces its turn): 200 changes.
    const waiting = await w.client.generate('wm-chat', 'wait', {
      ...other,
      requireToolApproval: true,
      script: [{ toolCalls: [addCall] }, { text: 'never' }],
    });
    expect(waiting.finishReason).toBe('suspended');
    await continueThreadAsNew(w.client, other, await turnWriterOf(w.client, waiting.runId), 'wm-chat');
    expect(await w.client.getWorkingMemory(other)).toMatchObject({ content: '- Color: blue', runId: run.runId });
    const next = spying();
    await w.client.generate('wm-chat', 'My color?', { ...other, script: [{ text: 'Blue.' }] });
    expect(systemOf(next()[0])).toContain('<working_memory_data>\n- Color: blue\n</working_memory_data>');
  });

  it('is read with no worker up: client, thread messages, agentctl and HTTP', async () => {
    await w.stop();
    stopped = true;
    // The test worker's client closed with it: another process reads.
    const client = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: w.taskQueue,
    });
    try {
      const read = await client.getWorkingMemory(thread);
      expect(read?.content).toBe(adaMemory);
      const messages = await client.getThreadMessages(thread);
      expect(messages.workingMemory?.content).toBe(adaMemory);
      expect(
        await client.getWorkingMemory({ threadId: `wm-empty-${randomUUID()}`, resourceId }).catch((e) => e),
      ).toMatchObject({
        name: 'ThreadNotFoundError',
      });

      const ctl = await agentctl([
        '--address',
        temporalAddress(),
        '--namespace',
        'default',
        'threads',
        'show',
        thread.threadId,
        '--resource',
        resourceId,
      ]);
      expect(ctl.code).toBe(0);
      expect(ctl.stdout).toContain(`working memory (${adaMemory.length} characters, updated `);
      expect(ctl.stdout).toContain('  # User\n  - Name: Ada\n  - Color:\nmessages:\n');

      const server: ServerType = await startServer(client, { port: 0, agents: [memoryAgent, plainAgent] });
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const q = `resourceId=${encodeURIComponent(resourceId)}`;
        const res = await fetch(`${base}/threads/${thread.threadId}/working-memory?${q}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ workingMemory: { content: adaMemory, agentId: 'wm-chat' } });
        const all = (await (await fetch(`${base}/threads/${thread.threadId}/messages?${q}`)).json()) as ThreadMessages;
        expect(all.workingMemory?.content).toBe(adaMemory);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      await client.close();
    }
  });
});
