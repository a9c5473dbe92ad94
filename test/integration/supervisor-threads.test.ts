/**
 * Supervisors with memory: a supervisor's turn on its thread holds its delegations and their results;
 * a sub-agent's model sees what the supervisor passes, and the thread's recent messages only where the
 * supervisor shares them (`memory.subAgentContext`), which adds nothing to the thread.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, type Message } from '../../src/index.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { threadTurnsQuery } from '../../src/protocol/thread-messages.js';
import { addTool, modelCalls, spyModels } from '../fixtures/agents.js';
import { startWorker, waitFor, type TestWorker } from '../helpers.js';

const helper = defineAgent({
  id: 'supmem-helper',
  name: 'Helper',
  description: 'answers one question',
  instructions: 'You help.',
  model: 'spy/helper',
  tools: { add: addTool },
});
/** Shown the last two messages of a thread it is given. */
const brief = defineAgent({
  id: 'supmem-brief',
  name: 'Brief',
  instructions: 'You are brief.',
  model: 'spy/brief',
  memory: { lastMessages: 2 },
});
const plain = defineAgent({ id: 'supmem-plain', name: 'Plain', instructions: 'You answer plainly.', model: 'spy/p' });

/** The default: its sub-agents get only what it passes them. */
const supervisor = defineAgent({
  id: 'supmem-sup',
  name: 'Supervisor',
  instructions: 'You supervise.',
  model: 'spy/sup',
  memory: { lastMessages: 20 },
  tools: { add: addTool },
  agents: { helper },
});
/** Shares its thread with two of its three sub-agents. */
const sharing = defineAgent({
  ...supervisor,
  id: 'supmem-sharing',
  instructions: 'You supervise and share.',
  agents: { helper, brief, plain },
  memory: { lastMessages: 20, subAgentContext: { helper: 'thread', brief: 'thread' } },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([supervisor, sharing], { models: spyModels });
});
afterAll(async () => w?.stop());

/** A prompt as lines: `role: text`, `role: call <tool> <input>`, `role: result <tool> <output>`. */
function lines(prompt: LanguageModelV4Prompt | Message[]): string[] {
  return prompt.flatMap((m) => {
    if (typeof m.content === 'string') return [`${m.role}: ${m.content}`];
    return (m.content as Array<Record<string, unknown>>).map((p) => {
      if (p.type === 'text') return `${m.role}: ${String(p.text)}`;
      if (p.type === 'tool-call') return `${m.role}: call ${String(p.toolName)} ${JSON.stringify(p.input)}`;
      const output = p.output as { type: string; value: unknown };
      const shown = output.type === 'text' ? String(output.value) : JSON.stringify(output.value);
      return `${m.role}: result ${String(p.toolName)} ${shown}`;
    });
  });
}

/** The prompts the spy model gets from now on, by agent (its system message), in the order they came. */
function spying(): (system: string) => string[][] {
  const before = modelCalls.length;
  return (system) =>
    modelCalls
      .slice(before)
      .map((c) => lines(c.prompt))
      .filter((prompt) => prompt[0] === `system: ${system}`);
}

async function turnsOf(thread: { threadId: string; resourceId: string }) {
  const handle = w.client.temporal.workflow.getHandle(threadWorkflowId(thread.resourceId, thread.threadId));
  return handle.query(threadTurnsQuery);
}

/** The thread once its memo shows `count` messages: the last turn's signal may still be on its way. */
async function readThread(thread: { threadId: string; resourceId: string }, count: number) {
  return waitFor(`${count} messages on thread ${thread.threadId}`, async () => {
    const read = await w.client.getThreadMessages(thread);
    return read.messages.length === count ? read : undefined;
  });
}

const addCall = { toolName: 'add', args: { a: 1, b: 2 } };
const delegate = (toolName: string, prompt: string) => ({ toolName, args: { prompt } });

describe('supervisors with memory', () => {
  it('keeps the delegation and its result in the supervisor’s turn; the sub-agent sees only its task', async () => {
    const thread = { threadId: `supmem-${randomUUID()}`, resourceId: 'supmem-user' };
    await w.client.generate('supmem-sup', 'My name is Ada.', { ...thread, script: [{ text: 'Hi Ada.' }] });

    const second = spying();
    const delegated = await w.client.generate('supmem-sup', 'Ask the helper for the capital of France.', {
      ...thread,
      script: [{ toolCalls: [delegate('agent-helper', 'What is the capital of France?')] }, { text: 'Paris.' }],
      subAgentOptions: { helper: { script: [{ text: 'Paris' }] } },
    });
    expect(delegated.text).toBe('Paris.');
    // The sub-agent's model: its instructions and the task, nothing of the thread.
    expect(second('You help.')).toEqual([['system: You help.', 'user: What is the capital of France?']]);

    const third = spying();
    await w.client.generate('supmem-sup', 'What did the helper say?', {
      ...thread,
      script: [{ text: 'It said Paris.' }],
    });
    const delegation = [
      'user: Ask the helper for the capital of France.',
      'assistant: call agent-helper {"prompt":"What is the capital of France?"}',
      'tool: result agent-helper Paris',
      'assistant: Paris.',
    ];
    expect(third('You supervise.')).toEqual([
      [
        'system: You supervise.',
        'user: My name is Ada.',
        'assistant: Hi Ada.',
        ...delegation,
        'user: What did the helper say?',
      ],
    ]);

    // One turn per supervisor run; the sub-agent's run added none.
    const turns = await turnsOf(thread);
    expect(turns.map((t) => t.agentId)).toEqual(['supmem-sup', 'supmem-sup', 'supmem-sup']);
    expect(lines(turns[1]!.messages)).toEqual(delegation);
    const read = await readThread(thread, 8);
    expect(read.agentIds).toEqual(['supmem-sup']);
  });

  it('shows a sub-agent the thread’s last messages where the supervisor shares them, and records no turn of it', async () => {
    const thread = { threadId: `supmem-${randomUUID()}`, resourceId: 'supmem-user' };
    await w.client.generate('supmem-sharing', 'My name is Ada. Add 1 and 2.', {
      ...thread,
      script: [{ toolCalls: [addCall] }, { text: 'Hi Ada, it is 3.' }],
    });
    const earlier = [
      'user: My name is Ada. Add 1 and 2.',
      'assistant: call add {"a":1,"b":2}',
      'tool: result add {"sum":3}',
      'assistant: Hi Ada, it is 3.',
    ];

    const prompts = spying();
    const ask = 'Have them greet me by name.';
    const result = await w.client.generate('supmem-sharing', ask, {
      ...thread,
      script: [
        {
          toolCalls: [
            delegate('agent-helper', 'Greet the user by name.'),
            delegate('agent-brief', 'Greet the user.'),
            delegate('agent-plain', 'Greet the user.'),
          ],
        },
        { text: 'Greeted.' },
      ],
      subAgentOptions: {
        // Two steps, the second in a continued run: it keeps the thread's messages, still without recording.
        helper: { continueAsNewEvery: 1, script: [{ toolCalls: [addCall] }, { text: 'Hello Ada!' }] },
        brief: { script: [{ text: 'Hello.' }] },
        plain: { script: [{ text: 'Hello there.' }] },
      },
    });
    expect(result.text).toBe('Greeted.');
    expect(result.toolResults).toMatchObject([
      { toolName: 'agent-helper', output: { text: 'Hello Ada!' } },
      { toolName: 'agent-brief', output: { text: 'Hello.' } },
      { toolName: 'agent-plain', output: { text: 'Hello there.' } },
    ]);

    // Shared: the thread's earlier turn (its call and result together) and the supervisor's message, then the task.
    const helperSees = ['system: You help.', ...earlier, `user: ${ask}`, 'user: Greet the user by name.'];
    expect(prompts('You help.')).toEqual([
      helperSees,
      [...helperSees, 'assistant: call add {"a":1,"b":2}', 'tool: result add {"sum":3}'],
    ]);
    // Shared, within the sub-agent's own lastMessages (2): the cut starts at a user message.
    expect(prompts('You are brief.')).toEqual([['system: You are brief.', `user: ${ask}`, 'user: Greet the user.']]);
    // Not named in subAgentContext: the task alone.
    expect(prompts('You answer plainly.')).toEqual([['system: You answer plainly.', 'user: Greet the user.']]);

    // The thread holds the supervisor's two turns; the delegations and their answers are in the second.
    const turns = await turnsOf(thread);
    expect(turns.map((t) => t.agentId)).toEqual(['supmem-sharing', 'supmem-sharing']);
    expect(lines(turns[1]!.messages)).toEqual([
      `user: ${ask}`,
      'assistant: call agent-helper {"prompt":"Greet the user by name."}',
      'assistant: call agent-brief {"prompt":"Greet the user."}',
      'assistant: call agent-plain {"prompt":"Greet the user."}',
      'tool: result agent-helper Hello Ada!',
      'tool: result agent-brief Hello.',
      'tool: result agent-plain Hello there.',
      'assistant: Greeted.',
    ]);
    const read = await readThread(thread, 8);
    expect(read).toMatchObject({ turnCount: 2, agentIds: ['supmem-sharing'] });
  });

  it('gives a shared sub-agent the task alone when its supervisor runs on no thread', async () => {
    const prompts = spying();
    await w.client.generate('supmem-sharing', 'Greet.', {
      script: [{ toolCalls: [delegate('agent-helper', 'Say hello.')] }, { text: 'Done.' }],
      subAgentOptions: { helper: { script: [{ text: 'Hello' }] } },
    });
    expect(prompts('You help.')).toEqual([['system: You help.', 'user: Say hello.']]);
  });

  it('shows a shared sub-agent its supervisor’s thread, not one of another resource named in subAgentOptions', async () => {
    const threadId = `supmem-${randomUUID()}`;
    await w.client.generate('supmem-sup', 'The code is 1234.', {
      threadId,
      resourceId: 'supmem-other',
      script: [{ text: 'Noted.' }],
    });
    const prompts = spying();
    await w.client.generate('supmem-sharing', 'Ask for the code.', {
      threadId,
      script: [{ toolCalls: [delegate('agent-helper', 'What is the code?')] }, { text: 'Unknown.' }],
      subAgentOptions: { helper: { resourceId: 'supmem-other', script: [{ text: 'I do not know.' }] } },
    });
    expect(prompts('You help.')).toEqual([['system: You help.', 'user: Ask for the code.', 'user: What is the code?']]);
  });
});
