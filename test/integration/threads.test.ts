/**
 * Threads: runs started with the same threadId (within a resourceId) share the conversation, kept by
 * one thread workflow; any process reads it, with no worker up.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, InvalidInputError, ThreadNotFoundError, type Message } from '../../src/index.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { threadTurnsQuery } from '../../src/protocol/thread-messages.js';
import { addTool, askTool, modelCalls, spyModels } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';
import { continueThreadAsNew, turnWriterOf } from '../turn-keys.js';

const chatAgent = defineAgent({
  id: 'thread-chat',
  name: 'Chat',
  instructions: 'You chat.',
  model: 'spy/chat',
  memory: { lastMessages: 20 },
  tools: { add: addTool, ask: askTool },
});

/** Keeps only the last five earlier messages: the cut never separates a call from its result. */
const shortAgent = defineAgent({ ...chatAgent, id: 'thread-short', memory: { lastMessages: 5 } });

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([chatAgent, shortAgent], { models: spyModels });
});
afterAll(async () => w?.stop());

/** A prompt as lines: `role: text` for text, `role: call <tool>` / `role: result <tool>` for tool parts. */
function lines(prompt: LanguageModelV4Prompt | Message[]): string[] {
  return prompt.flatMap((m) => {
    if (typeof m.content === 'string') return [`${m.role}: ${m.content}`];
    return (m.content as Array<Record<string, unknown>>).map((p) =>
      p.type === 'text'
        ? `${m.role}: ${String(p.text)}`
        : `${m.role}: ${p.type === 'tool-call' ? 'call' : 'result'} ${String(p.toolName)}`,
    );
  });
}

/** The prompts the spy model got from now on. */
function spying(): () => string[][] {
  const before = modelCalls.length;
  return () => modelCalls.slice(before).map((c) => lines(c.prompt));
}

/** The thread once its memo shows `count` messages: the last turn's signal may still be on its way. */
async function readThread(thread: { threadId: string; resourceId: string }, count: number) {
  return waitFor(`${count} messages on thread ${thread.threadId}`, async () => {
    const read = await w.client.getThreadMessages(thread);
    return read.messages.length === count ? read : undefined;
  });
}

const addCall = { toolName: 'add', args: { a: 1, b: 2 } };

describe('a conversation that continues', () => {
  it('shows the second run the first run’s turns, tool call and result included', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    await w.client.generate('thread-chat', 'My name is Ada. Add 1 and 2.', {
      ...thread,
      script: [{ toolCalls: [addCall] }, { text: 'Hi Ada, it is 3.' }],
    });
    const prompts = spying();
    const second = await w.client.generate('thread-chat', 'What is my name?', {
      ...thread,
      script: [{ text: 'Ada.' }],
    });
    expect(prompts()[0]).toEqual([
      'system: You chat.',
      'user: My name is Ada. Add 1 and 2.',
      'assistant: call add',
      'tool: result add',
      'assistant: Hi Ada, it is 3.',
      'user: What is my name?',
    ]);
    expect(second.text).toBe('Ada.');

    const read = await readThread(thread, 6);
    expect(lines(read.messages)).toEqual([
      'user: My name is Ada. Add 1 and 2.',
      'assistant: call add',
      'tool: result add',
      'assistant: Hi Ada, it is 3.',
      'user: What is my name?',
      'assistant: Ada.',
    ]);
    expect(read).toMatchObject({ turnCount: 2, messageCount: 6, agentIds: ['thread-chat'], lastRunId: second.runId });
    // With a worker up, the thread's query answers with every turn it keeps.
    const handle = w.client.temporal.workflow.getHandle(threadWorkflowId(thread.resourceId, thread.threadId));
    const turns = await handle.query(threadTurnsQuery);
    expect(turns.map((t) => [t.runId, t.status, t.messages.length])).toEqual([
      [expect.any(String), 'completed', 4],
      [second.runId, 'completed', 2],
    ]);
  });

  it('keeps threads of other resources apart', async () => {
    const threadId = `t-${randomUUID()}`;
    await w.client.generate('thread-chat', 'Secret of A', { threadId, resourceId: 'res-a', script: [{ text: 'ok' }] });
    const prompts = spying();
    await w.client.generate('thread-chat', 'Anything?', { threadId, resourceId: 'res-b', script: [{ text: 'no' }] });
    expect(prompts()[0]).toEqual(['system: You chat.', 'user: Anything?']);
  });

  it('shows the last messages only, starting at a user message, never a result without its call', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    await w.client.generate('thread-short', 'first', { ...thread, script: [{ text: 'one' }] });
    await w.client.generate('thread-short', 'second', {
      ...thread,
      script: [{ toolCalls: [addCall] }, { text: 'two' }],
    });
    const prompts = spying();
    await w.client.generate('thread-short', 'third', { ...thread, script: [{ text: 'three' }] });
    // The last five are "one" and the second turn: "one" is an answer with no question, so it goes too.
    expect(prompts()[0]).toEqual([
      'system: You chat.',
      'user: second',
      'assistant: call add',
      'tool: result add',
      'assistant: two',
      'user: third',
    ]);
  });

  it('records a failed run’s turn: its message is not lost', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    const { runId } = await w.client.start('thread-chat', 'Remember 42', {
      ...thread,
      script: [{ toolCalls: [addCall] }], // the script runs out: the run fails
    });
    await expect(w.client.result(runId)).rejects.toThrow(/script/i);
    const prompts = spying();
    await w.client.generate('thread-chat', 'What did I ask?', { ...thread, script: [{ text: '42' }] });
    expect(prompts()[0]).toEqual([
      'system: You chat.',
      'user: Remember 42',
      'assistant: call add',
      'tool: result add',
      'user: What did I ask?',
    ]);
  });

  it('records a suspended run’s turn when it pauses, and whole when it ends', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    const paused = await w.client.generate('thread-chat', 'Ask me something', {
      ...thread,
      script: [
        { text: 'Let me ask.', toolCalls: [{ toolName: 'ask', args: { question: 'Color?' } }] },
        { text: 'Blue it is.' },
      ],
    });
    expect(paused.finishReason).toBe('suspended');
    const atPause = await readThread(thread, 2);
    expect(lines(atPause.messages)).toEqual([
      'user: Ask me something',
      'assistant: Let me ask.',
      'assistant: call ask',
    ]);

    // Another run on the thread meanwhile: it sees the paused turn's text, not its unanswered call.
    const prompts = spying();
    await w.client.generate('thread-chat', 'Still there?', { ...thread, script: [{ text: 'Yes.' }] });
    expect(prompts()[0]).toEqual([
      'system: You chat.',
      'user: Ask me something',
      'assistant: Let me ask.',
      'user: Still there?',
    ]);

    await w.client.resumeGenerate(
      { answer: 'Blue' },
      { runId: paused.runId, toolCallId: paused.pendingToolCalls[0]!.toolCallId },
    );
    const read = await readThread(thread, 6);
    // The paused run's turn stays whole, before the turn of the run that began after it.
    expect(lines(read.messages)).toEqual([
      'user: Ask me something',
      'assistant: Let me ask.',
      'assistant: call ask',
      'tool: result ask',
      'assistant: Blue it is.',
      'user: Still there?',
      'assistant: Yes.',
    ]);
  });

  it('runs two runs on one thread at once: each turn whole, none lost', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    const [a, b] = await Promise.all(
      ['A', 'B'].map((name) =>
        w.client.generate('thread-chat', `from ${name}`, {
          ...thread,
          script: [{ toolCalls: [addCall] }, { text: `done ${name}` }],
        }),
      ),
    );
    expect([a!.text, b!.text]).toEqual(['done A', 'done B']);
    const read = await readThread(thread, 8);
    expect(read.turnCount).toBe(2);
    const shown = lines(read.messages);
    const turnOf = (name: string) => [
      `user: from ${name}`,
      'assistant: call add',
      'tool: result add',
      `assistant: done ${name}`,
    ];
    // The turns are in the order they began, each one whole.
    const first = shown[0] === 'user: from A' ? 'A' : 'B';
    expect(shown).toEqual([...turnOf(first), ...turnOf(first === 'A' ? 'B' : 'A')]);
  });

  it('keeps a run’s link to its thread when it continues as new', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    await w.client.generate('thread-chat', 'before', { ...thread, script: [{ text: 'earlier' }] });
    const prompts = spying();
    const long = await w.client.generate('thread-chat', 'add twice', {
      ...thread,
      continueAsNewEvery: 1,
      script: [{ toolCalls: [addCall] }, { toolCalls: [addCall] }, { text: 'six' }],
    });
    expect(long.text).toBe('six');
    // Every step of the continued run was shown the earlier turn once, then its own messages.
    expect(prompts()[2]).toEqual([
      'system: You chat.',
      'user: before',
      'assistant: earlier',
      'user: add twice',
      'assistant: call add',
      'tool: result add',
      'assistant: call add',
      'tool: result add',
    ]);
    const read = await readThread(thread, 8);
    expect(read.turnCount).toBe(2);
    expect(lines(read.messages).slice(2)).toEqual([
      'user: add twice',
      'assistant: call add',
      'tool: result add',
      'assistant: call add',
      'tool: result add',
      'assistant: six',
    ]);
  });

  it('continues the thread workflow as new when it has taken many changes, keeping every turn', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    await w.client.generate('thread-chat', 'kept', { ...thread, script: [{ text: 'across' }] });
    // A run waits on the thread, and its turn is recorded again and again (each signal, with the run's
    // turn key, replaces its turn): 200 changes.
    const waiting = await w.client.generate('thread-chat', 'wait', {
      ...thread,
      requireToolApproval: true,
      script: [{ toolCalls: [addCall] }, { text: 'never' }],
    });
    expect(waiting.finishReason).toBe('suspended');
    await continueThreadAsNew(w.client, thread, await turnWriterOf(w.client, waiting.runId), 'thread-chat');
    const read = await readThread(thread, 3);
    expect(lines(read.messages)).toEqual(['user: kept', 'assistant: across', 'user: note 199']);
    const prompts = spying();
    await w.client.generate('thread-chat', 'after', { ...thread, script: [{ text: 'ok' }] });
    expect(prompts()[0]).toEqual([
      'system: You chat.',
      'user: kept',
      'assistant: across',
      'user: note 199',
      'user: after',
    ]);
  });

  it('leaves a run without a thread as it was: no thread, no new commands', async () => {
    const done = await w.client.generate('thread-chat', 'plain', { script: [{ text: 'plain answer' }] });
    const events = await historyEventTypes(w.client, done.runId);
    expect(events.filter((e) => e.includes('ACTIVITY_TASK_SCHEDULED'))).toHaveLength(1); // callModel (the description is local)
    expect(events.some((e) => e.includes('SIGNAL_EXTERNAL'))).toBe(false);
    // The lean-history and conversation-by-reference patches and the description (a local activity); no
    // thread-memory patch.
    expect(events.filter((e) => e.includes('MARKER'))).toHaveLength(3);
  });
});

describe('reading threads', () => {
  it('refuses an oversized message before anything reaches the thread', async () => {
    const thread = { threadId: `t-${randomUUID()}`, resourceId: 'user-1' };
    const err = await w.client
      .start('thread-chat', 'x'.repeat(600 * 1024), { ...thread, script: [{ text: 'never' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).tooLarge).toBe(true);
    await expect(w.client.getThreadMessages(thread)).rejects.toBeInstanceOf(ThreadNotFoundError);
  });

  it('lists a resource’s threads and refuses an unknown thread', async () => {
    const resourceId = `res-${randomUUID()}`;
    await w.client.generate('thread-chat', 'one', { threadId: 'a', resourceId, script: [{ text: '1' }] });
    await w.client.generate('thread-chat', 'two', { threadId: 'b', resourceId, script: [{ text: '2' }] });
    const threads = await waitFor('both threads listed', async () => {
      const listed = await w.client.listThreads({ resourceId });
      return listed.length === 2 && listed.every((t) => t.messageCount === 2) ? listed : undefined;
    });
    expect(threads.map((t) => t.threadId).sort()).toEqual(['a', 'b']);
    expect(threads[0]).toMatchObject({ resourceId, turnCount: 1, agentIds: ['thread-chat'] });
    await expect(w.client.getThreadMessages({ threadId: 'nope', resourceId })).rejects.toBeInstanceOf(
      ThreadNotFoundError,
    );
    expect(threadWorkflowId(resourceId, 'a')).toBe(`thread:${resourceId}:a`);
  });
});
