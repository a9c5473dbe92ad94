/**
 * Tools from the outside: the worker's tools listed and described to a client that has none of their
 * code, and tool runs, each a run of its agent under the agent's policy, on a worker without the
 * scripted model (a tool run calls no model).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineAgent,
  InvalidInputError,
  NoWorkerError,
  NotAllowedError,
  RunFailedError,
  RunNotFoundError,
  SelfApprovalError,
  UnknownToolError,
} from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import type { RunInput } from '../../src/schemas/run-input.js';
import {
  addTool,
  guardedRuns,
  guardedTool,
  hookedAgent,
  hookLog,
  pickTool,
  recorded,
  recordTool,
  toolboxAgent,
} from '../fixtures/agents.js';
import { transformAgent } from '../fixtures/transform-agents.js';
import { collect, historyEventTypes, startWorker, temporalAddress, type TestWorker } from '../helpers.js';

/** The same tools under an agent that approves every call, offers only some, and lets only ops decide. */
const strictAgent = defineAgent({
  id: 'strict-agent',
  name: 'Strict',
  instructions: 'You are careful.',
  model: 'scripted',
  tools: { plus: addTool, record: recordTool, guarded: guardedTool, pick: pickTool },
  defaultOptions: { requireToolApproval: true, activeTools: ['plus', 'guarded', 'pick'] },
  access: { decide: ['role:ops'] },
});

let w: TestWorker;
let alice: AgentClient;
beforeAll(async () => {
  w = await startWorker([toolboxAgent, hookedAgent, strictAgent, transformAgent], {
    enableScriptedModel: false,
  });
  alice = await AgentClient.connect({
    address: temporalAddress(),
    namespace: 'default',
    taskQueue: w.taskQueue,
    principal: 'alice',
  });
});
afterAll(async () => {
  await alice?.close();
  await w?.stop();
});

describe('listing and describing', () => {
  it("lists the worker's tools with their schemas and each agent's policy, from a client without their code", async () => {
    const tools = await w.client.listTools();
    const add = tools.find((t) => t.id === 'add')!;
    expect(add).toMatchObject({
      description: 'Adds two numbers',
      kind: 'tool',
      requireApproval: false,
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      outputSchema: { type: 'object' },
    });
    expect(add.agents).toEqual([
      { agentId: 'toolbox-agent', toolName: 'add', approval: { required: false }, offered: true, selfApproval: false },
      {
        agentId: 'strict-agent',
        toolName: 'plus',
        approval: { required: true, by: 'agent' },
        offered: true,
        decide: ['role:ops'],
        selfApproval: false,
      },
    ]);
    expect(tools.find((t) => t.id === 'guarded')).toMatchObject({
      requireApproval: true,
      agents: [{ agentId: 'toolbox-agent', approval: { required: true, by: 'tool' } }, { agentId: 'strict-agent' }],
    });
    expect(tools.find((t) => t.id === 'pick')!.kind).toBe('client');
    expect(tools.find((t) => t.id === 'ask')!.resumeSchema).toMatchObject({ properties: { answer: {} } });
    // One entry per tool: `record` is on all three agents.
    expect(tools.filter((t) => t.id === 'record')).toHaveLength(1);

    const strict = await w.client.listTools({ agentId: 'strict-agent' });
    expect(strict.map((t) => t.id)).toEqual(['add', 'record', 'guarded', 'pick']);
    expect(strict.find((t) => t.id === 'record')!.agents).toEqual([expect.objectContaining({ offered: false })]);
  });

  it('gets one tool, and refuses an id no tool has, saying which ids there are', async () => {
    expect((await w.client.getTool('add', { agentId: 'strict-agent' })).agents).toMatchObject([{ toolName: 'plus' }]);
    await expect(w.client.getTool('nope')).rejects.toThrow(UnknownToolError);
    await expect(w.client.getTool('badOutput')).rejects.toThrow(
      /Unknown tool "badOutput": the workers serve "add", .*"badOutput" is the name of tool "bad-output"/,
    );
  });

  it('says that a worker must be up when none polls the task queue', async () => {
    const nobody = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: `no-worker-${randomUUID()}`,
    });
    try {
      const refused = await nobody.listTools().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(NoWorkerError);
      expect((refused as Error).message).toMatch(
        /^No worker answered on task queue "no-worker-.*": no worker polls it in namespace "default". The tools are known to the workers only: start one/,
      );
    } finally {
      await nobody.close();
    }
  });
});

describe('tool runs', () => {
  it('runs a tool as a one-call run: no model, its output in the result, the idempotency key of the call', async () => {
    const { runId, agentId, toolName } = await w.client.startToolRun(
      'record',
      { note: 'from outside' },
      {
        agentId: 'toolbox-agent',
        threadId: 'thread-7',
      },
    );
    expect({ agentId, toolName }).toEqual({ agentId: 'toolbox-agent', toolName: 'record' });
    const result = await w.client.next(runId);
    expect(result).toMatchObject({
      finishReason: 'stop',
      text: '',
      usage: { totalTokens: 0 },
      steps: [
        {
          toolCalls: [{ toolCallId: 'tool-run', toolName: 'record', args: { note: 'from outside' } }],
          toolResults: [{ isError: false, output: 'recorded from outside' }],
        },
      ],
    });
    expect(recorded).toContainEqual({
      idempotencyKey: `${runId}:tool-run`,
      attempt: 1,
      input: 'from outside',
      threadId: 'thread-7',
    });
    // A run like any other: listed, readable, its history clean.
    expect((await w.client.getRun(runId)).status).toBe('completed');
    const events = await historyEventTypes(w.client, runId);
    expect(events).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });

  it('asks for the agent where several have the tool, each with its own policy', async () => {
    await expect(w.client.runTool('add', { a: 1, b: 2 })).rejects.toThrow(
      expect.objectContaining({
        type: 'AgentRequired',
        message: expect.stringMatching(/"toolbox-agent", "strict-agent"/),
      }),
    );
    const result = await w.client.runTool('add', { a: 1, b: 2 }, { agentId: 'toolbox-agent' });
    expect(result.steps[0]!.toolResults).toEqual([
      { toolCallId: 'tool-run', toolName: 'add', isError: false, output: { sum: 3 } },
    ]);
  });

  it('refuses input that does not fit the schema before anything starts, naming the field', async () => {
    const runId = `run-${randomUUID()}`;
    const refused = await w.client
      .startToolRun('add', { a: 1, b: 'two' }, { agentId: 'toolbox-agent', runId })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).message).toMatch(/^the input of tool "add": b: .*expected number/);
    await expect(w.client.getRun(runId)).rejects.toThrow(RunNotFoundError);
  });

  it('refuses tools that cannot run: a client tool, one the agent does not offer', async () => {
    await expect(w.client.startToolRun('pick', { options: ['a'] }, { agentId: 'toolbox-agent' })).rejects.toThrow(
      expect.objectContaining({ type: 'ToolNotRunnable', message: expect.stringMatching(/client tool/) }),
    );
    await expect(w.client.startToolRun('record', { note: 'x' }, { agentId: 'strict-agent' })).rejects.toThrow(
      /agent "strict-agent" does not offer tool "record" to its runs/,
    );
    await expect(w.client.startToolRun('add', { a: 1, b: 2 }, { agentId: 'nobody' })).rejects.toThrow(
      /agent "nobody" does not have it/,
    );
    await expect(w.client.startToolRun('add', { a: 1, b: 2 }, { model: 'x' } as never)).rejects.toThrow(
      /unknown option "model"/,
    );
  });

  it('waits for approval where the tool requires it; the starter may not approve, someone else may', async () => {
    const before = guardedRuns.length;
    const paused = await alice.runTool('guarded', { target: 'prod' }, { agentId: 'toolbox-agent' });
    expect(paused).toMatchObject({
      finishReason: 'suspended',
      pendingToolCalls: [{ toolCallId: 'tool-run', toolName: 'guarded', kind: 'approval', args: { target: 'prod' } }],
    });
    expect(guardedRuns).toHaveLength(before);
    const { fingerprint } = paused.pendingToolCalls[0]!;
    await expect(alice.approveToolCallGenerate({ runId: paused.runId, fingerprint })).rejects.toThrow(
      SelfApprovalError,
    );
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, fingerprint, principal: 'bob' });
    expect(done.steps[0]!.toolResults).toEqual([
      { toolCallId: 'tool-run', toolName: 'guarded', isError: false, output: 'did prod' },
    ]);
    expect(guardedRuns.slice(before)).toEqual([`${paused.runId}:tool-run:prod`]);
  });

  it("applies the agent's policy as in a model-driven run: approval of every call, who decides, no loosening", async () => {
    const paused = await alice.runTool('add', { a: 2, b: 2 }, { agentId: 'strict-agent' });
    expect(paused.pendingToolCalls).toMatchObject([{ toolName: 'plus', kind: 'approval', decide: ['role:ops'] }]);
    const { fingerprint } = paused.pendingToolCalls[0]!;
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, fingerprint, principal: 'bob' }),
    ).rejects.toThrow(NotAllowedError);
    const done = await w.client.approveToolCallGenerate({
      runId: paused.runId,
      fingerprint,
      principal: { id: 'carol', roles: ['ops'] },
    });
    expect(done.steps[0]!.toolResults[0]).toMatchObject({ isError: false, output: { sum: 4 } });

    const loosened = await w.client
      .runTool('add', { a: 1, b: 1 }, { agentId: 'strict-agent', requireToolApproval: false })
      .catch((e: unknown) => e);
    expect(loosened).toBeInstanceOf(RunFailedError);
    expect((loosened as RunFailedError).failureType).toBe('RunOptionsNotAllowed');
  });

  it('lets a run tighten the policy: approval where the tool does not ask for it; a decline is the outcome', async () => {
    const paused = await w.client.runTool(
      'add',
      { a: 1, b: 2 },
      { agentId: 'toolbox-agent', requireToolApproval: true },
    );
    expect(paused.pendingToolCalls).toMatchObject([{ toolName: 'add', kind: 'approval' }]);
    const declined = await w.client.declineToolCallGenerate({
      runId: paused.runId,
      fingerprint: paused.pendingToolCalls[0]!.fingerprint,
      principal: 'bob',
      reason: 'not today',
    });
    expect(declined.steps[0]!.toolResults[0]).toMatchObject({ isError: true, declined: true, error: /not today/ });
  });

  it("runs the agent's hooks around the call", async () => {
    const result = await w.client.runTool('record', { note: 'forbidden' }, { agentId: 'hooked-agent' });
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: false, output: 'blocked by policy' });
    expect(hookLog).toContain('before record {"note":"forbidden"}');
  });

  it("applies the tool's transforms: the stream and the transcript never show the input they hide", async () => {
    const paused = await w.client.runTool('open-vault', { vault: 'main', password: 'hunter2' });
    const chunks = await collect(w.client.subscribe(paused.runId));
    expect(chunks.find((c) => c.type === 'tool-call')).toMatchObject({
      args: { vault: 'main', password: '[redacted]' },
    });
    expect(JSON.stringify(chunks)).not.toContain('hunter2');
    const { fingerprint } = paused.pendingToolCalls[0]!;
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, fingerprint, principal: 'bob' });
    expect(done.steps[0]!.toolResults[0]).toMatchObject({ output: 'opened main' });
    expect(done.toolCalls[0]!.args).toEqual({ vault: 'main', password: 'hunter2' });
    expect(JSON.stringify(done.messages)).not.toContain('hunter2');
  });

  it('fails a raw start that names a tool the run may not call, or input that does not fit, with the reason', async () => {
    const raw = async (toolCall: NonNullable<RunInput['toolCall']>, agentId = 'toolbox-agent') => {
      const runId = `run-${randomUUID()}`;
      const input: RunInput = { agentId, messages: [{ role: 'user', content: 'x' }], options: {}, toolCall };
      await w.client.temporal.workflow.start('agentRun', { workflowId: runId, taskQueue: w.taskQueue, args: [input] });
      const failure = (await w.client.result(runId).catch((e: unknown) => e)) as RunFailedError;
      expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
      return failure;
    };
    expect(await raw({ toolName: 'pick', args: { options: [] } })).toMatchObject({
      failureType: 'ToolRunNotAllowed',
      message: /client tool/,
    });
    expect(await raw({ toolName: 'record', args: { note: 'x' } }, 'strict-agent')).toMatchObject({
      failureType: 'ToolRunNotAllowed',
      message: /does not offer tool "record"/,
    });
    expect(await raw({ toolName: 'add', args: { a: 'one' } })).toMatchObject({
      failureType: 'InvalidToolInput',
      message: /the input of tool "add" does not fit its inputSchema: a: .*expected number/,
    });
    expect(await raw({ toolName: 'agent-helper', args: { prompt: 'hi' } }, 'hooked-agent')).toMatchObject({
      failureType: 'ToolRunNotAllowed',
      message: /is a sub-agent, not a tool/,
    });
  });
});
