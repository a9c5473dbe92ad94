import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeAgent } from '../../src/worker/activities/describe-agent.js';
import { createTool, defineAgent, defineWorkflowTool, Memory } from '../../src/index.js';
import { createWorker } from '../../src/worker/index.js';
import { AgentRegistry } from '../../src/worker/registry.js';
import { subAgentContextOf } from '../../src/schemas/thread.js';

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
    const agent = defineAgent({
      id: 'a',
      name: 'A',
      instructions: 'Be kind.',
      model: 'scripted',
      tools: { say: echo },
    });
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
          kind: 'tool',
          description: 'Echoes',
          inputSchema: expect.objectContaining({
            type: 'object',
            properties: {
              text: { type: 'string', description: 'what to echo' },
              times: { type: 'number', default: 1 },
            },
          }),
          requireApproval: true,
          activity: { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } },
        },
      ],
      defaultOptions: undefined,
    });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it('turn sub-agents into agent-<key> tools and workflows into workflow-<key> tools, and register sub-agents too', () => {
    const researcher = defineAgent({
      id: 'researcher',
      name: 'Researcher',
      description: 'finds things',
      instructions: '',
      model: 'scripted',
    });
    const report = defineWorkflowTool({
      workflowType: 'makeReport',
      description: 'Makes a report',
      inputSchema: z.object({ topic: z.string() }),
      outputSchema: z.object({ url: z.string() }),
    });
    const boss = defineAgent({
      id: 'boss',
      name: 'Boss',
      instructions: '',
      model: 'scripted',
      agents: { research: researcher },
      workflows: { report },
    });
    const registry = new AgentRegistry([boss]);
    expect(registry.ids()).toEqual(['boss', 'researcher']);
    const spec = describeAgent(registry, { agentId: 'boss' });
    expect(spec.tools.map((t) => [t.name, t.kind])).toEqual([
      ['agent-research', 'agent'],
      ['workflow-report', 'workflow'],
    ]);
    expect(spec.tools[0]).toMatchObject({
      subAgent: { id: 'researcher', key: 'research' },
      inputSchema: { required: ['prompt'] },
    });
    expect(spec.tools[1]).toMatchObject({
      workflow: { type: 'makeReport' },
      outputSchema: { properties: { url: { type: 'string' } } },
    });
  });

  it('make a tool without execute a client tool', () => {
    const pick = createTool({
      id: 'pick',
      description: 'The user picks',
      inputSchema: z.object({ options: z.array(z.string()) }),
    });
    const agent = defineAgent({ id: 'c', name: 'C', instructions: '', model: 'scripted', tools: { pick } });
    expect(describeAgent(new AgentRegistry([agent]), { agentId: 'c' }).tools[0]).toMatchObject({
      name: 'pick',
      kind: 'client',
    });
  });

  it('refuse a tool key the model could not call', () => {
    expect(() =>
      defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', tools: { 'has space': echo } }),
    ).toThrow('defineAgent("a"): tool key "has space" is not a valid tool name; use 1-64 letters, digits, "_" or "-"');
  });

  it('refuse something that is not a tool', () => {
    const notATool = { id: 'x' } as unknown as typeof echo;
    expect(() =>
      defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', tools: { x: notATool } }),
    ).toThrow('defineAgent("a"): tools.x is not a tool; create it with createTool()');
  });

  it('refuse default options that could not be stored with a run', () => {
    expect(() =>
      defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted', defaultOptions: { maxSteps: -1 } }),
    ).toThrow(/invalid defaultOptions/);
  });

  it('take memory options with Mastra’s names, refusing what does not fit, and describe them', () => {
    const base = { id: 'm', name: 'M', model: 'scripted' };
    const agent = defineAgent({ ...base, memory: { lastMessages: 20 } });
    expect(describeAgent(new AgentRegistry([agent]), { agentId: 'm' }).memory).toEqual({ lastMessages: 20 });
    expect(describeAgent(new AgentRegistry([defineAgent(base)]), { agentId: 'm' })).not.toHaveProperty('memory');
    expect(() => defineAgent({ ...base, memory: { lastMessages: -1 } })).toThrow(/invalid memory: lastMessages/);
    expect(() => defineAgent({ ...base, memory: { lastMessages: 5000 } })).toThrow(/invalid memory/);
    expect(() => defineAgent({ ...base, memory: { semanticRecall: true } as never })).toThrow(/semanticRecall/);
  });

  it('take a supervisor’s subAgentContext for all its sub-agents or by key, refusing an unknown value or key', () => {
    const helper = defineAgent({ id: 'h', name: 'H', model: 'scripted' });
    const base = { id: 's', name: 'S', model: 'scripted', agents: { helper, other: helper } };
    const shared = defineAgent({ ...base, memory: { subAgentContext: { helper: 'thread' } } });
    const spec = describeAgent(new AgentRegistry([shared]), { agentId: 's' });
    expect(spec.memory).toEqual({ subAgentContext: { helper: 'thread' } });
    expect(subAgentContextOf(spec.memory, 'helper')).toBe('thread');
    expect(subAgentContextOf(spec.memory, 'other')).toBe('prompt');
    expect(subAgentContextOf(undefined, 'helper')).toBe('prompt');
    expect(subAgentContextOf({ subAgentContext: 'thread' }, 'other')).toBe('thread');
    expect(subAgentContextOf({ subAgentContext: { helper: 'thread' } }, 'toString')).toBe('prompt');
    defineAgent({ ...base, memory: { subAgentContext: 'prompt', lastMessages: 5 } });

    expect(() => defineAgent({ ...base, memory: { subAgentContext: 'full' as never } })).toThrow(
      'defineAgent("s"): memory.subAgentContext (for every sub-agent, or an object by sub-agent key) takes "prompt" or "thread", not "full"',
    );
    expect(() => defineAgent({ ...base, memory: { subAgentContext: { helper: 'all' as never } } })).toThrow(
      'defineAgent("s"): memory.subAgentContext.helper takes "prompt" or "thread", not "all"',
    );
    expect(() => defineAgent({ ...base, memory: { subAgentContext: { helpr: 'thread' } } })).toThrow(
      'defineAgent("s"): memory.subAgentContext names "helpr", which the agent does not delegate to (its agents are helper, other)',
    );
    expect(() => defineAgent({ ...helper, id: 'x', memory: { subAgentContext: { helper: 'thread' } } })).toThrow(
      /names "helper", which the agent does not delegate to \(it has no agents\)/,
    );
    expect(() => defineAgent({ ...base, memory: { subAgentContext: true as never } })).toThrow(/not true/);
  });

  it('refuse two agents with one id on a worker', () => {
    const one = defineAgent({ id: 'a', name: 'A', instructions: '', model: 'scripted' });
    const other = defineAgent({ id: 'a', name: 'Another A', instructions: '', model: 'scripted' });
    expect(() => new AgentRegistry([one, other])).toThrow('Two agents have the id "a"');
    expect(new AgentRegistry([one, one]).ids()).toEqual(['a']);
  });
});

describe('loud configuration', () => {
  const input = z.object({});
  it('refuses an option createTool does not know, naming the nearest known one', () => {
    expect(() =>
      createTool({ id: 't', description: 'd', inputSchema: input, requireAproval: true } as Parameters<
        typeof createTool
      >[0]),
    ).toThrow('createTool("t"): unknown option "requireAproval" (did you mean "requireApproval"?)');
    expect(() =>
      createTool({ id: 't', description: 'd', inputSchema: input, colour: 'red' } as Parameters<typeof createTool>[0]),
    ).toThrow(/unknown option "colour" \(known: id, description, inputSchema, /);
  });

  it('refuses an option defineAgent or defineWorkflowTool does not know', () => {
    const config = { id: 'a', name: 'A', instruction: 'x', model: 'scripted' };
    expect(() => defineAgent(config as unknown as Parameters<typeof defineAgent>[0])).toThrow(
      'defineAgent("a"): unknown option "instruction" (did you mean "instructions"?)',
    );
    const tool = { workflowType: 'w', description: 'd', inputSchema: input, taskQue: 'q' };
    expect(() => defineWorkflowTool(tool as Parameters<typeof defineWorkflowTool>[0])).toThrow(
      'defineWorkflowTool("w"): unknown option "taskQue" (did you mean "taskQueue"?)',
    );
  });

  it('refuses options of a worker, a server and run options it does not know', async () => {
    await expect(createWorker({ agent: [] } as unknown as Parameters<typeof createWorker>[0])).rejects.toThrow(
      'createWorker: unknown option "agent" (did you mean "agents"?)',
    );
    // Documented in the README: taken, and a size that is not one refused before anything connects.
    await expect(
      createWorker({ agents: [], conversationCacheBytes: -1, address: '127.0.0.1:1' } as Parameters<
        typeof createWorker
      >[0]),
    ).rejects.toThrow('createWorker: conversationCacheBytes must be a whole number of bytes >= 0, not -1');
    const { createServerApp } = await import('../../src/server/index.js');
    const client = {} as Parameters<typeof createServerApp>[0];
    expect(() => createServerApp(client, { allowedHost: ['x'] } as Parameters<typeof createServerApp>[1])).toThrow(
      'createServerApp: unknown option "allowedHost" (did you mean "allowedHosts"?)',
    );
    const { buildRunInput } = await import('../../src/client/runs/run-input.js');
    expect(() => buildRunInput('a', 'hi', { maxStep: 3 } as Parameters<typeof buildRunInput>[2], () => {})).toThrow(
      'Invalid run options: unknown option "maxStep" (did you mean "maxSteps"?)',
    );
  });
});

describe("Mastra's new Memory()", () => {
  const base = { id: 'm', name: 'M', model: 'scripted' };

  it('is the same agent as the options it holds', () => {
    const agent = defineAgent({ ...base, memory: new Memory({ options: { lastMessages: 3 } }) });
    expect(agent.memory).toEqual({ lastMessages: 3 });
    expect(defineAgent({ ...base, memory: new Memory() }).memory).toEqual({});
    const spec = describeAgent(new AgentRegistry([agent]), { agentId: 'm' });
    expect(spec.memory).toEqual({ lastMessages: 3 });
  });

  it('refuses what it cannot keep, by name, and options the agent refuses', () => {
    expect(() => new Memory({ storage: {} } as never)).toThrow(/new Memory\(\): storage: a run's Temporal history/);
    expect(() => new Memory({ optoins: {} } as never)).toThrow(/unknown option "optoins" \(did you mean "options"\?\)/);
    expect(() => new Memory(null as never)).toThrow('new Memory(): takes an object ({ options }), not null');
    expect(() => new Memory({ options: null } as never)).toThrow(
      'new Memory(): options must be an object of memory options (lastMessages, workingMemory, ...), not null',
    );
    expect(() => defineAgent({ ...base, memory: new Memory({ options: { lastMessages: -1 } }) })).toThrow(
      /defineAgent\("m"\): invalid memory/,
    );
  });
});
