import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolCallFingerprint } from '../../src/approvals/fingerprint.js';
import { toolRunLines, toolsTable } from '../../src/cli/format.js';
import { checkToolInput, toolRunOutcome } from '../../src/client/tools.js';
import {
  createTool,
  defineAgent,
  InvalidInputError,
  RequestRefusedError,
  UnknownToolError,
  type RunResult,
} from '../../src/index.js';
import { AgentRegistry } from '../../src/worker/index.js';
import { describeAgent } from '../../src/worker/activities/describe-agent.js';
import { findTool, toolOwner } from '../../src/schemas/tool-info.js';
import { TOOL_RUN_CALL_ID, toolRunStep } from '../../src/workflows/run/tool-run.js';

const add = createTool({
  id: 'add',
  description: 'Adds\ntwo numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});
const wipe = createTool({
  id: 'wipe',
  description: 'Wipes a disk',
  inputSchema: z.object({ disk: z.string() }),
  requireApproval: true,
  execute: ({ disk }) => `wiped ${disk}`,
});
const otherWipe = createTool({
  id: 'wipe',
  description: 'Wipes a whiteboard',
  inputSchema: z.object({ board: z.string() }),
  idempotent: true,
  execute: ({ board }) => `wiped ${board}`,
});
const ask = createTool({
  id: 'ask',
  description: 'Asks',
  inputSchema: z.object({ q: z.string() }),
  resumeSchema: z.object({ answer: z.string() }),
  execute: async ({ q }, ctx) => ctx.resumeData ?? ctx.suspend({ q }),
});
const pick = createTool({
  id: 'pick',
  description: 'Picks (client)',
  inputSchema: z.object({ of: z.array(z.string()) }),
});

const open = defineAgent({
  id: 'open',
  name: 'Open',
  instructions: 'x',
  model: 'scripted',
  tools: { add, wipe, ask, pick },
});
const strict = defineAgent({
  id: 'strict',
  name: 'Strict',
  instructions: 'x',
  model: 'scripted',
  tools: { plus: add, wipe: otherWipe },
  agents: { helper: open },
  defaultOptions: { requireToolApproval: true, activeTools: ['wipe', 'agent-helper'] },
  access: { decide: ['role:ops'], tools: { wipe: { decide: ['user:root'], selfApproval: true } } },
});
const registry = new AgentRegistry([strict]);

describe('the tools a worker lists', () => {
  it('lists each tool once, with every agent that has it and what its policy makes of a call', () => {
    const tools = registry.listTools();
    expect(tools.map((t) => `${t.id}:${t.agents.map((a) => a.agentId).join('+')}`)).toEqual([
      'add:strict+open',
      'wipe:strict',
      'wipe:open',
      'ask:open',
      'pick:open',
    ]);
    const sum = tools[0]!;
    expect(sum).toMatchObject({
      kind: 'tool',
      requireApproval: false,
      idempotent: false,
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
    });
    expect(sum.agents).toEqual([
      {
        agentId: 'strict',
        toolName: 'plus',
        approval: { required: true, by: 'agent' },
        offered: false,
        decide: ['role:ops'],
        selfApproval: false,
      },
      { agentId: 'open', toolName: 'add', approval: { required: false }, offered: true, selfApproval: false },
    ]);
    expect(tools[1]!.agents[0]).toMatchObject({ decide: ['user:root'], selfApproval: true, offered: true });
    expect(tools[2]).toMatchObject({ requireApproval: true, agents: [{ approval: { required: true, by: 'tool' } }] });
    expect(tools[3]!.resumeSchema).toMatchObject({ properties: { answer: { type: 'string' } } });
    expect(tools[4]!.kind).toBe('client');
  });

  it('finds a tool by id, narrowed to an agent, and says what to do when it cannot', () => {
    expect(registry.getTool('add').agents).toHaveLength(2);
    expect(registry.getTool('add', 'open').agents.map((a) => a.toolName)).toEqual(['add']);
    expect(registry.getTool('wipe', 'open').description).toBe('Wipes a disk');
    expect(() => registry.getTool('wipe')).toThrow(
      expect.objectContaining({ type: 'AgentRequired', message: expect.stringMatching(/"strict", "open".*--agent/) }),
    );
    expect(() => registry.getTool('nope')).toThrow(UnknownToolError);
    expect(() => registry.getTool('nope')).toThrow(/the workers serve "add", "wipe", "ask", "pick"/);
    // A tool's name on an agent is not its id: the refusal says which id it is.
    expect(() => registry.getTool('plus')).toThrow(/"plus" is the name of tool "add" on its agents/);
    expect(() => registry.getTool('ask', 'strict')).toThrow(/agent "strict" does not have it; "open" do/);
  });

  it('asks for the agent where a tool is on several, each with its own policy', () => {
    const tools = registry.listTools();
    expect(() => toolOwner(findTool(tools, 'add'))).toThrow(RequestRefusedError);
    expect(toolOwner(findTool(tools, 'add', 'strict')).toolName).toBe('plus');
    expect(toolOwner(findTool(tools, 'ask')).agentId).toBe('open');
  });

  it('checks a tool input against the JSON schema, naming the field', () => {
    const tool = registry.getTool('add');
    expect(() => checkToolInput(tool, { a: 1, b: 2 })).not.toThrow();
    expect(() => checkToolInput(tool, { a: 1, b: 'two' })).toThrow(InvalidInputError);
    expect(() => checkToolInput(tool, { a: 1, b: 'two' })).toThrow(/^the input of tool "add": b: .*expected number/);
    expect(() => checkToolInput(tool, [1])).toThrow(/expected object/);
  });

  it('shows the tools in a table, one line each', () => {
    const lines = toolsTable(registry.listTools());
    expect(lines[0]).toMatch(/^TOOL +KIND +APPROVAL +AGENTS +DESCRIPTION$/);
    expect(lines[1]).toMatch(/^add +tool +on strict +strict\/plus \(not offered\),open\/add +Adds two numbers$/);
    expect(lines[3]).toMatch(/^wipe +tool +required +open\/wipe/);
    expect(lines[5]).toMatch(/^pick +client /);
    expect(toolsTable([])).toEqual(['no tools']);
  });
});

describe('a tool run step', () => {
  const spec = describeAgent(registry, { agentId: 'open' });
  const strictSpec = describeAgent(registry, { agentId: 'strict' });

  it('is the call a model would have made, fingerprinted for this run, and nothing else', () => {
    const made = toolRunStep('run-1', spec, {}, { toolName: 'add', args: { a: 1, b: 2 } }, () => true);
    const fingerprint = toolCallFingerprint({
      runId: 'run-1',
      toolCallId: TOOL_RUN_CALL_ID,
      toolName: 'add',
      args: { a: 1, b: 2 },
    });
    expect(made).toEqual({
      ok: true,
      step: {
        text: '',
        toolCalls: [{ toolCallId: 'tool-run', toolName: 'add', args: { a: 1, b: 2 }, fingerprint }],
        finishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        assistantMessages: [
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'tool-run', toolName: 'add', input: { a: 1, b: 2 } }],
          },
        ],
      },
    });
  });

  it('refuses what a model could not have called, and input that does not fit', () => {
    const refused = (s: typeof spec, toolName: string, args: unknown = {}, activeTools?: string[]) =>
      toolRunStep('r', s, activeTools ? { activeTools } : {}, { toolName, args: args as never }, () => true);
    expect(refused(spec, 'nope')).toMatchObject({
      ok: false,
      type: 'ToolRunNotAllowed',
      message: /has no tool "nope"/,
    });
    expect(refused(spec, 'pick')).toMatchObject({ type: 'ToolRunNotAllowed', message: /client tool/ });
    expect(refused(strictSpec, 'agent-helper', { prompt: 'x' })).toMatchObject({
      message: /is a sub-agent, not a tool/,
    });
    expect(refused(spec, 'add', { a: 1, b: 2 }, ['wipe'])).toMatchObject({
      type: 'ToolRunNotAllowed',
      message: /does not offer tool "add" to this run \(its active tools: wipe\)/,
    });
    expect(refused(spec, 'add', { a: 1 })).toMatchObject({
      ok: false,
      type: 'InvalidToolInput',
      message: /the input of tool "add" does not fit its inputSchema: b: .*expected number/,
    });
  });

  it("leaves an MCP tool's patterns to the worker, and checks the agent's own tool whole", () => {
    const patterned = (mcpServer?: string) => ({
      ...spec,
      tools: spec.tools.map((t) =>
        t.name === 'add'
          ? {
              ...t,
              ...(mcpServer ? { mcpServer } : {}),
              inputSchema: {
                ...t.inputSchema,
                properties: { ...(t.inputSchema.properties as object), n: { type: 'string', pattern: '^(a|aa)+$' } },
              },
            }
          : t,
      ),
    });
    const run = (s: typeof spec, takesIt: boolean) =>
      toolRunStep('r', s, {}, { toolName: 'add', args: { a: 1, b: 2, n: 'b' } }, () => takesIt);
    expect(run(patterned('notes'), true)).toMatchObject({ ok: true });
    // A run recorded before the change replays as it decided then.
    expect(run(patterned('notes'), false)).toMatchObject({
      ok: false,
      type: 'InvalidToolInput',
      message: /n: .*pattern/,
    });
    expect(run(patterned(), true)).toMatchObject({ ok: false, type: 'InvalidToolInput', message: /n: .*pattern/ });
  });
});

describe("a tool run's result, for people", () => {
  const base: RunResult = {
    runId: 'run-1',
    agentId: 'open',
    text: '',
    steps: [],
    toolCalls: [],
    toolResults: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    finishReason: 'stop',
    pendingToolCalls: [],
    messages: [],
    decisions: [],
  };
  const step = (toolResults: RunResult['steps'][number]['toolResults']): RunResult => ({
    ...base,
    steps: [
      {
        stepNumber: 0,
        text: '',
        toolCalls: [{ toolCallId: 'tool-run', toolName: 'add', args: {} }],
        toolResults,
        finishReason: 'stop',
        usage: base.usage,
      },
    ],
  });

  it('prints the output, the error, or how to go on', () => {
    const done = step([{ toolCallId: 'tool-run', toolName: 'add', isError: false, output: { sum: 3 } }]);
    expect(toolRunLines({ toolName: 'add', input: { a: 1, b: 2 } }, done)).toEqual([
      'run run-1: finished (stop)',
      'add({"a":1,"b":2}) -> {"sum":3}',
    ]);
    expect(toolRunOutcome(done)).toEqual({ type: 'result', output: { sum: 3 } });
    const declined = step([
      { toolCallId: 'tool-run', toolName: 'add', isError: true, error: 'declined by bob', declined: true },
    ]);
    expect(toolRunLines({ toolName: 'add', input: {} }, declined)[1]).toBe('add({}) -> declined: declined by bob');
    expect(toolRunOutcome(declined)).toEqual({ type: 'error', error: 'declined by bob', declined: true });

    const waiting: RunResult = {
      ...base,
      finishReason: 'suspended',
      pendingToolCalls: [
        {
          toolCallId: 'tool-run',
          toolName: 'wipe',
          args: { disk: 'sda' },
          fingerprint: 'f1',
          requiresApproval: true,
          kind: 'approval',
          askedAt: '2026-01-01T00:00:00.000Z',
          path: [],
          selfApproval: false,
        },
      ],
      suspendPayload: {
        toolCallId: 'tool-run',
        toolName: 'wipe',
        args: { disk: 'sda' },
        fingerprint: 'f1',
        requiresApproval: true,
      },
    };
    const lines = toolRunLines({ toolName: 'wipe', input: { disk: 'sda' } }, waiting);
    expect(lines[0]).toBe('run run-1: suspended');
    expect(lines.slice(2)).toEqual([
      "to approve (someone the agent lets decide, not the run's starter): agentctl --as WHO approve run-1 --fingerprint f1",
      'to decline: agentctl --as WHO decline run-1 --fingerprint f1 --reason TEXT',
    ]);
    expect(toolRunOutcome(waiting)).toBeUndefined();
  });
});
