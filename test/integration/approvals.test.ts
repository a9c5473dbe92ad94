import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyDecidedError,
  ApprovalMismatchError,
  InvalidResumeDataError,
  RunNotFoundError,
  RunNotWaitingError,
  SelfApprovalError,
  UnknownToolCallError,
  WrongPauseKindError,
  type RunResult,
  type Script,
} from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { approveToolCallSignal, resumeToolCallSignal } from '../../src/protocol/run-messages.js';
import { AgentPendingToolCallsKey, AgentStatusKey } from '../../src/protocol/search-attributes.js';
import { guardedRuns, toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const guardedScript = (target = 'db'): Script => [
  { toolCalls: [{ toolName: 'guarded', args: { target } }] },
  { text: 'Finished.' },
];
const askScript: Script = [
  { toolCalls: [{ toolName: 'ask', args: { question: 'Which colour?' } }] },
  { text: 'Thanks.' },
];

async function pausedRun(script: Script, extra: { threadId?: string; resourceId?: string } = {}): Promise<RunResult> {
  const result = await w.client.generate('toolbox-agent', 'go', { model: 'scripted', script, ...extra });
  expect(result.finishReason).toBe('suspended');
  return result;
}

async function expectStillWaiting(runId: string, toolCallId: string): Promise<void> {
  const info = await w.client.getRun(runId);
  expect(info.status).toBe('suspended');
  expect(info.pendingToolCalls.map((p) => p.toolCallId)).toContain(toolCallId);
  expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
}

describe('approval before execution', () => {
  it('pauses before execute, shows the call everywhere, and runs it once approved', async () => {
    const runs = guardedRuns.length;
    const paused = await pausedRun(guardedScript(), { threadId: `t-${randomUUID()}`, resourceId: 'res-1' });
    const waiting = paused.suspendPayload!;
    expect(waiting).toMatchObject({
      toolCallId: 'call-0-0',
      toolName: 'guarded',
      args: { target: 'db' },
      requiresApproval: true,
    });
    expect(waiting.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(paused.pendingToolCalls).toHaveLength(1);
    expect(paused.pendingToolCalls[0]!.askedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(guardedRuns.length).toBe(runs); // nothing ran yet

    const description = await w.client.temporal.workflow.getHandle(paused.runId).describe();
    expect(description.typedSearchAttributes.get(AgentStatusKey)).toBe('suspended');
    expect(description.typedSearchAttributes.get(AgentPendingToolCallsKey)).toEqual(['call-0-0']);

    // A brand-new process: a new connection, no state, finds and decides the run.
    const fresh = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: w.taskQueue,
    });
    try {
      const found = await waitFor('the run in listSuspendedRuns', async () => {
        const list = await fresh.listSuspendedRuns({ agentId: 'toolbox-agent', resourceId: 'res-1' });
        return list.find((r) => r.runId === paused.runId);
      });
      expect(found.pendingToolCalls).toEqual(paused.pendingToolCalls);
      const done = await fresh.approveToolCallGenerate({
        runId: paused.runId,
        fingerprint: waiting.fingerprint,
        by: 'alice',
      });
      expect(done.finishReason).toBe('stop');
      expect(done.text).toBe('Finished.');
      expect(done.toolResults).toEqual([
        { toolCallId: 'call-0-0', toolName: 'guarded', isError: false, output: 'did db' },
      ]);
    } finally {
      await fresh.close();
    }
    expect(guardedRuns.filter((r) => r.startsWith(paused.runId))).toEqual([`${paused.runId}:call-0-0:db`]);

    const info = await w.client.getRun(paused.runId);
    expect(info.decisions).toEqual([
      expect.objectContaining({
        kind: 'approve',
        toolCallId: 'call-0-0',
        toolName: 'guarded',
        by: 'alice',
        accepted: true,
      }),
    ]);
  });

  it('finds suspended runs by thread and resource, and not by another', async () => {
    const threadId = `t-${randomUUID()}`;
    const paused = await pausedRun(guardedScript(), { threadId, resourceId: 'res-2' });
    const byThread = await waitFor('the run by thread', async () =>
      (await w.client.listSuspendedRuns({ threadId })).find((r) => r.runId === paused.runId),
    );
    expect(byThread).toMatchObject({ agentId: 'toolbox-agent', threadId, resourceId: 'res-2' });
    expect(await w.client.listSuspendedRuns({ threadId, resourceId: 'res-other' })).toEqual([]);
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });

  it('declines: the tool never runs, the model is told who declined and why, and the run goes on', async () => {
    const runs = guardedRuns.length;
    const paused = await pausedRun(guardedScript('prod'));
    const done = await w.client.declineToolCallGenerate({ runId: paused.runId, reason: 'not on prod', by: 'bob' });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults).toEqual([
      {
        toolCallId: 'call-0-0',
        toolName: 'guarded',
        isError: true,
        declined: true,
        error: 'The call of tool "guarded" was declined by bob: not on prod. It did not run.',
      },
    ]);
    expect(JSON.stringify(done.messages.find((m) => m.role === 'tool'))).toContain('execution-denied');
    expect(guardedRuns.length).toBe(runs);
  });

  it('pauses every call with requireToolApproval, and with a function instead, after a warning', async () => {
    const addScript: Script = [{ toolCalls: [{ toolName: 'add', args: { a: 1, b: 2 } }] }, { text: '3' }];
    const paused = await w.client.generate('toolbox-agent', 'add', {
      model: 'scripted',
      script: addScript,
      requireToolApproval: true,
    });
    expect(paused.suspendPayload).toMatchObject({ toolName: 'add', requiresApproval: true });
    expect((await w.client.approveToolCallGenerate({ runId: paused.runId })).text).toBe('3');

    const warnings: string[] = [];
    const client = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: w.taskQueue,
      warn: (m) => warnings.push(m),
    });
    try {
      const pausedToo = await client.generate('toolbox-agent', 'add', {
        model: 'scripted',
        script: addScript,
        requireToolApproval: () => false,
      });
      expect(pausedToo.suspendPayload).toMatchObject({ toolName: 'add', requiresApproval: true });
      expect(warnings).toEqual([
        expect.stringContaining(
          'a function cannot be stored with a durable run, so this run requires approval for every tool call',
        ),
      ]);
      await client.declineToolCallGenerate({ runId: pausedToo.runId });

      // Per-call hooks cannot be stored either, and hooks that do not run are no fail-safe: refused.
      const hooks = { beforeToolCall: () => ({ proceed: false, output: 0 }) };
      await expect(
        client.generate('toolbox-agent', 'add', { model: 'scripted', script: addScript, hooks } as never),
      ).rejects.toThrow(/^Invalid run options: hooks: functions cannot be stored with a durable run, so per-call/);
      expect(warnings).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('decides the calls of one step on their own, in any order, and goes on once none is pending', async () => {
    const script: Script = [
      {
        toolCalls: [
          { toolName: 'guarded', args: { target: 'one' } },
          { toolName: 'guarded', args: { target: 'two' } },
        ],
      },
      { text: 'Both handled.' },
    ];
    const paused = await pausedRun(script);
    expect(paused.pendingToolCalls.map((p) => p.toolCallId)).toEqual(['call-0-0', 'call-0-1']);
    const afterSecond = await w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-1' });
    expect(afterSecond.finishReason).toBe('suspended');
    expect(afterSecond.pendingToolCalls.map((p) => p.toolCallId)).toEqual(['call-0-0']);
    const done = await w.client.declineToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0', reason: 'no' });
    expect(done.text).toBe('Both handled.');
    expect(done.toolResults.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['call-0-0', true],
      ['call-0-1', false],
    ]);
  });
});

describe('suspension from inside a tool', () => {
  it('suspends with the payload, refuses resume data that fails resumeSchema, and resumes with valid data', async () => {
    const paused = await pausedRun(askScript);
    expect(paused.suspendPayload).toEqual({
      toolCallId: 'call-0-0',
      toolName: 'ask',
      args: { question: 'Which colour?' },
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      requiresApproval: false,
      payload: { question: 'Which colour?' },
    });
    await expect(w.client.resumeGenerate({ answer: '' }, { runId: paused.runId })).rejects.toThrow(
      InvalidResumeDataError,
    );
    await expectStillWaiting(paused.runId, 'call-0-0');

    const done = await w.client.resumeGenerate({ answer: 'green' }, { runId: paused.runId, by: 'carol' });
    expect(done.text).toBe('Thanks.');
    expect(done.toolResults).toEqual([
      { toolCallId: 'call-0-0', toolName: 'ask', isError: false, output: { answer: 'green' } },
    ]);
  });

  it('records a refusal for invalid resume data that reaches the workflow, and stays suspended', async () => {
    const paused = await pausedRun(askScript);
    const handle = w.client.temporal.workflow.getHandle(paused.runId);
    await handle.signal(resumeToolCallSignal, {
      decisionId: 'raw-1',
      toolCallId: 'call-0-0',
      resumeData: { answer: 42 },
      by: 'script',
    });
    const refusal = await waitFor('the refusal among the run’s refusals', async () =>
      (await w.client.getRun(paused.runId)).refusals.recent.find((d) => d.decisionId === 'raw-1'),
    );
    expect(refusal).toMatchObject({ accepted: false, by: 'script', refusal: { type: 'InvalidResumeData' } });
    expect(refusal.refusal!.message).toMatch(/resumeSchema of tool "ask"/);
    await waitFor('the call pending again', async () =>
      (await w.client.getRun(paused.runId)).status === 'suspended' ? true : undefined,
    );
    await expectStillWaiting(paused.runId, 'call-0-0');
    expect((await w.client.resumeGenerate({ answer: 'blue' }, { runId: paused.runId })).text).toBe('Thanks.');
  });

  it('records a resume whose tool then fails, and returns the tool error instead of waiting forever', async () => {
    const paused = await pausedRun([{ toolCalls: [{ toolName: 'askThenFail', args: {} }] }, { text: 'oh well' }]);
    const done = await w.client.resumeGenerate({ go: true }, { runId: paused.runId, by: 'dave' });
    expect(done.text).toBe('oh well');
    expect(done.toolResults[0]).toMatchObject({
      isError: true,
      error: 'Tool "askThenFail" failed: failed after resume',
    });
    expect((await w.client.getRun(paused.runId)).decisions).toEqual([
      expect.objectContaining({ kind: 'resume', by: 'dave', accepted: true }),
    ]);
  });

  it('gives the model a tool error for a suspend payload that fails suspendSchema', async () => {
    const result = await w.client.generate('toolbox-agent', 'x', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'badSuspend', args: {} }] }, { text: 'ok' }],
    });
    expect(result.finishReason).toBe('stop');
    expect(result.toolResults[0]).toMatchObject({ isError: true, error: expect.stringMatching(/suspendSchema/) });
  });
});

describe('bad decisions: a specific refusal, the run unchanged, no failed workflow task', () => {
  it('refuses at the client and writes nothing into the run (an empty fingerprint is not "no fingerprint")', async () => {
    const paused = await pausedRun(guardedScript());
    const before = await historyEventTypes(w.client, paused.runId);
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, fingerprint: '', by: 'eve' }),
    ).rejects.toBeInstanceOf(ApprovalMismatchError);
    expect(await historyEventTypes(w.client, paused.runId)).toEqual(before);
    expect((await w.client.getRun(paused.runId)).refusals).toEqual({ count: 0, recent: [] });
    await expectStillWaiting(paused.runId, 'call-0-0');
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });

  // The probe: `approveToolCallGenerate({ runId, toolCallID })` approved the run's latest call, and
  // `resumeData` given to an approval was dropped while the tool ran without it.
  it('refuses a key a decision method does not know, naming it, and decides nothing', async () => {
    const paused = await pausedRun(guardedScript());
    const before = await historyEventTypes(w.client, paused.runId);
    const typo = { runId: paused.runId, toolCallID: 'call-0-0' } as unknown as { runId: string };
    await expect(w.client.approveToolCallGenerate(typo)).rejects.toThrow(
      /unknown option "toolCallID" \(did you mean "toolCallId"\?\)/,
    );
    const withData = { runId: paused.runId, resumeData: { note: 'x' } } as unknown as { runId: string };
    await expect(w.client.approveToolCall(withData)).rejects.toThrow(/unknown option "resumeData"/);
    // Resume data an approval cannot carry is refused by name, before any run is searched.
    const onThread = { threadId: 't', approved: true, resumeData: { note: 'x' } };
    await expect(w.client.sendToolApproval(onThread)).rejects.toThrow(/resumeData has "note"/);
    await expect(w.client.listRuns({ staus: 'suspended' } as never)).rejects.toThrow(/did you mean "status"/);
    expect(await historyEventTypes(w.client, paused.runId)).toEqual(before);
    await expectStillWaiting(paused.runId, 'call-0-0');
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });

  it('refuses a signal payload too deeply nested to check, and keeps waiting', async () => {
    const paused = await pausedRun(askScript);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 3000; i++) deep = [deep];
    await w.client.temporal.workflow
      .getHandle(paused.runId)
      .signal(resumeToolCallSignal, { decisionId: 'deep', resumeData: deep } as never);
    const refusal = await waitFor('the refusal among the run’s refusals', async () =>
      (await w.client.getRun(paused.runId)).refusals.recent.find((d) => d.decisionId === 'deep'),
    );
    // Whether the signal check overflows (InvalidDecision) or the tool's resumeSchema refuses it
    // (InvalidResumeData) depends on the worker's stack; either way it is refused and recorded.
    expect(refusal).toMatchObject({
      accepted: false,
      refusal: { type: expect.stringMatching(/^(InvalidDecision|InvalidResumeData)$/) },
    });
    await expectStillWaiting(paused.runId, 'call-0-0');
    await w.client.resumeGenerate({ answer: 'fine' }, { runId: paused.runId });
  });

  it('gives one approval to one call when the model repeats a tool-call id in a step', async () => {
    const script: Script = [
      {
        toolCalls: [
          { toolName: 'guarded', args: { target: 'first' }, toolCallId: 'dup' },
          { toolName: 'guarded', args: { target: 'second' }, toolCallId: 'dup' },
        ],
      },
      { text: 'done' },
    ];
    const paused = await pausedRun(script);
    expect(paused.pendingToolCalls.map((p) => p.args)).toEqual([{ target: 'first' }]);
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'dup' });
    expect(done.toolResults).toEqual([
      { toolCallId: 'dup', toolName: 'guarded', isError: false, output: 'did first' },
      {
        toolCallId: 'dup',
        toolName: 'guarded',
        isError: true,
        error: expect.stringContaining('was used twice in one step'),
      },
    ]);
  });

  it('refuses an unknown run', async () => {
    await expect(w.client.approveToolCallGenerate({ runId: `no-such-run-${randomUUID()}` })).rejects.toThrow(
      RunNotFoundError,
    );
  });

  it('refuses a wrong tool-call id', async () => {
    const paused = await pausedRun(guardedScript());
    await expect(w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-9-9' })).rejects.toThrow(
      /the run waits on no tool call call-9-9; pending: guarded call-0-0/,
    );
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-9-9' }),
    ).rejects.toBeInstanceOf(UnknownToolCallError);
    await expectStillWaiting(paused.runId, 'call-0-0');
  });

  it('refuses a mismatched fingerprint, at the client and in the workflow', async () => {
    const paused = await pausedRun(guardedScript());
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, fingerprint: 'f'.repeat(64) }),
    ).rejects.toBeInstanceOf(ApprovalMismatchError);
    await w.client.temporal.workflow
      .getHandle(paused.runId)
      .signal(approveToolCallSignal, { decisionId: 'raw-fp', fingerprint: 'stale', by: 'cron' });
    const refusal = await waitFor('the refusal among the run’s refusals', async () =>
      (await w.client.getRun(paused.runId)).refusals.recent.find((d) => d.decisionId === 'raw-fp'),
    );
    expect(refusal).toMatchObject({ accepted: false, by: 'cron', refusal: { type: 'FingerprintMismatch' } });
    await expectStillWaiting(paused.runId, 'call-0-0');
  });

  it('uses an approval once: a second one, or an approval after a decline, is refused', async () => {
    const script: Script = [
      {
        toolCalls: [
          { toolName: 'guarded', args: { target: 'a' } },
          { toolName: 'guarded', args: { target: 'b' } },
        ],
      },
      { text: 'done' },
    ];
    const paused = await pausedRun(script);
    await w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0' });
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0' }),
    ).rejects.toBeInstanceOf(AlreadyDecidedError);
    expect((await w.client.declineToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-1' })).text).toBe('done');
    // The run has finished now; a late approval of the declined call says so.
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-1' }),
    ).rejects.toBeInstanceOf(RunNotWaitingError);
  });

  it('refuses an approval after a decline while the run still waits', async () => {
    const script: Script = [
      {
        toolCalls: [
          { toolName: 'guarded', args: { target: 'a' } },
          { toolName: 'guarded', args: { target: 'b' } },
        ],
      },
      { text: 'done' },
    ];
    const paused = await pausedRun(script);
    await w.client.declineToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0', by: 'bob' });
    await expect(w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0' })).rejects.toThrow(
      /already decided \(decline by bob/,
    );
    await expectStillWaiting(paused.runId, 'call-0-1');
  });

  it('refuses resume for an approval, and approve for a suspension', async () => {
    const approvalRun = await pausedRun(guardedScript());
    await expect(
      w.client.resumeGenerate({ answer: 'x' }, { runId: approvalRun.runId, toolCallId: 'call-0-0' }),
    ).rejects.toBeInstanceOf(WrongPauseKindError);
    await expectStillWaiting(approvalRun.runId, 'call-0-0');

    const suspended = await pausedRun(askScript);
    await expect(w.client.approveToolCallGenerate({ runId: suspended.runId })).rejects.toThrow(
      /no pending call takes approve: ask call-0-0 waits for resume/,
    );
    await expectStillWaiting(suspended.runId, 'call-0-0');
  });

  it('refuses a decision for a run that has finished', async () => {
    const result = await w.client.generate('toolbox-agent', 'x', { model: 'scripted', script: [{ text: 'done' }] });
    await expect(w.client.approveToolCallGenerate({ runId: result.runId })).rejects.toThrow(
      `Run "${result.runId}" has finished (completed); there is nothing to decide.`,
    );
  });
});

describe('who decides', () => {
  it('records the principal a client acts as, refuses its own approval of a run it started, and takes another’s', async () => {
    const alice = new AgentClient({ client: w.client.temporal, taskQueue: w.taskQueue, principal: 'alice' });
    const paused = await alice.generate('toolbox-agent', 'go', { model: 'scripted', script: guardedScript('self') });
    expect((await alice.getRun(paused.runId)).startedBy).toMatchObject({
      id: 'alice',
      via: expect.stringMatching(/^operator/),
    });
    await expect(alice.approveToolCallGenerate({ runId: paused.runId })).rejects.toThrow(SelfApprovalError);
    const done = await alice.approveToolCallGenerate({ runId: paused.runId, principal: 'bob', by: 'INC-7' });
    expect(done.finishReason).toBe('stop');
    // The client refused alice's own approval at its edge: the run records only the decision it took.
    expect(done.decisions.map((d) => [d.principal?.id, d.by, d.refusal?.type ?? 'accepted'])).toEqual([
      ['bob', 'INC-7', 'accepted'],
    ]);
    expect((await alice.getRun(paused.runId)).refusals.count).toBe(0);
  });

  it('checks a raw signal against the same policy: a claimed principal is who the trail shows, and the starter is refused', async () => {
    const alice = new AgentClient({ client: w.client.temporal, taskQueue: w.taskQueue, principal: 'alice' });
    const paused = await alice.generate('toolbox-agent', 'go', { model: 'scripted', script: guardedScript('raw') });
    const { fingerprint } = paused.pendingToolCalls[0]!;
    const handle = w.client.temporal.workflow.getHandle(paused.runId);
    // Signal rights in the namespace are decision rights: the workflow can only check the claim against the policy.
    await handle.signal(approveToolCallSignal, { decisionId: 'raw-self', fingerprint, principal: { id: 'alice' } });
    const refused = await waitFor('the refusal', async () => (await w.client.getRun(paused.runId)).refusals.recent[0]);
    expect(refused).toMatchObject({ accepted: false, principal: { id: 'alice' }, refusal: { type: 'SelfApproval' } });
    expect(await historyEventTypes(w.client, paused.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
    await handle.signal(approveToolCallSignal, { decisionId: 'raw-ok', fingerprint, principal: { id: 'carol' } });
    const done = await w.client.next(paused.runId, { decisionId: 'raw-ok' });
    expect(done.decisions.at(-1)).toMatchObject({ accepted: true, principal: { id: 'carol' } });
  });
});
