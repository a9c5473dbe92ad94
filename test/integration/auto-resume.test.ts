/**
 * Auto-resume (`autoResumeSuspendedTools`): the next message on a thread whose run waits resumes the
 * waiting call with data the model extracts from it; a message that does not give valid data is
 * refused with what is missing, and the call still waits. Approvals are decided by a message only
 * where the agent opts in, and only by someone allowed to approve.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  askUserTool,
  defineAgent,
  InvalidResumeDataError,
  NotAllowedError,
  RunFailedError,
  SelfApprovalError,
  type RunResult,
  type ScriptStep,
} from '../../src/index.js';
import { askTool, guardedTool, modelCalls, spyModels } from '../fixtures/agents.js';
import { serveWithTokens, startWorker, waitFor, type TestWorker } from '../helpers.js';

const autoAgent = defineAgent({
  id: 'auto-chat',
  name: 'Auto',
  instructions: 'You book tables.',
  model: 'spy/auto',
  tools: { ask: askTool, ask_user: askUserTool },
  defaultOptions: { autoResumeSuspendedTools: true },
});

/** Its runs are read and decided by support staff only. */
const guardedAutoAgent = defineAgent({
  ...autoAgent,
  id: 'auto-support',
  access: { read: ['role:support'], decide: ['role:support'] },
});

/** The same agent without auto-resume: a message may still turn it on for itself. */
const manualAgent = defineAgent({ ...autoAgent, id: 'auto-manual', defaultOptions: {} });

/** Approvals by message: only because the agent says so, and only by an approver. */
const approvalsAgent = defineAgent({
  id: 'auto-approvals',
  name: 'Approvals',
  instructions: 'You act.',
  model: 'spy/auto',
  tools: { guarded: guardedTool },
  access: { decide: ['role:approver'] },
  defaultOptions: { autoResumeSuspendedTools: true, autoResumeApprovals: true },
});
const noApprovalsAgent = defineAgent({
  ...approvalsAgent,
  id: 'auto-no-approvals',
  defaultOptions: { autoResumeSuspendedTools: true },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([autoAgent, guardedAutoAgent, manualAgent, approvalsAgent, noApprovalsAgent], {
    models: spyModels,
  });
});
afterAll(async () => w?.stop());

const resource = 'auto-resume-tests';
const newThread = () => ({ threadId: `t-${randomUUID()}`, resourceId: resource });
/** The extraction model's answer, as the scripted model plays it. */
const extracted = (resumeData: unknown, missing: string | null = null): ScriptStep[] => [
  { text: JSON.stringify({ resumeData, missing }) },
];
const askFor = (question: string): ScriptStep => ({ toolCalls: [{ toolName: 'ask', args: { question } }] });

/** A run of `agentId` on the thread that waits on its first call. */
async function waiting(agentId: string, thread: object, first: ScriptStep, then = 'Done.'): Promise<RunResult> {
  const result = await w.client.generate(agentId, 'Book a table.', { ...thread, script: [first, { text: then }] });
  expect(result.finishReason).toBe('suspended');
  return result;
}

async function runsOn(thread: { threadId: string }): Promise<string[]> {
  return (await w.client.listRuns({ threadId: thread.threadId })).map((r) => r.runId);
}

describe('auto-resume from the next message', () => {
  it('resumes the waiting call with the data the model extracts, in the same run', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'), 'Booked for 4.');
    const before = modelCalls.length;
    const second = await w.client.generate('auto-chat', 'We are four of us', {
      ...thread,
      script: extracted({ answer: '4' }),
    });
    expect(second.runId).toBe(first.runId);
    expect(second.finishReason).toBe('stop');
    expect(second.text).toBe('Booked for 4.');
    expect(second.steps[0]!.toolResults[0]).toMatchObject({ toolName: 'ask', output: { answer: '4' } });
    // The model was asked for the call's data, with its question and its resumeSchema as the answer's shape.
    const asked = modelCalls.slice(before)[0]!;
    expect(JSON.stringify(asked.prompt)).toContain('For how many?');
    expect(JSON.stringify(asked.prompt)).toContain('We are four of us');
    expect(asked.responseFormat).toMatchObject({ type: 'json' });
    expect(JSON.stringify(asked.responseFormat)).toContain('answer');
    // No second run: the message went to the waiting one, and its trail says how it was decided.
    expect(await runsOn(thread)).toEqual([first.runId]);
    const run = await w.client.getRun(first.runId);
    expect(run.decisions.at(-1)).toMatchObject({ kind: 'resume', accepted: true, by: expect.stringContaining('auto') });
    const read = await waitFor('the turn recorded whole', async () => {
      const messages = await w.client.getThreadMessages(thread);
      return messages.messages.at(-1)?.role === 'assistant' && messages.messageCount === 4 ? messages : undefined;
    });
    expect(read.turnCount).toBe(1);
  });

  it('refuses a message without the data, saying what is missing; the call still waits and nothing is lost', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'), 'Booked for 2.');
    const refused = w.client.generate('auto-chat', 'Somewhere quiet, please', {
      ...thread,
      script: extracted(null, 'How many people are coming?'),
    });
    await expect(refused).rejects.toThrow(InvalidResumeDataError);
    await expect(refused).rejects.toThrow(/How many people are coming\?/);
    const run = await w.client.getRun(first.runId);
    expect(run.status).toBe('suspended');
    expect(run.pendingToolCalls.map((c) => c.toolName)).toEqual(['ask']);
    // The run's refusals keep the message and why nothing was decided.
    expect(run.refusals.recent.at(-1)).toMatchObject({
      accepted: false,
      reason: 'Somewhere quiet, please',
      refusal: { type: 'InvalidResumeData', message: expect.stringContaining('How many people') },
    });
    // The next message that gives it resumes the call.
    const done = await w.client.generate('auto-chat', 'Two', { ...thread, script: extracted({ answer: '2' }) });
    expect(done).toMatchObject({ runId: first.runId, text: 'Booked for 2.' });
  });

  it('refuses data that does not fit the schema instead of guessing (ask_user with options)', async () => {
    const thread = newThread();
    const question = { question: 'Which room?', options: ['garden', 'hall'] };
    const first = await waiting('auto-chat', thread, { toolCalls: [{ toolName: 'ask_user', args: question }] });
    const refused = w.client.generate('auto-chat', 'The purple one', {
      ...thread,
      script: extracted({ answer: 'purple' }),
    });
    await expect(refused).rejects.toThrow(/\{"answer":"purple"\} does not fit .*"garden"\|"hall"/);
    expect((await w.client.getRun(first.runId)).status).toBe('suspended');
    const done = await w.client.generate('auto-chat', 'The garden', {
      ...thread,
      script: extracted({ answer: 'garden' }),
    });
    expect(done.steps[0]!.toolResults[0]).toMatchObject({ toolName: 'ask_user', output: { answer: 'garden' } });
  });

  it('a model that answers no object of the shape resumes nothing', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'));
    const refused = w.client.generate('auto-chat', 'four', { ...thread, script: [{ text: 'four, I think' }] });
    await expect(refused).rejects.toThrow(InvalidResumeDataError);
    expect((await w.client.getRun(first.runId)).pendingToolCalls).toHaveLength(1);
  });

  it('streams the resumed run from where it stood', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'), 'Booked for 3.');
    const stream = await w.client.stream('auto-chat', 'three', { ...thread, script: extracted({ answer: '3' }) });
    expect(stream.runId).toBe(first.runId);
    const types: string[] = [];
    for await (const chunk of stream) types.push(chunk.type);
    expect(types).toContain('tool-result');
    expect(types.at(-1)).toBe('finish');
    expect(types).not.toContain('tool-call-suspended');
  });

  it('is off unless the agent or the message turns it on; a message may turn it off', async () => {
    const thread = newThread();
    const first = await waiting('auto-manual', thread, askFor('For how many?'), 'Booked.');
    // Off: the message starts a new run on the thread, and the call still waits.
    const other = await w.client.generate('auto-manual', 'Hello', { ...thread, script: [{ text: 'Hi.' }] });
    expect(other.runId).not.toBe(first.runId);
    expect((await w.client.getRun(first.runId)).status).toBe('suspended');
    // On for this message.
    const resumed = await w.client.generate('auto-manual', 'five', {
      ...thread,
      autoResumeSuspendedTools: true,
      script: extracted({ answer: '5' }),
    });
    expect(resumed.runId).toBe(first.runId);

    const onThread = newThread();
    const waitingRun = await waiting('auto-chat', onThread, askFor('For how many?'));
    const skipped = await w.client.generate('auto-chat', 'Something else', {
      ...onThread,
      autoResumeSuspendedTools: false,
      script: [{ text: 'Sure.' }],
    });
    expect(skipped.runId).not.toBe(waitingRun.runId);
    expect((await w.client.getRun(waitingRun.runId)).status).toBe('suspended');
  });

  it('keeps threads of other resources apart: a message there starts its own run', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'));
    const elsewhere = await w.client.generate('auto-chat', 'four', {
      threadId: thread.threadId,
      resourceId: 'another-resource',
      script: [{ text: 'Hello stranger.' }],
    });
    expect(elsewhere.runId).not.toBe(first.runId);
    expect((await w.client.getRun(first.runId)).status).toBe('suspended');
  });

  it('refuses an oversized message before anything is sent', async () => {
    const thread = newThread();
    const first = await waiting('auto-chat', thread, askFor('For how many?'));
    const huge = 'x'.repeat(16_001);
    await expect(
      w.client.generate('auto-chat', huge, { ...thread, script: extracted({ answer: '1' }) }),
    ).rejects.toThrow(/16001 characters; auto-resume reads at most 16000/);
    const run = await w.client.getRun(first.runId);
    expect(run.status).toBe('suspended');
    expect(run.decisions).toHaveLength(0);
  });
});

describe('approvals by message', () => {
  const call: ScriptStep = { toolCalls: [{ toolName: 'guarded', args: { target: 'prod' } }] };

  it('are never decided by a message unless the agent opts in', async () => {
    const thread = newThread();
    const first = await w.client.generate('auto-no-approvals', 'Deploy.', {
      ...thread,
      principal: { id: 'alice' },
      script: [call, { text: 'Deployed.' }],
    });
    const other = await w.client.generate('auto-no-approvals', 'yes, go ahead', {
      ...thread,
      principal: { id: 'bob', roles: ['approver'] },
      script: [{ text: 'A new run.' }],
    });
    expect(other.runId).not.toBe(first.runId);
    expect((await w.client.getRun(first.runId)).pendingToolCalls[0]).toMatchObject({ kind: 'approval' });
  });

  it('a run may not turn approvals by message on for itself', async () => {
    await expect(
      w.client.generate('auto-no-approvals', 'Deploy.', {
        ...newThread(),
        autoResumeApprovals: true,
        script: [{ text: 'x' }],
      }),
    ).rejects.toThrow(RunFailedError);
  });

  it('where the agent opts in, only a principal allowed to approve decides by message', async () => {
    const thread = newThread();
    const first = await w.client.generate('auto-approvals', 'Deploy.', {
      ...thread,
      principal: { id: 'alice' },
      script: [call, { text: 'Deployed.' }],
    });
    expect(first.pendingToolCalls[0]).toMatchObject({ kind: 'approval' });
    const byStarter = w.client.generate('auto-approvals', 'yes, approve it', {
      ...thread,
      principal: { id: 'alice' },
      script: extracted({ approved: true }),
    });
    const refusal = await byStarter.catch((e: unknown) => e);
    expect(refusal instanceof NotAllowedError || refusal instanceof SelfApprovalError).toBe(true);
    expect((await w.client.getRun(first.runId)).status).toBe('suspended');

    const byApprover = await w.client.generate('auto-approvals', 'yes, approve it', {
      ...thread,
      principal: { id: 'bob', roles: ['approver'] },
      script: extracted({ approved: true }),
    });
    expect(byApprover).toMatchObject({ runId: first.runId, text: 'Deployed.' });
    expect((await w.client.getRun(first.runId)).decisions.at(-1)).toMatchObject({
      kind: 'approve',
      accepted: true,
      principal: { id: 'bob' },
    });
  });
});

describe('auto-resume over HTTP, with authentication', () => {
  const people = {
    tina: { token: 'ar-starter-token-00001', principal: { id: 'tina', roles: ['support'], tenant: 'hooli' } },
    nora: { token: 'ar-same-tenant-000002', principal: { id: 'nora', tenant: 'hooli' } },
    bert: { token: 'ar-other-tenant-00003', principal: { id: 'bert', tenant: 'piper' } },
  };
  let server: Awaited<ReturnType<typeof serveWithTokens>>;
  let base: string;
  beforeAll(async () => {
    server = await serveWithTokens(w.client, people, [guardedAutoAgent]);
    base = server.base;
  });
  afterAll(async () => server?.close());

  const generate = async (who: keyof typeof people, prompt: string, options: object) => {
    const res = await fetch(`${base}/agents/auto-support/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${people[who].token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, options }),
    });
    return { status: res.status, body: (await res.json()) as { runId?: string; text?: string; error?: unknown } };
  };

  it('resumes the caller’s own waiting run; another tenant or a reader it is not reaches nothing', async () => {
    const threadId = `t-${randomUUID()}`;
    const first = await generate('tina', 'Book a table.', {
      threadId,
      script: [askFor('For how many?'), { text: 'Booked for 6.' }],
    });
    expect(first.status).toBe(200);
    // Another tenant's thread of the same id is another thread: a new run of its own.
    const bert = await generate('bert', 'six', { threadId, script: [{ text: 'Hello.' }] });
    expect(bert.status).toBe(200);
    expect(bert.body.runId).not.toBe(first.body.runId);
    // Same tenant, but not allowed to read tina's thread: refused before anything reaches her run.
    const nora = await generate('nora', 'six', { threadId, script: extracted({ answer: '6' }) });
    expect(nora.status).toBe(403);
    expect((await w.client.getRun(first.body.runId!)).status).toBe('suspended');
    // A message without the data: 409, saying what is missing.
    const vague = await generate('tina', 'soon', { threadId, script: extracted(null, 'How many people?') });
    expect(vague.status).toBe(409);
    expect(JSON.stringify(vague.body)).toMatch(/InvalidResumeData.*How many people\?/);
    const done = await generate('tina', 'six of us', { threadId, script: extracted({ answer: '6' }) });
    expect(done).toMatchObject({ status: 200, body: { runId: first.body.runId, text: 'Booked for 6.' } });
  });
});
