/**
 * `ask_user` and `submit_plan` in runs of the example support agent on the dev server, resumed through
 * the client and over HTTP (agentctl: test/e2e/builtin-tools.test.ts). An answer that does not fit the
 * question (a choice that is not an option, a review without its feedback) is refused on every path,
 * in one line, and the run keeps waiting; one that reaches the run anyway (a raw signal) is refused by
 * the tool's worker and recorded.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseColourScript, planScript, supportAgent } from '../../examples/support-agent.js';
import {
  InvalidResumeDataError,
  type JsonValue,
  type RunStreamChunk,
  type RunResult,
  type Script,
} from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { resumeToolCallSignal } from '../../src/protocol/run-messages.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';
import { verdictIn } from '../../src/client/runs/runs.js';

let w: TestWorker;
let server: ServerType;
let base: string;
const TOKEN = 'builtins-token-0123456789';

beforeAll(async () => {
  w = await startWorker([supportAgent]);
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ [TOKEN]: { id: 'alice' } }),
    agents: [supportAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

const ask = (args: JsonValue): Script => [{ toolCalls: [{ toolName: 'ask_user', args }] }, { text: 'Noted.' }];

async function paused(script: Script, options: { requireToolApproval?: boolean } = {}): Promise<RunResult> {
  const result = await w.client.generate('support-agent', 'go', { script, ...options });
  expect(result.finishReason).toBe('suspended');
  return result;
}

/** The call still waits for resume data, and no workflow task failed on the way. */
async function expectStillWaiting(runId: string): Promise<void> {
  const info = await w.client.getRun(runId);
  expect(info.status).toBe('suspended');
  expect(info.pendingToolCalls).toEqual([expect.objectContaining({ toolCallId: 'call-0-0', kind: 'suspend' })]);
  expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
}

/** What the model was shown as the call's result. */
function modelSaw(result: RunResult): unknown {
  const tool = result.messages.find((m) => m.role === 'tool') as unknown as { content: Array<{ output: unknown }> };
  return tool.content[0]!.output;
}

describe('ask_user through the client', () => {
  it('suspends with the question and its options, refuses a choice that is not one, and takes one that is', async () => {
    const run = await paused(chooseColourScript);
    const question = { question: 'Which colour should the new theme be?', options: ['red', 'green'] };
    expect(run.suspendPayload).toMatchObject({
      toolName: 'ask_user',
      payload: { ...question, selectionMode: 'single' },
    });
    // The call's own schema is stored with it, so any caller can check an answer before sending it.
    expect(run.pendingToolCalls[0]!.resumeSchema).toMatchObject({
      properties: { answer: { enum: ['red', 'green'] } },
    });

    for (const answer of ['purple', ['red'], ''] as JsonValue[]) {
      const refusal = w.client.resumeGenerate({ answer }, { runId: run.runId });
      await expect(refusal).rejects.toBeInstanceOf(InvalidResumeDataError);
    }
    await expect(w.client.resumeGenerate({ answer: 'purple' }, { runId: run.runId })).rejects.toMatchObject({
      type: 'InvalidResumeData',
      reason:
        'resume data {"answer":"purple"} does not fit the resumeSchema of tool call call-0-0 (ask_user): ' +
        'answer: Invalid option: expected one of "red"|"green"',
    });
    await expectStillWaiting(run.runId);

    const done = await w.client.resumeGenerate({ answer: 'green' }, { runId: run.runId });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults).toEqual([
      { toolCallId: 'call-0-0', toolName: 'ask_user', isError: false, output: { answer: 'green' } },
    ]);
    expect(modelSaw(done)).toEqual({ type: 'json', value: { answer: 'green' } });
  });

  it('takes a list of distinct options for multi_select, and refuses every other form', async () => {
    const run = await paused(
      ask({ question: 'Which days?', options: ['mon', 'tue', 'wed'], selectionMode: 'multi_select' }),
    );
    const refused: Array<[JsonValue, RegExp]> = [
      [{ answer: 'mon' }, /answer: Invalid input: expected array, received string/],
      [{ answer: [] }, /answer: Too small: expected array to have >=1 items/],
      [{ answer: ['mon', 'mon'] }, /answer\.1: Array items must be unique/],
      [{ answer: ['mon', 'fri'] }, /answer\.1: Invalid option: expected one of "mon"\|"tue"\|"wed"/],
    ];
    for (const [data, why] of refused) {
      const refusal = w.client.resumeGenerate(data, { runId: run.runId });
      await expect(refusal).rejects.toBeInstanceOf(InvalidResumeDataError);
      await expect(w.client.resumeGenerate(data, { runId: run.runId })).rejects.toThrow(why);
    }
    await expectStillWaiting(run.runId);
    const done = await w.client.resumeGenerate({ answer: ['wed', 'mon'] }, { runId: run.runId });
    expect(done.toolResults[0]).toMatchObject({ isError: false, output: { answer: ['wed', 'mon'] } });
  });

  it('takes free text without options, and refuses a blank answer (resumeStream)', async () => {
    const run = await paused(ask({ question: 'What went wrong?' }));
    expect(run.suspendPayload!.payload).toEqual({ question: 'What went wrong?' });
    await expect(w.client.resumeStream({ answer: '  ' }, { runId: run.runId })).rejects.toMatchObject({
      type: 'InvalidResumeData',
      reason: expect.stringMatching(/\(ask_user\): answer: Invalid string: must match pattern/),
    });
    await expectStillWaiting(run.runId);
    const chunks: RunStreamChunk[] = [];
    for await (const chunk of await w.client.resumeStream({ answer: 'The export hung.' }, { runId: run.runId })) {
      chunks.push(chunk);
    }
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-result', toolName: 'ask_user', output: { answer: 'The export hung.' } }),
    );
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('refuses, at the worker, a wrong choice sent as a raw signal, records why, and keeps waiting', async () => {
    const run = await paused(chooseColourScript);
    const handle = w.client.temporal.workflow.getHandle(run.runId);
    await handle.signal(resumeToolCallSignal, {
      decisionId: 'raw-purple',
      toolCallId: 'call-0-0',
      resumeData: { answer: 'purple' },
    });
    const verdict = await waitFor('the verdict in the trail', async () =>
      verdictIn(await w.client.getRun(run.runId), 'raw-purple'),
    );
    expect(verdict).toMatchObject({ accepted: false, refusal: { type: 'InvalidResumeData' } });
    expect(verdict.refusal!.message).toBe(
      'resume data does not fit this call of tool "ask_user": answer: "purple" is not one of the options: red, green',
    );
    await waitFor('the call waiting again', async () =>
      (await w.client.getRun(run.runId)).status === 'suspended' ? true : undefined,
    );
    await expectStillWaiting(run.runId);
    // Waiting again, with the same question and the same schema.
    expect((await w.client.getRun(run.runId)).pendingToolCalls[0]).toMatchObject({
      suspendPayload: { options: ['red', 'green'] },
      resumeSchema: { properties: { answer: { enum: ['red', 'green'] } } },
    });
    const done = await w.client.resumeGenerate({ answer: 'red' }, { runId: run.runId });
    expect(done.toolResults[0]).toMatchObject({ output: { answer: 'red' } });
  });

  it('asks for approval first when the run requires it, then suspends with the question', async () => {
    const run = await paused(chooseColourScript, { requireToolApproval: true });
    expect(run.pendingToolCalls[0]).toMatchObject({ toolName: 'ask_user', kind: 'approval' });
    const asked = await w.client.approveToolCallGenerate({ runId: run.runId, principal: 'ops' });
    expect(asked.pendingToolCalls[0]).toMatchObject({ kind: 'suspend', suspendPayload: { options: ['red', 'green'] } });
    const done = await w.client.resumeGenerate({ answer: 'red' }, { runId: run.runId });
    expect(done.text).toBe('Done: the new theme is in the colour you chose.');
  });
});

describe('submit_plan through the client', () => {
  it('suspends with the plan, refuses a rejection without feedback, and gives the model the feedback', async () => {
    const script: Script = [
      { toolCalls: [{ toolName: 'submit_plan', args: { plan: '1. Switch.', path: 'plans/theme.md' } }] },
      { toolCalls: [{ toolName: 'submit_plan', args: { plan: '1. Back up.\n2. Switch.' } }] },
      { text: 'Approved; on it.' },
    ];
    const run = await paused(script);
    expect(run.suspendPayload).toMatchObject({
      toolName: 'submit_plan',
      payload: { plan: '1. Switch.', path: 'plans/theme.md' },
    });
    await expect(w.client.resumeGenerate({ action: 'rejected' }, { runId: run.runId })).rejects.toMatchObject({
      type: 'InvalidResumeData',
      reason:
        'resume data {"action":"rejected"} does not fit the resumeSchema of tool call call-0-0 (submit_plan): ' +
        'Invalid input (fits no alternative: [action: Invalid input: expected "approved"] or ' +
        '[feedback: Invalid input: expected string, received undefined])',
    });
    await expect(w.client.resumeGenerate({ action: 'ok' }, { runId: run.runId })).rejects.toBeInstanceOf(
      InvalidResumeDataError,
    );
    await expectStillWaiting(run.runId);

    const revised = await w.client.resumeGenerate(
      { action: 'rejected', feedback: 'Back up the theme first.' },
      { runId: run.runId },
    );
    expect(revised.pendingToolCalls[0]).toMatchObject({
      toolCallId: 'call-1-0',
      suspendPayload: { plan: '1. Back up.\n2. Switch.' },
    });
    expect(modelSaw(revised)).toEqual({
      type: 'json',
      value: { approved: false, feedback: 'Back up the theme first.' },
    });

    const done = await w.client.resumeGenerate({ action: 'approved' }, { runId: run.runId });
    expect(done.text).toBe('Approved; on it.');
    expect(done.toolResults.map((r) => ('output' in r ? r.output : r.error))).toEqual([
      { approved: false, feedback: 'Back up the theme first.' },
      { approved: true },
    ]);
  });
});

describe('over HTTP (POST /runs/:runId/resume)', () => {
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });

  /** Reads an SSE answer until the run's segment ends; the finished run stays open a while for late readers. */
  async function readToDone(res: Response): Promise<string> {
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('data: [DONE]')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    return text;
  }

  async function refused(runId: string, fingerprint: string, resumeData: JsonValue): Promise<string> {
    const res = await post(`/runs/${runId}/resume`, { fingerprint, resumeData });
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as { error: { type: string; message: string } };
    expect(error.type).toBe('InvalidResumeData');
    expect(error.message.split('\n')).toHaveLength(1);
    return error.message;
  }

  it('refuses a choice that is not an option with 409 InvalidResumeData, then takes one that is', async () => {
    const run = await paused(chooseColourScript);
    const { fingerprint } = run.pendingToolCalls[0]!;
    expect(await refused(run.runId, fingerprint, { answer: 'purple' })).toMatch(
      /\(ask_user\): answer: Invalid option: expected one of "red"\|"green"$/,
    );
    await expectStillWaiting(run.runId);
    const sse = await readToDone(
      await post(`/runs/${run.runId}/resume`, { fingerprint, resumeData: { answer: 'red' } }),
    );
    expect(sse).toContain('"type":"tool-output-available","toolCallId":"call-0-0","output":{"answer":"red"}');
    expect(sse).toMatch(/"type":"finish","finishReason":"stop"/);
  });

  it('refuses a review of a plan that is neither form, then takes an approval', async () => {
    const run = await paused(planScript);
    const { fingerprint } = run.pendingToolCalls[0]!;
    expect(await refused(run.runId, fingerprint, { action: 'rejected', feedback: ' ' })).toMatch(/must match pattern/);
    expect(await refused(run.runId, fingerprint, { approved: true })).toMatch(/fits no alternative/);
    await expectStillWaiting(run.runId);
    const sse = await readToDone(
      await post(`/runs/${run.runId}/resume`, { fingerprint, resumeData: { action: 'approved' } }),
    );
    expect(sse).toContain('"type":"tool-output-available","toolCallId":"call-0-0","output":{"approved":true}');
    expect(sse).toContain('"delta":"The plan is through review."');
    expect(sse).toMatch(/"type":"finish","finishReason":"stop"/);
  });
});

describe('web_fetch in the example support agent', () => {
  it('is an ordinary tool of the agent: a loopback address is refused before any connection, as a tool error', async () => {
    const result = await w.client.generate('support-agent', 'Read http://127.0.0.1:9/ for me', {
      model: 'scripted',
      script: [
        { toolCalls: [{ toolName: 'web_fetch', args: { url: 'http://127.0.0.1:9/' } }] },
        { text: 'I cannot read that page.' },
      ],
    });
    expect(result.steps[0]!.toolResults[0]).toMatchObject({
      toolName: 'web_fetch',
      isError: false,
      output: { isError: true, content: expect.stringMatching(/127\.0\.0\.1.*(loopback|not public)/i) },
    });
    expect(result.text).toBe('I cannot read that page.');
  });
});
