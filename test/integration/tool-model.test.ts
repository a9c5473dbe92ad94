/**
 * The Tools page's own forms, and what once failed silently or fatally: a tool that takes `suspend`
 * and `resumeData` from `context.agent`, multimodal `toModelOutput`, an un-awaited `suspend()`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JsonValue } from '../../src/index.js';
import { hookedAgent, hookLog, recorded, toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const run = (toolName: string, args: JsonValue) =>
  w.client.generate('toolbox-agent', 'go', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName, args }] }, { text: 'Done.' }],
  });

it('suspends a tool written the Tools page way (context.agent.suspend), and resumes it with resumeData', async () => {
  const paused = await run('mastraAsk', { question: 'Which colour?' });
  expect(paused.finishReason).toBe('suspended');
  expect(paused.suspendPayload).toMatchObject({ toolName: 'mastraAsk', payload: { question: 'Which colour?' } });
  const done = await w.client.resumeGenerate({ answer: 'green' }, { runId: paused.runId });
  expect(done.toolResults[0]).toMatchObject({ isError: false, output: { answer: 'green' } });
});

it('suspends a call whose tool did not await suspend(), instead of taking what it returned after', async () => {
  const paused = await run('carelessSuspend', {});
  expect(paused.finishReason).toBe('suspended');
  expect(paused.suspendPayload).toMatchObject({ payload: { question: 'sure?' } });
  const done = await w.client.resumeGenerate({ answer: 'yes' }, { runId: paused.runId });
  expect(done.toolResults[0]).toMatchObject({ isError: false, output: { answer: 'yes' } });
});

it('shows the model multimodal content from toModelOutput, and makes an output it cannot show a tool error', async () => {
  const shown = await run('picture', { valid: true });
  expect(shown.finishReason).toBe('stop');
  const toolMessage = shown.messages.find((m) => m.role === 'tool') as unknown as {
    content: Array<{ output: unknown }>;
  };
  expect(toolMessage.content[0]!.output).toMatchObject({
    type: 'content',
    value: [{ type: 'text' }, { type: 'file-data' }],
  });

  const refused = await run('picture', { valid: false });
  expect(refused.finishReason).toBe('stop');
  expect(refused.toolResults[0]).toMatchObject({
    isError: true,
    error: expect.stringMatching(/^toModelOutput of tool "picture" failed: it returned \{"type":"picture-of-a-cat"\}/),
  });
  expect(await historyEventTypes(w.client, refused.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
});

it('runs the agent hooks around every call, whatever runs it: a skipped one, a tool, an error, a client tool, a sub-agent', async () => {
  const hooked = await startWorker([hookedAgent]);
  try {
    hookLog.length = 0;
    const before = recorded.length;
    const paused = await hooked.client.generate('hooked-agent', 'go', {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'record', args: { note: 'forbidden' } },
            { toolName: 'record', args: { note: 'fine' } },
            { toolName: 'explode', args: {} },
            { toolName: 'agent-helper', args: { prompt: 'add' } },
            { toolName: 'pick', args: { options: ['a', 'b'] } },
          ],
        },
        { text: 'Done.' },
      ],
      subAgentOptions: {
        helper: {
          model: 'scripted',
          script: [{ toolCalls: [{ toolName: 'add', args: { a: 1, b: 2 } }] }, { text: '3' }],
        },
      },
    });
    const done = await hooked.client.submitToolResultGenerate({ runId: paused.runId, result: 'b' });
    expect(done.toolResults.map((r) => (r.isError ? `error` : JSON.stringify(r.output)))).toEqual([
      '"blocked by policy"',
      '"recorded fine"',
      'error',
      expect.stringContaining('"text":"3"'),
      '"b"',
    ]);
    expect(recorded.slice(before).map((r) => r.input)).toEqual(['fine']); // the forbidden one never ran
    expect(hookLog).toEqual(
      expect.arrayContaining([
        'before record {"note":"forbidden"}',
        'after record "blocked by policy"',
        'before record {"note":"fine"}',
        'after record "recorded fine"',
        'before explode {}',
        expect.stringMatching(/^after explode error Tool "explode" failed: boom/),
        'before agent-helper {"prompt":"add"}',
        expect.stringMatching(/^after agent-helper \{"text":"3"/),
        'before pick {"options":["a","b"]}',
        'after pick "b"',
      ]),
    );
  } finally {
    await hooked.stop();
  }
});
