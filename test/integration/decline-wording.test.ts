/**
 * What the model is told of a declined call, in the agent's wording (`declineMessage`): Mastra's words
 * as the tool's result, or the agent's own text as a denial. The application's result keeps who declined
 * and why whatever the wording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, type RunResult, type Script } from '../../src/index.js';
import { guardedTool } from '../fixtures/agents.js';
import { startWorker, type TestWorker } from '../helpers.js';

const agentWith = (id: string, declineMessage: string) =>
  defineAgent({
    id,
    name: id,
    instructions: 'Do as asked.',
    model: 'scripted',
    tools: { guarded: guardedTool },
    declineMessage,
  });
const mastraWorded = agentWith('mastra-worded', 'mastra');
const ownWorded = agentWith('own-worded', '{toolName} was refused by {by} ({reason}); pick another target');

const script: Script = [{ toolCalls: [{ toolName: 'guarded', args: { target: 'prod' } }] }, { text: 'Done.' }];
let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([mastraWorded, ownWorded]);
});
afterAll(async () => {
  await w?.stop();
});

async function declined(agentId: string): Promise<RunResult> {
  const paused = await w.client.generate(agentId, 'go', { model: 'scripted', script });
  expect(paused.finishReason).toBe('suspended');
  return w.client.declineToolCallGenerate({ runId: paused.runId, reason: 'not on prod', by: 'bob' });
}

/** The output the model got for the call, as the run's transcript keeps it. */
function toolOutput(result: RunResult): unknown {
  const tool = result.messages.find((m) => m.role === 'tool') as unknown as { content: Array<{ output: unknown }> };
  return tool.content[0]!.output;
}

const appSees = {
  toolName: 'guarded',
  isError: true,
  declined: true,
  error: 'The call of tool "guarded" was declined by bob: not on prod. It did not run.',
};

describe("an agent's declineMessage", () => {
  it("'mastra': the model gets Mastra's words as the tool's result", async () => {
    const done = await declined('mastra-worded');
    expect(toolOutput(done)).toEqual({ type: 'text', value: 'Tool call was not approved by the user' });
    expect(done.toolResults[0]).toMatchObject(appSees);
    expect(done.text).toBe('Done.');
  });

  it('a text of its own: the model gets it, placeholders filled, as a denial', async () => {
    const done = await declined('own-worded');
    expect(toolOutput(done)).toEqual({
      type: 'execution-denied',
      reason: 'guarded was refused by bob (not on prod); pick another target',
    });
    expect(done.toolResults[0]).toMatchObject(appSees);
  });

  it('is refused by defineAgent when it is not a wording', () => {
    expect(() => agentWith('bad', '{tool} was declined')).toThrow(
      'defineAgent("bad"): declineMessage names {tool}, which is not a placeholder (they are {toolName}, {by}, {reason})',
    );
    expect(() => agentWith('bad', ' ')).toThrow(/defineAgent\("bad"\): declineMessage is 'mastra' or a text/);
    expect(() => agentWith('bad', 'x'.repeat(1001))).toThrow('declineMessage is at most 1000 characters, not 1001');
    expect(() => agentWith('bad', 7 as never)).toThrow(/not 7$/);
  });
});
