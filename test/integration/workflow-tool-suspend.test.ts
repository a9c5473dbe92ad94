/**
 * A workflow tool that waits for a person (#29): the user's own Temporal workflow returns
 * `suspendWorkflowTool(...)`; the agent's call is suspended as a tool's `suspend()` is (stream chunk,
 * `listSuspendedRuns`), resumed through the run's checks (the resume schema too), and the workflow runs
 * again with the answer. Two such calls wait and are resumed independently.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineAgent,
  defineWorkflowTool,
  InvalidResumeDataError,
  RunNotWaitingError,
  type RunStreamChunk,
} from '../../src/index.js';
import { refundCall, refundFlowAgent } from '../fixtures/workflow-tool-agent.js';
import { collect, serveWithTokens, startWorker, startWorkflowWorker, waitFor, type TestWorker } from '../helpers.js';

const QUEUE = `workflow-suspend-${randomUUID().slice(0, 8)}`;
const refundAgent = refundFlowAgent(QUEUE);

/** Workflow tools whose suspension has a deadline: one of 2 s, and one written by hand with 5 ms. */
const timedAgent = defineAgent({
  id: 'timed-refund-agent',
  name: 'Timed refunds',
  instructions: 'You refund, if someone answers in time.',
  model: 'scripted',
  workflows: {
    timed: defineWorkflowTool({
      workflowType: 'timedRefundWorkflow',
      description: 'Refunds once a person says yes within 2 s',
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      taskQueue: QUEUE,
    }),
    raw: defineWorkflowTool({
      workflowType: 'rawDeadlineWorkflow',
      description: 'Suspends by hand',
      inputSchema: z.object({ orderId: z.string() }),
      taskQueue: QUEUE,
    }),
  },
});

/** top -> mid -> the refund agent, whose workflow tool suspends two levels below the run one decides on. */
const refundMid = defineAgent({
  id: 'refund-mid',
  name: 'Mid',
  description: 'delegates refunds',
  instructions: 'You delegate.',
  model: 'scripted',
  agents: { clerk: refundAgent },
});
const refundTop = defineAgent({
  id: 'refund-top',
  name: 'Top',
  instructions: 'You supervise.',
  model: 'scripted',
  agents: { mid: refundMid },
});

let w: TestWorker;
let workflows: { stop(): Promise<void> };
beforeAll(async () => {
  workflows = await startWorkflowWorker(QUEUE);
  w = await startWorker([refundAgent, refundTop, timedAgent]);
});
afterAll(async () => {
  await w?.stop();
  await workflows?.stop();
});

const refund = refundCall;

describe('a workflow tool that suspends', () => {
  it('waits as a suspended call, takes the answer through the run, and runs again with it', async () => {
    const s = await w.client.stream('refund-flow-agent', 'refund o-1', {
      model: 'scripted',
      script: [{ toolCalls: [refund('o-1', 30)] }, { text: 'Refunded.' }],
    });
    const chunks = await collect(s);
    const suspended = chunks.find(
      (c): c is Extract<RunStreamChunk, { type: 'tool-call-suspended' }> => c.type === 'tool-call-suspended',
    );
    expect(suspended?.payload).toMatchObject({
      toolName: 'workflow-refund',
      suspendPayload: { orderId: 'o-1', ask: 'Refund 30 on o-1?' },
    });
    const [run] = await waitFor('the run listed as waiting', async () => {
      const runs = (await w.client.listSuspendedRuns({ agentId: 'refund-flow-agent' })).filter(
        (r) => r.runId === s.runId,
      );
      return runs.length ? runs : undefined;
    });
    expect(run!.pendingToolCalls[0]).toMatchObject({
      kind: 'suspend',
      resumeSchema: { properties: { ok: { type: 'boolean' } } },
    });

    await expect(w.client.decide({ kind: 'resume', runId: s.runId, resumeData: { ok: 'yes' } })).rejects.toThrow(
      InvalidResumeDataError,
    );
    const result = await w.client.decide(
      { kind: 'resume', runId: s.runId, resumeData: { ok: true } },
      { then: 'result' },
    );
    expect(result.text).toBe('Refunded.');
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'workflow-refund',
      output: { orderId: 'o-1', refunded: 30 },
    });
    // The workflow ran twice: suspended, then resumed as a child of its own.
    const again = await w.client.temporal.workflow.getHandle(`${s.runId}::call-0-0::1`).describe();
    expect(again.type).toBe('refundApprovalWorkflow');
  });

  it('lets two calls wait at once, each resumed on its own, and refuses data that does not fit, raw', async () => {
    const paused = await w.client.generate('refund-flow-agent', 'refund both', {
      model: 'scripted',
      script: [{ toolCalls: [refund('o-2', 5), refund('o-3', 7)] }, { text: 'Both done.' }],
    });
    expect(paused.finishReason).toBe('suspended');
    const ids = () => w.client.getRun(paused.runId).then((r) => r.pendingToolCalls.map((c) => c.toolCallId));
    await waitFor('both calls waiting', async () => ((await ids()).length === 2 ? true : undefined));

    // A raw resume signal past the client, with data the resume schema refuses: recorded as refused, still waiting.
    await w.client.temporal.workflow
      .getHandle(paused.runId)
      .signal('resumeToolCall', { decisionId: 'raw-1', toolCallId: 'call-0-1', resumeData: { ok: 1 } });
    await waitFor('the refusal in the trail', async () => {
      const run = await w.client.getRun(paused.runId);
      return run.refusals.recent.find((d) => d.decisionId === 'raw-1');
    }).then((refused) => expect(refused?.refusal?.type).toBe('InvalidResumeData'));
    expect(await ids()).toEqual(['call-0-0', 'call-0-1']);

    await w.client.decide(
      { kind: 'resume', runId: paused.runId, toolCallId: 'call-0-1', resumeData: { ok: false } },
      { then: 'sent' },
    );
    await waitFor('one call left', async () => ((await ids()).length === 1 ? true : undefined));
    expect(await ids()).toEqual(['call-0-0']);
    const done = await w.client.decide(
      { kind: 'resume', runId: paused.runId, resumeData: { ok: true } },
      { then: 'result' },
    );
    expect(done.text).toBe('Both done.');
    expect(done.toolResults).toMatchObject([
      { output: { orderId: 'o-2', refunded: 5 } },
      { output: { orderId: 'o-3', refunded: 0 } },
    ]);
  });

  it('under a supervisor two levels up: listed on the top run by its qualified id, and resumed there', async () => {
    const delegate = (tool: string, then: string) => [
      { toolCalls: [{ toolName: tool, args: { prompt: 'go' } }] },
      { text: then },
    ];
    const paused = await w.client.generate('refund-top', 'refund o-9', {
      model: 'scripted',
      script: delegate('agent-mid', 'Top done.'),
      subAgentOptions: {
        mid: {
          model: 'scripted',
          script: delegate('agent-clerk', 'Mid done.'),
          subAgentOptions: {
            clerk: { model: 'scripted', script: [{ toolCalls: [refund('o-9', 9)] }, { text: 'Clerk done.' }] },
          },
        },
      },
    });
    expect(paused.finishReason).toBe('suspended');
    const [call] = paused.pendingToolCalls;
    expect(call).toMatchObject({
      toolName: 'workflow-refund',
      toolCallId: 'call-0-0/call-0-0/call-0-0',
      kind: 'suspend',
      suspendPayload: { orderId: 'o-9', ask: 'Refund 9 on o-9?' },
    });
    expect(call!.path.map((hop) => hop.agentId)).toEqual(['refund-mid', 'refund-flow-agent']);
    const done = await w.client.decide(
      { kind: 'resume', runId: paused.runId, toolCallId: call!.toolCallId, resumeData: { ok: true } },
      { then: 'result' },
    );
    expect(done.text).toBe('Top done.');
    const clerkRun = await w.client.result(`${paused.runId}::call-0-0::call-0-0`);
    expect(clerkRun.toolResults[0]).toMatchObject({ output: { orderId: 'o-9', refunded: 9 } });
  });
  it('expires a call nobody resumed before its deadline: the model is told, the workflow does not go on', async () => {
    const paused = await w.client.generate('timed-refund-agent', 'refund o-5', {
      model: 'scripted',
      script: [
        { toolCalls: [{ toolName: 'workflow-timed', args: { orderId: 'o-5', amount: 5 } }] },
        { text: 'Noted.' },
      ],
    });
    const call = paused.pendingToolCalls[0]!;
    expect(call).toMatchObject({ kind: 'suspend', suspendPayload: { orderId: 'o-5' } });
    expect(Date.parse(call.expiresAt!) - Date.parse(call.askedAt)).toBe(2000);

    const done = await w.client.result(paused.runId);
    expect(done.text).toBe('Noted.');
    expect(done.toolResults[0]).toMatchObject({ isError: true });
    const told = JSON.stringify(done.messages.filter((m) => m.role === 'tool'));
    expect(told).toContain('nobody answered in time, and it did not go on');
    expect(done.decisions.at(-1)).toMatchObject({ kind: 'expire', toolCallId: call.toolCallId });
    // The workflow ran once: it was not started again.
    await expect(w.client.temporal.workflow.getHandle(`${paused.runId}::call-0-0::1`).describe()).rejects.toThrow();
    // A late resume is refused: the run went on without it (the ledger's test covers one that arrives first).
    const late = { kind: 'resume', runId: paused.runId, toolCallId: call.toolCallId, resumeData: {} } as const;
    await expect(w.client.decide(late)).rejects.toThrow(RunNotWaitingError);
  });

  it('refuses a suspension whose deadline no run takes, telling the model why', async () => {
    const done = await w.client.generate('timed-refund-agent', 'raw', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'workflow-raw', args: { orderId: 'o-6' } }] }, { text: 'Could not.' }],
    });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults[0]).toMatchObject({
      isError: true,
      error: expect.stringContaining('suspended with a deadline of 5 ms, which is not between 1 second and 365 days'),
    });
  });
  it('is resumed over HTTP, with data its schema refuses answered 409, and by the next message on its thread', async () => {
    const server = await serveWithTokens(
      w.client,
      { ops: { token: 'tok-ops-0123456789abcdef', principal: { id: 'ops' } } },
      [refundAgent],
    );
    try {
      const paused = await w.client.generate('refund-flow-agent', 'refund o-7', {
        model: 'scripted',
        script: [{ toolCalls: [refund('o-7', 7)] }, { text: 'Refunded o-7.' }],
      });
      const { fingerprint } = paused.pendingToolCalls[0]!;
      const post = (resumeData: unknown) =>
        fetch(`${server.base}/runs/${paused.runId}/resume`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer tok-ops-0123456789abcdef' },
          body: JSON.stringify({ fingerprint, resumeData }),
        });
      const misfit = await post({ ok: 'yes' });
      expect(misfit.status).toBe(409);
      expect(((await misfit.json()) as { error: { type: string } }).error.type).toBe('InvalidResumeData');
      const taken = await post({ ok: true });
      expect(taken.status).toBe(200);
      await taken.body?.cancel();
      const done = await w.client.result(paused.runId);
      expect(done.toolResults[0]).toMatchObject({ output: { orderId: 'o-7', refunded: 7 } });
    } finally {
      await server.close();
    }

    // Auto-resume: the next message on the thread is read for the workflow's resume data.
    const thread = {
      threadId: `wf-${randomUUID()}`,
      resourceId: 'workflow-tool-tests',
      autoResumeSuspendedTools: true,
    };
    const first = await w.client.generate('refund-flow-agent', 'refund o-8', {
      ...thread,
      model: 'scripted',
      script: [{ toolCalls: [refund('o-8', 8)] }, { text: 'Refunded o-8.' }],
    });
    expect(first.finishReason).toBe('suspended');
    const second = await w.client.generate('refund-flow-agent', 'Yes, go ahead.', {
      ...thread,
      model: 'scripted',
      script: [{ text: JSON.stringify({ resumeData: { ok: true }, missing: null }) }],
    });
    expect(second.runId).toBe(first.runId);
    expect(second.text).toBe('Refunded o-8.');
    expect(second.toolResults[0]).toMatchObject({ output: { orderId: 'o-8', refunded: 8 } });
  });
});
