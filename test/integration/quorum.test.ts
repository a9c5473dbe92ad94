/**
 * Quorum on the dev server: a transfer that needs two approvers waits after the first, shows who approved
 * so far, refuses the same approver twice (from the client, and as a raw signal that bypasses it), and runs
 * once, after the second.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AlreadyDecidedError, defineAgent } from '../../src/index.js';
import { approveToolCallSignal } from '../../src/protocol/run-messages.js';
import { verdictIn } from '../../src/client/runs/runs.js';
import { people, transfers, transferScript, transferTool } from '../fixtures/bank.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

/** Transfers need two of the approvers. */
const twoKeysAgent = defineAgent({
  id: 'two-keys-bank',
  name: 'Two keys',
  model: 'scripted',
  tools: { transfer: transferTool },
  defaultOptions: { requireToolApproval: true },
  access: { decide: ['role:approver'], tools: { transfer: { quorum: 2 } } },
});

/** Two of anyone (no rule on who decides), for operators who name themselves with agentctl --as. */
const twoOfAnyoneAgent = defineAgent({
  id: 'two-of-anyone',
  name: 'Two of anyone',
  model: 'scripted',
  tools: { transfer: transferTool },
  defaultOptions: { requireToolApproval: true },
  access: { quorum: 2 },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([twoKeysAgent, twoOfAnyoneAgent]);
});
afterAll(async () => {
  await w?.stop();
});

it('waits for two distinct approvers, counting each once, and runs the call once', async () => {
  const { ann, sam, tina } = { ann: people.ann.principal, sam: people.sam.principal, tina: people.tina.principal };
  const paused = await w.client.generate('two-keys-bank', 'send 500 to bob', {
    model: 'scripted',
    script: transferScript(500),
    resourceId: 'acme',
    principal: tina,
  } as never);
  expect(paused.finishReason).toBe('suspended');
  const { runId } = paused;
  const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
  expect(paused.pendingToolCalls[0]!.quorum).toEqual({ required: 2, approvals: [] });

  // The stream from the first approval ends at once, the call still waiting with the approval counted.
  const chunks = [];
  for await (const chunk of await w.client.decide({ kind: 'approve', runId, fingerprint, principal: ann })) {
    chunks.push(chunk);
  }
  expect(chunks.map((c) => c.type)).toEqual(['start', 'finish']);
  expect(chunks[1]).toMatchObject({ finishReason: 'suspended', pendingToolCalls: [{ quorum: { required: 2 } }] });
  const counted = await w.client.getRun(runId);
  const first = { decisionId: counted.pendingToolCalls[0]!.quorum!.approvals[0]!.decisionId };
  expect(counted.status).toBe('suspended');
  expect(counted.pendingToolCalls[0]!.quorum!.approvals).toEqual([
    { principal: 'ann', decisionId: first.decisionId, at: expect.any(String) },
  ]);
  expect(verdictIn(counted, first.decisionId)).toMatchObject({ accepted: true, quorum: { count: 1, of: 2 } });
  expect(transfers.filter((t) => t.runId === runId)).toEqual([]);

  // Ann again: the client refuses at once, and a raw signal that bypasses it is refused by the run.
  await expect(
    w.client.decide({ kind: 'approve', runId, fingerprint, principal: ann }, { then: 'sent' }),
  ).rejects.toThrow(AlreadyDecidedError);
  const raw = { decisionId: 'ann-again', toolCallId, fingerprint, principal: ann };
  await w.client.temporal.workflow.getHandle(runId).signal(approveToolCallSignal, raw);
  const refused = await waitFor('the raw approval refused', async () =>
    verdictIn(await w.client.getRun(runId), 'ann-again'),
  );
  expect(refused).toMatchObject({ accepted: false, refusal: { type: 'AlreadyDecided' } });
  expect((await w.client.getRun(runId)).status).toBe('suspended');
  expect(transfers.filter((t) => t.runId === runId)).toEqual([]);

  const done = await w.client.decide({ kind: 'approve', runId, fingerprint, principal: sam }, { then: 'result' });
  expect(done.finishReason).toBe('stop');
  expect(transfers.filter((t) => t.runId === runId)).toEqual([{ runId, to: 'bob', amount: 500 }]);
  expect(done.decisions.map((d) => [d.principal?.id, d.quorum])).toEqual([
    ['ann', { count: 1, of: 2 }],
    ['sam', { count: 2, of: 2 }],
  ]);
  expect((await w.client.receipts({ runId })).map((r) => r.principal?.id)).toEqual(['ann', 'sam']);
  expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
});

it('takes approvals from agentctl, which shows who approved so far and refuses the same operator twice', async () => {
  const paused = await w.client.generate('two-of-anyone', 'send 7 to bob', {
    model: 'scripted',
    script: transferScript(7),
  });
  const { runId } = paused;
  const { fingerprint } = paused.pendingToolCalls[0]!;
  const ctl = (as: string, extra: string[] = []) =>
    agentctl([
      '--address',
      temporalAddress(),
      '--namespace',
      'default',
      '--as',
      as,
      'approve',
      runId,
      '--fingerprint',
      fingerprint,
      ...extra,
    ]);
  const first = await ctl('ops-ann', ['--wait']);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('awaits approval (needs 2 approvers, each once: 1 of 2 so far (ops-ann))');
  expect(await ctl('ops-ann')).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/AlreadyDecided.*"ops-ann" approved it already \(1 of 2 so far\)/),
  });
  const second = await ctl('ops-bob', ['--wait']);
  expect(second.code).toBe(0);
  expect(transfers.filter((t) => t.runId === runId)).toEqual([{ runId, to: 'bob', amount: 7 }]);
});
