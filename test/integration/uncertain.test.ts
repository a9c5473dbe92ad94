/**
 * One approval, one side effect: an approved tool that is not idempotent runs at most once. When its
 * execution is cut off (here: it outlives its start-to-close timeout, as when its worker dies), the
 * run does not retry blindly: it waits until someone resolves the call, by retry, skip or fail.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DecisionRefusedError, type RunResult } from '../../src/index.js';
import { approvedBooms, charges, toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

/** A charge approved, cut off, and now waiting to be resolved. */
async function uncertainCharge(amount: number): Promise<RunResult> {
  const paused = await w.client.generate('toolbox-agent', 'charge', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'charge', args: { amount } }] }, { text: 'Done.' }],
  });
  const uncertain = await w.client.approveToolCallGenerate({ runId: paused.runId, principal: 'ann' });
  expect(uncertain.finishReason).toBe('suspended');
  expect(uncertain.pendingToolCalls).toEqual([
    expect.objectContaining({
      toolName: 'charge',
      kind: 'uncertain',
      uncertainty: 'activity StartToClose timeout: its worker died or it hung after it started',
    }),
  ]);
  expect(charges.filter((k) => k.startsWith(paused.runId))).toHaveLength(1); // not retried
  return uncertain;
}

it('retries an uncertain call when told to, once', async () => {
  const run = await uncertainCharge(5);
  const done = await w.client.resolveToolCallGenerate({ runId: run.runId, action: 'retry', principal: 'ops' });
  expect(done.finishReason).toBe('stop');
  expect(done.toolResults[0]).toMatchObject({ isError: false, output: { charged: 5 } });
  expect(charges.filter((k) => k.startsWith(run.runId))).toHaveLength(2);
  expect(done.decisions.at(-1)).toMatchObject({ kind: 'resolve', principal: { id: 'ops' }, accepted: true });
});

it('skips an uncertain call with the output the operator gives, and does not run it again', async () => {
  const run = await uncertainCharge(7);
  const output = { charged: 7, confirmedBy: 'the bank' };
  const done = await w.client.resolveToolCallGenerate({ runId: run.runId, action: 'skip', output, principal: 'ops' });
  expect(done.toolResults[0]).toMatchObject({ isError: false, output });
  expect(charges.filter((k) => k.startsWith(run.runId))).toHaveLength(1);
});

it('fails an uncertain call as a tool error the model sees', async () => {
  const run = await uncertainCharge(9);
  const done = await w.client.resolveToolCallGenerate({
    runId: run.runId,
    action: 'fail',
    reason: 'the bank has no record of it',
    principal: 'ops',
  });
  expect(done.toolResults[0]).toMatchObject({
    isError: true,
    error: 'The call of tool "charge" was marked failed by ops: the bank has no record of it',
  });
  expect(await historyEventTypes(w.client, run.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
});

it('refuses a resolution for a call that is not uncertain, and one without an action', async () => {
  const run = await uncertainCharge(3);
  await expect(w.client.approveToolCallGenerate({ runId: run.runId, principal: 'ops' })).rejects.toThrow(
    /no pending call takes approve: charge call-0-0 waits for a resolution/,
  );
  await expect(w.client.sendDecision('resolve', { runId: run.runId, principal: 'ops' })).rejects.toThrow(
    DecisionRefusedError,
  );
  await w.client.resolveToolCallGenerate({ runId: run.runId, action: 'fail', principal: 'ops' });
});

it('runs an approved tool that throws once, not by the retry policy of tools that may run again', async () => {
  const before = approvedBooms.length;
  const paused = await w.client.generate('toolbox-agent', 'boom', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'approvedBoom', args: {} }] }, { text: 'Oh.' }],
  });
  const done = await w.client.approveToolCallGenerate({ runId: paused.runId, principal: 'ann' });
  expect(done.toolResults[0]).toMatchObject({ isError: true, error: expect.stringMatching(/declined by the bank/) });
  expect(approvedBooms.length - before).toBe(1);
});
