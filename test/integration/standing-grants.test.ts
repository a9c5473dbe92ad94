/**
 * Standing grants on the dev server: an approver makes a grant from a waiting call ("approve, and allow
 * calls like this"); later calls in its scope whose arguments meet its conditions run without waiting,
 * recorded as the creator's approval with the grant's id, and shown as granted in the stream, until its
 * uses run out or it is revoked. The attacks: a principal outside the tool's rule cannot make one, the
 * run's starter cannot grant herself, a grant written straight into the book by someone the rule keeps
 * out approves nothing, another tenant's book is out of reach, and wider arguments still wait.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  AccessDeniedError,
  defineAgent,
  InvalidInputError,
  NotAllowedError,
  RunNotFoundError,
  SelfApprovalError,
} from '../../src/index.js';
import { createGrantUpdate } from '../../src/protocol/grant-messages.js';
import { grantBookId } from '../../src/schemas/grants.js';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { people, transfers, transferScript, transferTool } from '../fixtures/bank.js';
import { startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

const grantsAgent = defineAgent({
  id: 'granting-bank',
  name: 'Bank with grants',
  model: 'scripted',
  tools: { transfer: transferTool },
  access: { decide: ['role:approver'], grants: { tools: ['transfer'], maxHours: 48 } },
});

// The bank's people, in a tenant of this file's own: the threads and the grant book it makes are its alone.
const TENANT = `grants-${randomUUID().slice(0, 8)}`;
const inTenant = (who: keyof typeof people) => ({ ...people[who].principal, tenant: TENANT });
const { ann, sam, tina, nora } = {
  ann: inTenant('ann'),
  sam: inTenant('sam'),
  tina: inTenant('tina'),
  nora: inTenant('nora'),
};
const bert = people.bert.principal;

/** Anyone may decide its calls (no rule on who): operators name themselves with agentctl --as. */
const openAgent = defineAgent({
  id: 'open-grants',
  name: 'Open grants',
  model: 'scripted',
  tools: { transfer: transferTool },
  access: { grants: { tools: ['transfer'] } },
});

let w: TestWorker;
let server: ServerType;
let base: string;
beforeAll(async () => {
  w = await startWorker([grantsAgent, openAgent]);
  const tokens = Object.fromEntries((['ann', 'nora'] as const).map((who) => [people[who].token, inTenant(who)]));
  server = await startServer(w.client, { port: 0, authenticate: bearerTokens(tokens), agents: [grantsAgent] });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.close();
  await w?.stop();
});

const send = (amount: number, threadId = 'thread-grants', principal = tina) =>
  w.client.generate('granting-bank', `send ${amount} to bob`, {
    model: 'scripted',
    script: transferScript(amount),
    resourceId: TENANT,
    threadId,
    principal,
  } as never);

const sentIn = (runId: string) => transfers.filter((t) => t.runId === runId).map((t) => t.amount);

it('makes a grant from a waiting call, and lets it approve narrower calls of its thread, its uses counted', async () => {
  const first = await send(40);
  expect(first.finishReason).toBe('suspended');
  const { toolCallId, fingerprint } = first.pendingToolCalls[0]!;
  const grant = await w.client.grants.create({
    runId: first.runId,
    toolCallId,
    fingerprint,
    scope: 'thread',
    where: ['amount<=50', 'to=bob'],
    maxUses: 2,
    reason: 'bob is our supplier',
    principal: ann,
  });
  expect(grant).toMatchObject({ toolName: 'transfer', scope: { kind: 'thread', threadId: 'thread-grants' }, uses: 0 });
  // The grant does not approve the call it was made from: Ann approves that one as usual.
  await w.client.decide({ kind: 'approve', runId: first.runId, fingerprint, principal: ann }, { then: 'result' });

  const stream = await w.client.stream('granting-bank', 'send 30 to bob', {
    model: 'scripted',
    script: transferScript(30),
    resourceId: TENANT,
    threadId: 'thread-grants',
    principal: tina,
  } as never);
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks.find((c) => c.type === 'tool-call-granted')).toMatchObject({ grantId: grant.grantId, by: 'ann' });
  const second = await w.client.result(stream.runId);
  expect(second.finishReason).toBe('stop');
  expect(sentIn(second.runId)).toEqual([30]);
  expect(second.decisions).toEqual([
    expect.objectContaining({
      kind: 'approve',
      principal: expect.objectContaining({ id: 'ann' }),
      by: `grant ${grant.grantId}`,
      reason: 'bob is our supplier',
      grant: { id: grant.grantId },
    }),
  ]);

  // Wider than the grant, or on another thread: a person decides.
  expect((await send(60)).finishReason).toBe('suspended');
  expect((await send(20, 'another-thread')).finishReason).toBe('suspended');

  // The second use, then none left.
  expect((await send(10)).finishReason).toBe('stop');
  expect((await send(10)).finishReason).toBe('suspended');
  const [kept] = await w.client.grants.list({ agentId: 'granting-bank', resourceId: TENANT, principal: ann });
  expect(kept).toMatchObject({ grantId: grant.grantId, uses: 2 });
});

it('revokes a grant: it approves nothing from then on', async () => {
  const waiting = await send(5, 'thread-revoke');
  const { toolCallId, fingerprint } = waiting.pendingToolCalls[0]!;
  const base = { runId: waiting.runId, toolCallId, fingerprint, where: ['amount<=50'] };
  const grant = await w.client.grants.create({ ...base, scope: 'resource', principal: sam });
  expect((await send(5, 'thread-revoke-2')).finishReason).toBe('stop');
  // Nora (of the tenant, no approver) neither sees nor revokes it.
  const book = { agentId: 'granting-bank', resourceId: TENANT };
  expect(await w.client.grants.list({ ...book, principal: nora })).toEqual([]);
  await expect(w.client.grants.revoke({ ...book, grantId: grant.grantId, principal: nora })).rejects.toThrow(
    AccessDeniedError,
  );
  const revoked = await w.client.grants.revoke({
    agentId: 'granting-bank',
    resourceId: TENANT,
    grantId: grant.grantId,
    principal: ann,
  });
  expect(revoked.revoked).toMatchObject({ by: { id: 'ann' } });
  expect((await send(5, 'thread-revoke-3')).finishReason).toBe('suspended');
});

it("revokes every live grant one principal made, in the caller's tenant only, and only where the caller may", async () => {
  const waiting = await send(7, 'thread-leaver');
  const { toolCallId, fingerprint } = waiting.pendingToolCalls[0]!;
  const make = (principal: typeof ann, where: string) =>
    w.client.grants.create({
      runId: waiting.runId,
      toolCallId,
      fingerprint,
      scope: 'resource',
      where: [where],
      principal,
    });
  const anns = [await make(ann, 'amount<=8'), await make(ann, 'amount<=9')];
  const sams = await make(sam, 'amount<=7');
  const live = async () =>
    (await w.client.grants.list({ agentId: 'granting-bank', resourceId: TENANT, principal: ann }))
      .filter((g) => !g.revoked && g.uses === 0)
      .map((g) => g.grantId)
      .sort();
  const book = { agentId: 'granting-bank', resourceId: TENANT };

  // Bert decides transfers too, but in another tenant: Ann's grants are out of his reach.
  const byBert = await w.client.grants.revokeMadeBy({ createdBy: 'ann', principal: bert });
  expect(byBert.revoked.filter((g) => g.resourceId === TENANT)).toEqual([]);
  // Naming the other tenant's resource is refused, not answered with "none".
  await expect(w.client.grants.revokeMadeBy({ createdBy: 'ann', ...book, principal: bert })).rejects.toThrow(
    /resourceId: "bert" is of another tenant/,
  );
  // Nora is of the tenant but may not decide transfers: she learns only how many she may not revoke.
  const byNora = await w.client.grants.revokeMadeBy({ createdBy: 'ann', ...book, principal: nora });
  expect(byNora).toEqual({ revoked: [], refused: 2, failed: [], books: 1 });
  expect(await live()).toEqual([...anns, sams].map((g) => g.grantId).sort());

  // Sam, an approver of the tenant, takes Ann's grants away (found through visibility: no book named).
  const done = await w.client.grants.revokeMadeBy({ createdBy: 'ann', agentId: 'granting-bank', principal: sam });
  expect(done).toMatchObject({ refused: 0, failed: [] });
  expect(done.revoked.map((g) => g.grantId).sort()).toEqual(anns.map((g) => g.grantId).sort());
  expect(done.revoked.every((g) => g.revoked?.by.id === 'sam')).toBe(true);
  expect(await live()).toEqual([sams.grantId]);
  // A call only Ann's grants covered waits for a person again.
  expect((await send(9, 'thread-leaver-2')).finishReason).toBe('suspended');
  // Over HTTP, in the authenticated principal's name.
  const again = await make(ann, 'amount<=6');
  const del = (query: string, token: string) =>
    fetch(`${base}/grants?${query}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  const noraSays = await del('createdBy=ann', people.nora.token);
  expect(noraSays.status).toBe(200);
  expect(await noraSays.json()).toMatchObject({ revoked: [], refused: 1, failed: [] });
  const annSays = await del(`createdBy=ann&agentId=granting-bank&resourceId=${TENANT}`, people.ann.token);
  expect(await annSays.json()).toEqual({
    revoked: [expect.objectContaining({ grantId: again.grantId })],
    refused: 0,
    failed: [],
    books: 1,
  });
  expect((await del('createdby=ann', people.ann.token)).status).toBe(400);
  expect((await del('createdBy=ann&createdBy=sam', people.ann.token)).status).toBe(400);
  expect((await del('createdBy=', people.ann.token)).status).toBe(400);
  await expect(w.client.grants.revokeMadeBy({ createdBy: 'ann', colour: 1 } as never)).rejects.toThrow(
    'grants.revokeMadeBy: unknown option "colour"',
  );
  await expect(w.client.grants.revokeMadeBy({ createdBy: '', principal: sam })).rejects.toThrow(InvalidInputError);
});

it('names a grant book that does not answer, and revokes what the others hold', async () => {
  const waiting = await send(45, 'thread-retired');
  const { toolCallId, fingerprint } = waiting.pendingToolCalls[0]!;
  const grant = await w.client.grants.create({
    runId: waiting.runId,
    toolCallId,
    fingerprint,
    scope: 'run',
    where: ['amount<=45'],
    principal: ann,
  });
  // The book of an agent whose workers are gone: on a task queue nobody polls.
  const retired = await w.client.temporal.workflow.start('agentGrants', {
    workflowId: grantBookId('retired-agent', TENANT),
    taskQueue: `nobody-${randomUUID()}`,
    args: [{ agentId: 'retired-agent', resourceId: TENANT }],
  });
  try {
    await waitFor('the retired book in visibility', async () => {
      const listed = w.client.temporal.workflow.list({ query: `WorkflowId = '${retired.workflowId}'` });
      for await (const _ of listed) return true;
      return undefined;
    });
    const done = await w.client.grants.revokeMadeBy({ createdBy: 'ann', principal: sam });
    expect(done.revoked.map((g) => g.grantId)).toEqual([grant.grantId]);
    expect(done.failed).toEqual([{ agentId: 'retired-agent', resourceId: TENANT, reason: expect.any(String) }]);
    const ctl = await agentctl([
      '--address',
      temporalAddress(),
      '--namespace',
      'default',
      '--as',
      'ops-sam',
      'grants',
      'revoke',
      '--created-by',
      'ann',
      '--resource',
      TENANT,
    ]);
    expect(ctl).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`not reached: the book of retired-agent on ${TENANT}: `),
      stderr: expect.stringContaining('0 grants not revoked, 1 books not reached'),
    });
  } finally {
    await retired.terminate('the test is done with it');
  }
});

it('refuses a grant its maker could not approve, and a grant written into the book by such a maker approves nothing', async () => {
  // Sam, an approver and a teller, started this run.
  const waiting = await send(25, 'thread-attack', sam);
  const { toolCallId, fingerprint } = waiting.pendingToolCalls[0]!;
  const base = { runId: waiting.runId, toolCallId, fingerprint, scope: 'resource' as const, where: ['amount<=1000'] };
  // Nora is no approver; Sam may not approve (or grant) the run he started; Bert is of another tenant.
  await expect(w.client.grants.create({ ...base, principal: nora })).rejects.toThrow(NotAllowedError);
  await expect(w.client.grants.create({ ...base, principal: sam })).rejects.toThrow(SelfApprovalError);
  await expect(w.client.grants.create({ ...base, principal: bert })).rejects.toThrow(RunNotFoundError);
  await expect(w.client.grants.create({ ...base, where: [], principal: ann })).rejects.toThrow(InvalidInputError);
  await expect(w.client.grants.list({ agentId: 'granting-bank', resourceId: TENANT, principal: bert })).rejects.toThrow(
    InvalidInputError,
  );

  // Straight into the book, past the client: Nora's grant, and one Sam gives himself for his own runs.
  const book = w.client.temporal.workflow.getHandle(grantBookId('granting-bank', TENANT));
  const forged = (grantId: string, createdBy: object) => ({
    grantId,
    toolName: 'transfer',
    scope: { kind: 'resource' },
    where: ['amount<=1000'],
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    createdBy,
  });
  await book.executeUpdate(createGrantUpdate, { args: [forged('forged-nora', nora) as never] });
  await book.executeUpdate(createGrantUpdate, { args: [forged('forged-sam', sam) as never] });
  const attacked = await send(900, 'thread-attack-2', sam);
  expect(attacked.finishReason).toBe('suspended');
  expect(sentIn(attacked.runId)).toEqual([]);
  // A grant that outlives what the agent allows (48 hours) approves nothing either.
  const long = { ...forged('too-long', ann), expiresAt: new Date(Date.now() + 72 * 3_600_000).toISOString() };
  await book.executeUpdate(createGrantUpdate, { args: [long as never] });
  expect((await send(900, 'thread-attack-3', sam)).finishReason).toBe('suspended');
});

it('makes, lists and revokes grants with agentctl', async () => {
  const open = (amount: number) =>
    w.client.generate('open-grants', `send ${amount}`, { model: 'scripted', script: transferScript(amount) });
  const ctl = (args: string[]) =>
    agentctl(['--address', temporalAddress(), '--namespace', 'default', '--as', 'ops-ann', 'grants', ...args]);
  const waiting = await open(15);
  const { fingerprint } = waiting.pendingToolCalls[0]!;
  const made = await ctl([
    'create',
    waiting.runId,
    '--fingerprint',
    fingerprint,
    '--scope',
    'resource',
    '--where',
    'amount<=20',
    '--uses',
    '1',
    '--json',
  ]);
  expect(made).toMatchObject({ code: 0 });
  const grant = JSON.parse(made.stdout) as { grantId: string };
  const listed = await ctl(['list', '--agent', 'open-grants']);
  expect(listed.stdout).toContain(`${grant.grantId}  transfer where amount<=20  in resource  0 of 1 uses  until `);
  expect(listed.stdout).toContain('by ops-ann');

  const granted = await open(12);
  expect(sentIn(granted.runId)).toEqual([12]);
  expect((await open(12)).finishReason).toBe('suspended');

  expect(await ctl(['revoke', grant.grantId, '--agent', 'open-grants'])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining(`revoked: ${grant.grantId}`),
  });
  // A leaver's grants, all at once.
  const kept = JSON.parse(
    (
      await ctl([
        'create',
        waiting.runId,
        '--fingerprint',
        fingerprint,
        '--scope',
        'run',
        '--where',
        'amount<=9',
        '--json',
      ])
    ).stdout,
  ) as { grantId: string };
  expect(await ctl(['revoke', '--created-by', 'ops-ann', '--agent', 'open-grants'])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining(`revoked: ${kept.grantId}`),
  });
  expect(await ctl(['revoke', '--created-by', 'ops-ann', '--agent', 'open-grants'])).toMatchObject({
    code: 0,
    stdout: '0 revoked in 1 grant book\n',
  });
  expect(await ctl(['revoke', kept.grantId, '--created-by', 'ops-ann'])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('name one grant id, or --created-by ID'),
  });
  expect(
    await ctl(['create', waiting.runId, '--fingerprint', fingerprint, '--scope', 'galaxy', '--where', 'amount<=20']),
  ).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('--scope is run, thread or resource, not "galaxy"'),
  });
});
