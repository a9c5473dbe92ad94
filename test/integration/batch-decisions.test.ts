/**
 * Batch decisions by predicate (#30 item 5): "approve every waiting refund of at most 50 for tenant acme".
 * A dry run lists what would be decided and what refused; each call is then decided on its own, checked
 * as if alone; a principal outside the rule decides nothing; another tenant's runs are never looked at.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, InvalidInputError } from '../../src/index.js';
import { serveWithTokens, startWorker, type TestWorker } from '../helpers.js';

const refunds: string[] = [];
const batchAgent = defineAgent({
  id: 'batch-refunds',
  name: 'Refunds',
  instructions: 'You refund.',
  model: 'scripted',
  tools: {
    refund: createTool({
      id: 'refund',
      description: 'Refunds an amount to an address',
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      requireApproval: true,
      execute: ({ amount, to }) => {
        refunds.push(`${amount}:${to}`);
        return { refunded: amount };
      },
    }),
  },
  access: { decide: ['role:approver'] },
});

/** Its calls show no account number: a batch may neither show one nor be asked about one. */
const vaultAgent = defineAgent({
  id: 'batch-vault',
  name: 'Vault',
  instructions: 'You move money.',
  model: 'scripted',
  tools: {
    transfer: createTool({
      id: 'transfer',
      description: 'Sends money from an account',
      inputSchema: z.object({ amount: z.number(), account: z.string() }),
      requireApproval: true,
      execute: ({ amount }) => ({ sent: amount }),
      transform: { display: { input: (args) => ({ ...(args as object), account: '****' }) } },
    }),
  },
});

/** Delegates refunds: a refund waits in the sub-agent's run and, qualified, on this one. */
const batchBoss = defineAgent({
  id: 'batch-boss',
  name: 'Boss',
  instructions: 'You delegate.',
  model: 'scripted',
  agents: { refunds: batchAgent },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([batchAgent, vaultAgent, batchBoss]);
});
afterAll(async () => w?.stop());

const acme = `acme-${randomUUID().slice(0, 8)}`;
const globex = `globex-${randomUUID().slice(0, 8)}`;
const ann = { id: 'ann', roles: ['approver'], tenant: acme };
const clerk = { id: 'carl', tenant: acme };

async function waitingRefund(resourceId: string, amount: number, to: string, startedBy: object) {
  const run = await w.client.generate('batch-refunds', `refund ${amount}`, {
    model: 'scripted',
    resourceId,
    principal: startedBy,
    script: [{ toolCalls: [{ toolName: 'refund', args: { amount, to } }] }, { text: `Refunded ${amount}.` }],
  } as never);
  expect(run.finishReason).toBe('suspended');
  return run.runId;
}

describe('batch decisions by predicate', () => {
  it('decides each waiting call the predicate takes on its own, and lists what it refused and why', async () => {
    const small = await waitingRefund(acme, 20, 'a@example.com', clerk);
    const large = await waitingRefund(acme, 80, 'b@example.com', clerk);
    const own = await waitingRefund(acme, 30, 'c@example.com', { id: 'ann', tenant: acme });
    const elsewhere = await waitingRefund(globex, 10, 'd@example.com', { id: 'gus', tenant: globex });
    const batch = {
      kind: 'approve',
      toolName: 'refund',
      agentId: 'batch-refunds',
      where: ['amount<=50', { path: 'to', op: 'suffix', value: '@example.com' }],
      principal: ann,
    } as const;

    const dry = await w.client.decideBatch(batch, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.decided.map((c) => c.runId)).toEqual([small]);
    expect(dry.refused).toEqual([
      expect.objectContaining({ runId: own, type: 'SelfApproval', args: { amount: 30, to: 'c@example.com' } }),
    ]);
    // Another tenant's run is not looked at, nor named.
    expect(JSON.stringify(dry)).not.toContain(elsewhere);
    expect((await w.client.getRun(small)).status).toBe('suspended');

    const done = await w.client.decideBatch(batch);
    expect(done.decided).toEqual([expect.objectContaining({ runId: small, decisionId: expect.any(String) })]);
    expect(done.refused.map((c) => [c.runId, c.type])).toEqual([[own, 'SelfApproval']]);
    expect((await w.client.result(small)).text).toBe('Refunded 20.');
    for (const runId of [large, own, elsewhere]) expect((await w.client.getRun(runId)).status).toBe('suspended');
    expect(refunds).toEqual(['20:a@example.com']);
  });

  // The attacker: one who may not decide these calls, and one of another tenant who names this one.
  it('decides nothing for a principal outside the rule, and refuses a tenant it does not belong to', async () => {
    const runId = await waitingRefund(acme, 5, 'e@example.com', clerk);
    const outsider = await w.client.decideBatch({
      kind: 'approve',
      toolName: 'refund',
      agentId: 'batch-refunds',
      where: ['amount<=50'],
      principal: { id: 'mallory', tenant: acme },
    });
    expect(outsider.decided).toEqual([]);
    expect(outsider.refused.find((c) => c.runId === runId)).toMatchObject({ type: 'NotAllowed' });
    expect((await w.client.getRun(runId)).status).toBe('suspended');

    const gus = { id: 'gus', roles: ['approver'], tenant: globex };
    const across = w.client.decideBatch({
      kind: 'approve',
      toolName: 'refund',
      where: ['amount<=50'],
      resourceId: acme,
      principal: gus,
    });
    await expect(across).rejects.toThrow(InvalidInputError);
    await expect(across).rejects.toThrow(/decides in tenant globex-.* only/);
    const own = await w.client.decideBatch(
      { kind: 'approve', toolName: 'refund', where: ['amount<=50'], principal: gus },
      { dryRun: true },
    );
    expect([...own.decided, ...own.refused].map((c) => c.runId)).not.toContain(runId);
    // An operator of every tenant is confined to none: naming one narrows the batch to it.
    const root = { id: 'root', roles: ['approver'], tenant: '*' };
    const all = await w.client.decideBatch(
      { kind: 'approve', toolName: 'refund', where: ['to=e@example.com'], resourceId: acme, principal: root },
      { dryRun: true },
    );
    expect(all.decided.map((c) => c.runId)).toEqual([runId]);
  });

  it('refuses a request it cannot read, naming what is wrong', async () => {
    const batch = { kind: 'approve', toolName: 'refund', principal: ann } as const;
    await expect(w.client.decideBatch({ ...batch, where: ['amount<=lots'] })).rejects.toThrow(
      /where: .*lte compares numbers, not "lots"/,
    );
    await expect(
      w.client.decideBatch({ ...batch, where: [{ path: 'amount', op: 'lte', value: 5, or: 1 } as never] }),
    ).rejects.toThrow(/unknown option "or"|unknown key "or"/);
    await expect(w.client.decideBatch({ ...batch, where: ['amount<=5'], reason: 'no' })).rejects.toThrow(
      /reason: goes with decline only/,
    );
    // Every waiting refund is not a batch anyone sends by leaving the conditions out.
    await expect(w.client.decideBatch(batch)).rejects.toThrow(/where: names at least one condition/);
    await expect(w.client.decideBatch({ ...batch, tool: 'refund' } as never)).rejects.toThrow(/"tool"/);
    await expect(w.client.decideBatch(batch, { dry: true } as never)).rejects.toThrow(/"dry"/);
  });
  it("is served over HTTP in the authenticated principal's name: 200 with the outcome, 400 for what it cannot read", async () => {
    const runId = await waitingRefund(acme, 7, 'h@example.com', clerk);
    const people = {
      ann: { token: 'batch-ann-token-00000001', principal: ann },
      mallory: { token: 'batch-mallory-token-0002', principal: { id: 'mallory', tenant: acme } },
    };
    const server = await serveWithTokens(w.client, people, [batchAgent]);
    const post = (who: keyof typeof people, body: object) =>
      fetch(`${server.base}/batch-decisions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${people[who].token}` },
        body: JSON.stringify(body),
      });
    try {
      const batch = { kind: 'approve', toolName: 'refund', agentId: 'batch-refunds', where: ['to=h@example.com'] };
      const outsider = await post('mallory', batch);
      expect(outsider.status).toBe(200);
      expect(await outsider.json()).toMatchObject({ decided: [], refused: [{ runId, type: 'NotAllowed' }] });
      // Who decides is whom the request authenticates: a body that names someone is refused.
      expect((await post('mallory', { ...batch, principal: ann })).status).toBe(400);
      expect((await post('ann', { ...batch, where: ['to is h'] })).status).toBe(400);
      const dry = await post('ann', { ...batch, dryRun: true });
      expect(await dry.json()).toMatchObject({ dryRun: true, decided: [{ runId }], refused: [] });
      expect((await w.client.getRun(runId)).status).toBe('suspended');
      const done = await post('ann', batch);
      expect(await done.json()).toMatchObject({ dryRun: false, decided: [{ runId, decisionId: expect.any(String) }] });
      expect((await w.client.result(runId)).text).toBe('Refunded 7.');
    } finally {
      await server.close();
    }
  });
  // The oracle: with conditions on the raw arguments, dry runs would tell an account number digit by digit.
  it('reads and shows the arguments as the agent displays them, never what the display hides', async () => {
    const run = await w.client.generate('batch-vault', 'send 5', {
      model: 'scripted',
      resourceId: acme,
      principal: clerk,
      script: [{ toolCalls: [{ toolName: 'transfer', args: { amount: 5, account: '123456' } }] }, { text: 'Sent.' }],
    } as never);
    const batch = { kind: 'approve', toolName: 'transfer', agentId: 'batch-vault', principal: ann } as const;
    for (const probe of ['account=123456', 'account^=1', 'account$=6']) {
      const dry = await w.client.decideBatch({ ...batch, where: [probe] }, { dryRun: true });
      expect(dry.decided).toEqual([]);
    }
    const shown = await w.client.decideBatch({ ...batch, where: ['amount=5'] }, { dryRun: true });
    expect(shown.decided).toEqual([
      expect.objectContaining({ runId: run.runId, args: { amount: 5, account: '****' } }),
    ]);
    expect(JSON.stringify(shown)).not.toContain('123456');
  });
  it('decides a call below a supervisor once, on the top run, by its qualified id', async () => {
    const paused = await w.client.generate('batch-boss', 'refund s', {
      model: 'scripted',
      resourceId: acme,
      principal: clerk,
      script: [{ toolCalls: [{ toolName: 'agent-refunds', args: { prompt: 'refund' } }] }, { text: 'Boss done.' }],
      subAgentOptions: {
        refunds: {
          script: [{ toolCalls: [{ toolName: 'refund', args: { amount: 3, to: 's@example.com' } }] }, { text: 'ok' }],
        },
      },
    } as never);
    expect(paused.finishReason).toBe('suspended');
    const done = await w.client.decideBatch({
      kind: 'approve',
      toolName: 'refund',
      where: ['to=s@example.com'],
      principal: ann,
    });
    expect(done.refused).toEqual([]);
    expect(done.decided).toEqual([expect.objectContaining({ runId: paused.runId, toolCallId: 'call-0-0/call-0-0' })]);
    expect((await w.client.result(paused.runId)).text).toBe('Boss done.');
  });
});
