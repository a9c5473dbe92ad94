import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOptions, RunResult, Script } from '../../src/index.js';
import { childReportSignal } from '../../src/protocol/run-messages.js';
import { guardedRuns } from '../fixtures/agents.js';
import { topAgent, WORKFLOW_TOOL_QUEUE } from '../fixtures/supervisors.js';
import { historyEventTypes, startWorker, startWorkflowWorker, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
let workflowWorker: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  w = await startWorker([topAgent]);
  workflowWorker = await startWorkflowWorker(WORKFLOW_TOOL_QUEUE);
});
afterAll(async () => {
  await workflowWorker?.stop();
  await w?.stop();
});

const guarded = (target: string): Script => [
  { toolCalls: [{ toolName: 'guarded', args: { target } }] },
  { text: `leaf did ${target}` },
];
const delegate = (tool: string, prompt: string, then = 'top is done'): Script => [
  { toolCalls: [{ toolName: tool, args: { prompt } }] },
  { text: then },
];

/** top -> leaf (two levels). */
const twoLevels = (leaf: Script): RunOptions => ({
  model: 'scripted',
  script: delegate('agent-leaf', 'do it'),
  subAgentOptions: { leaf: { model: 'scripted', script: leaf } },
});

/** top -> mid -> leaf (three levels). */
const threeLevels = (leaf: Script): RunOptions => ({
  model: 'scripted',
  script: delegate('agent-mid', 'get it done'),
  subAgentOptions: {
    mid: {
      model: 'scripted',
      script: delegate('agent-leaf', 'do it', 'mid is done'),
      subAgentOptions: { leaf: { model: 'scripted', script: leaf } },
    },
  },
});

async function paused(options: RunOptions): Promise<RunResult> {
  const result = await w.client.generate('top', 'go', options);
  expect(result.finishReason).toMatch(/^(suspended|tool-calls)$/);
  return result;
}

describe('supervisors: sub-agents as child workflows', () => {
  it('surfaces an approval two levels down at the top, with the inner call and its path, and approves it from the top', async () => {
    const top = await paused(twoLevels(guarded('db')));
    const childRunId = `${top.runId}::call-0-0`;
    expect(top.pendingToolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'call-0-0/call-0-0',
        toolName: 'guarded',
        args: { target: 'db' },
        kind: 'approval',
        path: [{ runId: childRunId, agentId: 'leaf', viaToolCallId: 'call-0-0' }],
      }),
    ]);
    const child = await w.client.getRun(childRunId);
    expect(child.pendingToolCalls).toEqual([expect.objectContaining({ toolCallId: 'call-0-0', path: [] })]);
    expect(top.pendingToolCalls[0]!.fingerprint).toBe(child.pendingToolCalls[0]!.fingerprint);

    // Listed on the top run, and on the child where it really waits.
    const listed = await waitFor('both runs listed', async () => {
      const runs = await w.client.listSuspendedRuns();
      const ids = runs.map((r) => r.runId);
      return ids.includes(top.runId) && ids.includes(childRunId) ? runs : undefined;
    });
    expect(listed.find((r) => r.runId === top.runId)?.agentId).toBe('top');

    const done = await w.client.approveToolCallGenerate({
      runId: top.runId,
      toolCallId: 'call-0-0/call-0-0',
      fingerprint: top.pendingToolCalls[0]!.fingerprint,
      by: 'boss',
    });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults).toEqual([
      {
        toolCallId: 'call-0-0',
        toolName: 'agent-leaf',
        isError: false,
        output: { text: 'leaf did db', runId: childRunId },
      },
    ]);
    expect(guardedRuns).toContain(`${childRunId}:call-0-0:db`);
    expect((await w.client.getRun(top.runId)).decisions).toEqual([
      expect.objectContaining({ kind: 'approve', toolCallId: 'call-0-0/call-0-0', by: 'boss', accepted: true }),
    ]);
    expect((await w.client.getRun(childRunId)).decisions).toEqual([
      expect.objectContaining({ kind: 'approve', toolCallId: 'call-0-0', by: 'boss', accepted: true }),
    ]);
  });

  it('streams an approval that waits two levels down on the top run, and goes on once it is approved', async () => {
    const stream = await w.client.stream('top', 'go', twoLevels(guarded('s')));
    const first = [];
    for await (const chunk of stream) first.push(chunk);
    expect(first.find((c) => c.type === 'tool-call-approval')).toMatchObject({
      toolCallId: 'call-0-0/call-0-0',
      toolName: 'guarded',
    });
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'suspended' });
    const rest = [];
    for await (const chunk of await w.client.approveToolCall({ runId: stream.runId })) rest.push(chunk);
    expect(rest.map((c) => c.type)).toEqual(expect.arrayContaining(['start', 'tool-result', 'finish']));
    expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: 'top is done' });
  });

  it('keeps the stream grace period of a streamed approval at depth 2 on the top run only', async () => {
    const stream = await w.client.stream('top', 'go', threeLevels(guarded('g')));
    for await (const chunk of stream) void chunk;
    const rest = [];
    for await (const chunk of await w.client.approveToolCall({ runId: stream.runId })) rest.push(chunk);
    expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: 'top is done' });
    // The sub-agents' runs end as soon as they are done: none of them sleeps the reader's grace period.
    for (const child of [`${stream.runId}::call-0-0`, `${stream.runId}::call-0-0::call-0-0`]) {
      const events = await historyEventTypes(w.client, child);
      expect(events.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
      expect(events).not.toContain('EVENT_TYPE_TIMER_STARTED');
    }
    // The top run, whose stream the caller reads, keeps it readable.
    expect(await historyEventTypes(w.client, stream.runId)).toContain('EVENT_TYPE_TIMER_STARTED');
  });

  it('approves three levels down from the top, and from the waiting run itself', async () => {
    const viaTop = await paused(threeLevels(guarded('a')));
    expect(viaTop.pendingToolCalls.map((p) => [p.toolCallId, p.path.map((h) => h.agentId)])).toEqual([
      ['call-0-0/call-0-0/call-0-0', ['mid', 'leaf']],
    ]);
    expect(
      (
        await w.client.approveToolCallGenerate({
          runId: viaTop.runId,
          fingerprint: viaTop.pendingToolCalls[0]!.fingerprint,
        })
      ).text,
    ).toBe('top is done');

    const viaLeaf = await paused(threeLevels(guarded('b')));
    const leafRunId = viaLeaf.pendingToolCalls[0]!.path.at(-1)!.runId;
    expect(leafRunId).toBe(`${viaLeaf.runId}::call-0-0::call-0-0`);
    await w.client.approveToolCallGenerate({ runId: leafRunId, toolCallId: 'call-0-0', by: 'leaf-owner' });
    const done = await w.client.result(viaLeaf.runId);
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults[0]).toMatchObject({ toolName: 'agent-mid', output: { text: 'mid is done' } });
    expect(await historyEventTypes(w.client, viaLeaf.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });

  it("takes Mastra's forms: the delegation's own call id, and resume({ approved }) for an approval", async () => {
    const top = await paused(threeLevels(guarded('mastra')));
    // Data for the tool in an approval would be lost: refused, and nothing is decided.
    await expect(
      w.client.resumeGenerate({ approved: true, note: 'x' }, { runId: top.runId, toolCallId: 'call-0-0' }),
    ).rejects.toThrow(/an approval carries no data to the tool, and this one has "note"/);
    // Mastra shows the delegation (`agent-mid`, call-0-0); deciding by that id reaches the call beneath it.
    const byDelegation = await w.client.resumeGenerate(
      { approved: true },
      { runId: top.runId, toolCallId: 'call-0-0' },
    );
    expect(byDelegation.text).toBe('top is done');
    const leaf = await w.client.result(top.pendingToolCalls[0]!.path.at(-1)!.runId);
    expect(leaf.toolResults[0]).toMatchObject({ toolName: 'guarded', isError: false });
    expect(leaf.decisions.at(-1)).toMatchObject({ kind: 'approve', accepted: true });

    const declined = await paused(threeLevels(guarded('mastra-no')));
    const done = await w.client.resumeGenerate({ approved: false, reason: 'not today' }, { runId: declined.runId });
    expect(done.finishReason).toBe('stop');
    const declinedLeaf = await w.client.result(declined.pendingToolCalls[0]!.path.at(-1)!.runId);
    expect(declinedLeaf.toolResults[0]).toMatchObject({ declined: true, error: expect.stringContaining('not today') });
  });

  it('refuses a mismatched fingerprint end to end, and declines at depth', async () => {
    const top = await paused(threeLevels(guarded('prod')));
    await expect(w.client.approveToolCallGenerate({ runId: top.runId, fingerprint: 'not-it' })).rejects.toThrow(
      /does not match tool call call-0-0\/call-0-0\/call-0-0/,
    );
    const done = await w.client.declineToolCallGenerate({ runId: top.runId, reason: 'not prod', by: 'boss' });
    expect(done.finishReason).toBe('stop');
    const leafRunId = top.pendingToolCalls[0]!.path.at(-1)!.runId;
    const leaf = await w.client.result(leafRunId);
    expect(leaf.toolResults[0]).toMatchObject({
      isError: true,
      declined: true,
      error: 'The call of tool "guarded" was declined by boss: not prod. It did not run.',
    });
  });

  it('resumes a suspension at depth with resume data checked against the inner tool', async () => {
    const top = await paused(
      threeLevels([{ toolCalls: [{ toolName: 'ask', args: { question: 'Colour?' } }] }, { text: 'leaf heard' }]),
    );
    expect(top.pendingToolCalls[0]).toMatchObject({
      toolName: 'ask',
      kind: 'suspend',
      suspendPayload: { question: 'Colour?' },
    });
    await expect(w.client.resumeGenerate({ answer: '' }, { runId: top.runId })).rejects.toThrow(/resumeSchema/);
    const done = await w.client.resumeGenerate({ answer: 'green' }, { runId: top.runId, by: 'user' });
    expect(done.text).toBe('top is done');
  });

  it('tracks parallel delegations to the same sub-agent by tool-call id, decided in reverse order', async () => {
    const top = await paused({
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'agent-leaf', args: { prompt: 'first' } },
            { toolName: 'agent-leaf', args: { prompt: 'second' } },
          ],
        },
        { text: 'both done' },
      ],
      subAgentOptions: { leaf: { model: 'scripted', script: guarded('x') } },
    });
    const ids = await waitFor('both delegations waiting', async () => {
      const r = await w.client.getRun(top.runId);
      return r.pendingToolCalls.length === 2 ? r.pendingToolCalls.map((p) => p.toolCallId) : undefined;
    });
    expect(ids.sort()).toEqual(['call-0-0/call-0-0', 'call-0-1/call-0-0']);
    const afterFirst = await w.client.approveToolCallGenerate({ runId: top.runId, toolCallId: 'call-0-1/call-0-0' });
    expect(afterFirst.finishReason).toBe('suspended');
    expect(afterFirst.pendingToolCalls.map((p) => p.toolCallId)).toEqual(['call-0-0/call-0-0']);
    const done = await w.client.approveToolCallGenerate({ runId: top.runId, toolCallId: 'call-0-0/call-0-0' });
    expect(done.text).toBe('both done');
    expect(done.toolResults.map((r) => r.toolCallId)).toEqual(['call-0-0', 'call-0-1']);
  });

  it('passes a client tool at depth up to the top, and continues with the submitted result', async () => {
    const top = await paused(
      threeLevels([{ toolCalls: [{ toolName: 'pick', args: { options: ['red', 'blue'] } }] }, { text: 'leaf got it' }]),
    );
    expect(top.finishReason).toBe('tool-calls');
    expect(top.pendingToolCalls[0]).toMatchObject({
      toolName: 'pick',
      kind: 'client',
      args: { options: ['red', 'blue'] },
    });
    await expect(w.client.approveToolCallGenerate({ runId: top.runId })).rejects.toThrow(/waits for a tool result/);
    const done = await w.client.submitToolResultGenerate({ runId: top.runId, result: 'blue', by: 'ui' });
    expect(done.text).toBe('top is done');
    const leafRunId = top.pendingToolCalls[0]!.path.at(-1)!.runId;
    expect((await w.client.result(leafRunId)).toolResults[0]).toMatchObject({ toolName: 'pick', output: 'blue' });
  });

  it('gives the model a tool error when a sub-agent fails', async () => {
    const result = await w.client.generate('top', 'go', {
      model: 'scripted',
      script: delegate('agent-leaf', 'x'),
      subAgentOptions: { leaf: { model: 'no-such-provider/x' } },
    });
    expect(result.finishReason).toBe('stop');
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'agent-leaf',
      isError: true,
      error: expect.stringMatching(/^Sub-agent "leaf" failed: Unknown model "no-such-provider\/x"/),
    });
  });

  it('runs a workflow tool as a child workflow and checks its output schema', async () => {
    const result = await w.client.generate('top', 'go', {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'workflow-double', args: { n: 21 } },
            { toolName: 'workflow-sloppy', args: { n: 1 } },
          ],
        },
        { text: '42' },
      ],
    });
    expect(result.toolResults[0]).toEqual({
      toolCallId: 'call-0-0',
      toolName: 'workflow-double',
      isError: false,
      output: { doubled: 42 },
    });
    expect(result.toolResults[1]).toMatchObject({
      toolName: 'workflow-sloppy',
      isError: true,
      error: expect.stringMatching(/does not fit its output schema/),
    });
    const child = await w.client.temporal.workflow.getHandle(`${result.runId}::call-0-0`).describe();
    expect(child.type).toBe('doubleWorkflow');
  });

  it('gives the model a tool error when a sub-agent run is cancelled on its own, and goes on', async () => {
    const top = await paused(twoLevels(guarded('c')));
    await w.client.temporal.workflow.getHandle(top.pendingToolCalls[0]!.path[0]!.runId).cancel();
    const done = await w.client.result(top.runId);
    expect(done.text).toBe('top is done');
    expect(done.toolResults[0]).toMatchObject({
      toolName: 'agent-leaf',
      isError: true,
      error: expect.stringMatching(/^Sub-agent "leaf" failed/),
    });
  });

  it('drops a malformed or forged child report without harm', async () => {
    const top = await paused(twoLevels(guarded('f')));
    const handle = w.client.temporal.workflow.getHandle(top.runId);
    await handle.signal(childReportSignal, { bogus: true } as never);
    await handle.signal(childReportSignal, {
      viaToolCallId: 'call-9-9',
      runId: 'x',
      agentId: 'evil',
      seq: 99,
      pending: [],
      paused: true,
      verdicts: [],
    });
    const info = await w.client.getRun(top.runId);
    expect(info.pendingToolCalls.map((p) => p.toolCallId)).toEqual(['call-0-0/call-0-0']);
    expect(await historyEventTypes(w.client, top.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    await w.client.declineToolCallGenerate({ runId: top.runId });
  });

  it('requires approval for every call down the chain when the top run does', async () => {
    const top = await paused({
      ...twoLevels([{ toolCalls: [{ toolName: 'ask', args: { question: 'q' } }] }, { text: 'leaf done' }]),
      requireToolApproval: true,
    });
    expect(top.pendingToolCalls.map((p) => [p.toolCallId, p.toolName, p.kind])).toEqual([
      ['call-0-0', 'agent-leaf', 'approval'],
    ]);
    const next = await w.client.approveToolCallGenerate({ runId: top.runId });
    expect(next.pendingToolCalls.map((p) => [p.toolCallId, p.toolName, p.kind])).toEqual([
      ['call-0-0/call-0-0', 'ask', 'approval'],
    ]);
    await w.client.declineToolCallGenerate({ runId: top.runId });
  });

  it('cancels the sub-agents of a cancelled run', async () => {
    const top = await paused(twoLevels(guarded('z')));
    const childRunId = top.pendingToolCalls[0]!.path[0]!.runId;
    await w.client.temporal.workflow.getHandle(top.runId).cancel();
    const status = await waitFor('the child cancelled', async () => {
      const d = await w.client.temporal.workflow.getHandle(childRunId).describe();
      return d.status.name === 'RUNNING' ? undefined : d.status.name;
    });
    expect(status).toBe('CANCELLED');
    const topStatus = await waitFor('the top run closed', async () => {
      const d = await w.client.temporal.workflow.getHandle(top.runId).describe();
      return d.status.name === 'RUNNING' ? undefined : d.status.name;
    });
    expect(topStatus).toBe('CANCELLED');
    expect((await w.client.getRun(top.runId)).status).toBe('cancelled');
  });
});
