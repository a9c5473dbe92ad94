import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeAgent } from '../../src/activities/describe-agent.js';
import { createTool, defineAgent } from '../../src/index.js';
import { AgentRegistry } from '../../src/registry.js';

const echo = createTool({
  id: 'echo',
  description: 'Echoes',
  inputSchema: z.object({ text: z.string().describe('what to echo'), times: z.number().default(1) }),
  requireApproval: true,
  activity: { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } },
  execute: ({ text }) => text,
});

describe('defineAgent and createTool', () => {
  it('describe an agent as serialisable data, tools named by their key', () => {
    const agent = defineAgent({ id: 'a', name: 'A', instructions: 'Be kind.', model: 'scripted', tools: { say: echo } });
    const spec = describeAgent(new AgentRegistry([agent]), { agentId: 'a' });
    expect(spec).toEqual({
      id: 'a',
      name: 'A',
      description: undefined,
      instructions: 'Be kind.',
      model: 'scripted',
      tools: [
        {
          name: 'say',
          id: 'echo',
          description: 'Echoes',
          inputSchema: expect.objectContaining({
            type: 'object',
            properties: { text: { type: 'string', description: 'what to echo' }, times: { type: 'number', default: 1 } },
          }),
          requireApproval: true,
          activity: { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } },
        },
      ],
      defaultOptions: undefined,
    });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it('refuse a tool key the model could not call', () => {
    expect(() => defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', tools: { 'has space': echo } })).toThrow(
      'defineAgent("a"): tool key "has space" is not a valid tool name; use 1-64 letters, digits, "_" or "-"',
    );
  });

  it('refuse something that is not a tool', () => {
    const notATool = { id: 'x' } as unknown as typeof echo;
    expect(() => defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', tools: { x: notATool } })).toThrow(
      'defineAgent("a"): tools.x is not a tool; create it with createTool()',
    );
  });

  it('refuse default options that could not be stored with a run', () => {
    expect(() => defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', defaultOptions: { maxSteps: -1 } })).toThrow(/invalid defaultOptions/);
  });

  it('refuse two agents with one id on a worker', () => {
    const agent = defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted' });
    expect(() => new AgentRegistry([agent, agent])).toThrow('Two agents have the id "a"');
  });
});
