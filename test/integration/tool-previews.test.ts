/**
 * Approvals bound to a tool's preview, on the dev server: the approver is shown the preview and decides
 * on a fingerprint that covers it; an approval naming nothing, or the call without its preview, is
 * refused; where the preview changed by the time the call would run, it waits again with both shown, and
 * runs only once someone approved the preview it runs on. A preview that fails, or that changes inside the
 * execution itself, means the call does not run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson, previewFingerprint, sha256Hex, toolCallFingerprint } from '../../src/approvals/fingerprint.js';
import { ApprovalMismatchError } from '../../src/errors.js';
import { createTool, defineAgent, type RunResult } from '../../src/index.js';
import { approveToolCallSignal } from '../../src/protocol/run-messages.js';
import { verdictIn } from '../../src/client/runs/runs.js';
import { startWorker, waitFor, type TestWorker } from '../helpers.js';

/** The account the transfers draw on; a test changes it between the preview and the approval. */
const account = { balance: 100 };
const sent: number[] = [];
/** How often each call's preview was made, to change one inside its execution. */
const previews = new Map<string, number>();

const transfer = createTool({
  id: 'preview-transfer',
  description: 'Sends money',
  inputSchema: z.object({
    amount: z.number(),
    flaky: z.boolean().optional(),
    broken: z.boolean().optional(),
    confirm: z.boolean().optional(),
  }),
  requireApproval: true,
  preview: ({ amount, flaky, broken }, { runId, toolCallId }) => {
    const made = (previews.get(`${runId}/${toolCallId}`) ?? 0) + 1;
    previews.set(`${runId}/${toolCallId}`, made);
    if (broken) throw new Error('the ledger is closed');
    // A flaky preview: as before on its first two makings (before the wait, after the approval), not on the third.
    const drift = flaky && made >= 3 ? 1 : 0;
    return { balance: account.balance, after: account.balance - amount - drift };
  },
  // `confirm`: the tool asks its caller first (it suspends), and sends once resumed.
  execute: async ({ amount, confirm }, { suspend, resumeData }) => {
    if (confirm && resumeData === undefined) return suspend({ question: `send ${amount}?` });
    sent.push(amount);
    account.balance -= amount;
    return { sent: amount, balance: account.balance };
  },
});

const agent = defineAgent({
  id: 'preview-agent',
  name: 'Transfers with previews',
  model: 'scripted',
  tools: { transfer },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([agent]);
});
afterAll(async () => {
  await w?.stop();
});

const send = (args: { amount: number; flaky?: boolean; broken?: boolean; confirm?: boolean }): Promise<RunResult> =>
  w.client.generate('preview-agent', 'send', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'transfer', args }] }, { text: 'Done.' }],
  });

const hashOf = (value: unknown) => sha256Hex(canonicalJson(value as never));

it('shows the preview, binds the approval to it, and waits again where it changed, with both shown', async () => {
  account.balance = 100;
  const run = await send({ amount: 30 });
  expect(run.finishReason).toBe('suspended');
  const [waiting] = run.pendingToolCalls;
  const shown = { balance: 100, after: 70 };
  expect(waiting!.preview).toEqual({ value: shown, hash: hashOf(shown) });
  // The fingerprint covers the preview: the model's call alone has another.
  const { args, toolName } = run.toolCalls[0]!;
  const own = toolCallFingerprint({ runId: run.runId, toolCallId: waiting!.toolCallId, toolName, args });
  expect(waiting!.fingerprint).toBe(previewFingerprint(own, hashOf(shown)));
  const { toolCallId, fingerprint } = waiting!;

  // An approval that names no fingerprint, or the call's own, is refused by the client and by the run.
  await expect(w.client.decide({ kind: 'approve', runId: run.runId, toolCallId })).rejects.toThrow(
    ApprovalMismatchError,
  );
  await expect(w.client.decide({ kind: 'approve', runId: run.runId, toolCallId, fingerprint: own })).rejects.toThrow(
    ApprovalMismatchError,
  );
  const handle = w.client.temporal.workflow.getHandle(run.runId);
  await handle.signal(approveToolCallSignal, { decisionId: 'raw', toolCallId });
  const raw = await waitFor('the raw approval refused', async () => verdictIn(await w.client.getRun(run.runId), 'raw'));
  expect(raw).toMatchObject({ accepted: false, refusal: { type: 'FingerprintMismatch' } });

  // The account changes while the call waits: the approval of what was shown does not run the call.
  account.balance = 50;
  await w.client.decide({ kind: 'approve', runId: run.runId, toolCallId, fingerprint, principal: 'ops' });
  const again = await waitFor('the call to wait again', async () => {
    const now = await w.client.getRun(run.runId);
    const call = now.pendingToolCalls[0];
    return call?.preview?.previous ? call : undefined;
  });
  const changed = { balance: 50, after: 20 };
  expect(again.preview).toEqual({
    value: changed,
    hash: hashOf(changed),
    previous: { value: shown, hash: hashOf(shown) },
  });
  expect(again.fingerprint).toBe(previewFingerprint(own, hashOf(changed)));
  expect(sent).toEqual([]);
  // The first approval is in the trail; the stale fingerprint no longer approves anything.
  await expect(
    w.client.decide({ kind: 'approve', runId: run.runId, toolCallId, fingerprint, principal: 'ops' }),
  ).rejects.toThrow(ApprovalMismatchError);

  const done = await w.client.decide(
    { kind: 'approve', runId: run.runId, toolCallId, fingerprint: again.fingerprint, principal: 'ops' },
    { then: 'result' },
  );
  expect(done.toolResults[0]).toMatchObject({ isError: false, output: { sent: 30, balance: 20 } });
  expect(sent).toEqual([30]);
  expect(done.decisions.filter((d) => d.accepted).map((d) => d.kind)).toEqual(['approve', 'approve']);
});

it('shows the preview in the stream, with the fingerprint that covers it', async () => {
  account.balance = 100;
  const run = await send({ amount: 10 });
  const chunks = [];
  for await (const chunk of w.client.subscribe(run.runId)) {
    chunks.push(chunk);
    if (chunk.type === 'finish') break;
  }
  expect(chunks.find((c) => c.type === 'tool-call-approval')).toMatchObject({
    preview: { balance: 100, after: 90 },
    fingerprint: run.pendingToolCalls[0]!.fingerprint,
  });
  await w.client.decide({ kind: 'decline', runId: run.runId, reason: 'not today' });
});

it('does not run a call whose preview cannot be made, or changes inside its execution', async () => {
  account.balance = 100;
  const broken = await send({ amount: 5, broken: true });
  expect(broken.finishReason).toBe('stop');
  expect(broken.pendingToolCalls).toEqual([]);
  expect(broken.toolResults[0]).toMatchObject({ isError: true });
  expect(JSON.stringify(broken.toolResults[0])).toContain(
    'the preview of tool \\"transfer\\" failed: the ledger is closed; the call did not run',
  );

  const flaky = await send({ amount: 5, flaky: true });
  const { toolCallId, fingerprint } = flaky.pendingToolCalls[0]!;
  const done = await w.client.decide(
    { kind: 'approve', runId: flaky.runId, toolCallId, fingerprint, principal: 'ops' },
    { then: 'result' },
  );
  expect(done.toolResults[0]).toMatchObject({ isError: true });
  expect(JSON.stringify(done.toolResults[0])).toMatch(/changed after it was approved .*the call did not run/);
  expect(sent).toEqual([30]);
});

it('does not run a resumed call whose preview changed while it was suspended', async () => {
  account.balance = 100;
  const run = await send({ amount: 7, confirm: true });
  const { toolCallId, fingerprint } = run.pendingToolCalls[0]!;
  const asked = await w.client.decide(
    { kind: 'approve', runId: run.runId, toolCallId, fingerprint, principal: 'ops' },
    { then: 'result' },
  );
  expect(asked.pendingToolCalls[0]).toMatchObject({ kind: 'suspend', suspendPayload: { question: 'send 7?' } });
  account.balance = 60;
  const done = await w.client.decide(
    {
      kind: 'resume',
      runId: run.runId,
      toolCallId,
      fingerprint: asked.pendingToolCalls[0]!.fingerprint,
      resumeData: 'yes',
    },
    { then: 'result' },
  );
  expect(JSON.stringify(done.toolResults[0])).toMatch(/changed after it was approved .*the call did not run/);
  expect(sent).toEqual([30]);
});

it('leaves calls with a preview out of batch approvals: each is approved having read it', async () => {
  account.balance = 100;
  const run = await send({ amount: 3 });
  const outcome = await w.client.decideBatch(
    { kind: 'approve', toolName: 'transfer', agentId: 'preview-agent', where: ['amount<=5'], principal: 'ops' },
    { dryRun: true },
  );
  expect(outcome.decided).toEqual([]);
  expect(outcome.refused).toContainEqual(
    expect.objectContaining({
      runId: run.runId,
      type: 'NotAllowed',
      message: expect.stringContaining('shows a preview'),
    }),
  );
  await w.client.decide({ kind: 'decline', runId: run.runId });
});
