/**
 * Deciding by thread (Mastra's `sendToolApproval`): the run of a thread that waits for an approval is
 * found by thread, through visibility, and decided with the same checks as by run id; where several
 * calls wait, the caller must name one. Also over HTTP, where the fingerprint is required.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, NothingPendingError, UnknownToolCallError, WrongPauseKindError } from '../../src/index.js';
import { startServer } from '../../src/server/index.js';
import { bankAgent, transferScript } from '../fixtures/bank.js';

// Their own tenant: other files read the threads of theirs, on the same dev server.
const people = {
  tina: { token: 'ta-teller-token-000001', principal: { id: 'tina', roles: ['teller'], tenant: 'initech' } },
  ann: { token: 'ta-approver-token-0002', principal: { id: 'ann', roles: ['approver'], tenant: 'initech' } },
  bert: { token: 'ta-other-tenant-00003', principal: { id: 'bert', roles: ['approver'], tenant: 'globex' } },
  nora: { token: 'ta-no-roles-token-004', principal: { id: 'nora', tenant: 'initech' } },
};
import { guardedRuns, guardedTool } from '../fixtures/agents.js';
import { serveWithTokens, startWorker, waitFor, type TestWorker } from '../helpers.js';

const approverAgent = defineAgent({
  id: 'thread-approver',
  name: 'Approver',
  model: 'scripted',
  tools: { guarded: guardedTool },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([approverAgent, bankAgent]);
});
afterAll(async () => w?.stop());

const guardedScript = (target: string) => [
  { toolCalls: [{ toolName: 'guarded', args: { target } }] },
  { text: `did ${target}` },
];

/** Pauses a run of the thread on `guarded`, and waits until visibility lists it. */
async function pausedOn(thread: { threadId: string; resourceId: string }, target: string) {
  const paused = await w.client.generate('thread-approver', `do ${target}`, {
    ...thread,
    script: guardedScript(target),
  });
  expect(paused.finishReason).toBe('suspended');
  await waitFor('the run listed as waiting', async () =>
    (await w.client.listSuspendedRuns(thread)).some((r) => r.runId === paused.runId) ? true : undefined,
  );
  return paused;
}

describe('deciding by thread', () => {
  it('finds the waiting run of a thread; with two, refuses until one is named, then decides it', async () => {
    const thread = { threadId: `t-${Date.now()}`, resourceId: 'initech' };
    await expect(w.client.sendToolApprovalGenerate({ ...thread, approved: true })).rejects.toThrow(NothingPendingError);
    const first = await pausedOn(thread, 'alpha');
    const second = await pausedOn(thread, 'beta');

    await expect(w.client.sendToolApprovalGenerate({ ...thread, approved: true })).rejects.toThrow(
      UnknownToolCallError,
    );
    await expect(w.client.sendToolApprovalGenerate({ ...thread, approved: true })).rejects.toThrow(
      /2 calls wait for approval on thread "t-\d+" \(guarded call-0-0 in run .+; guarded call-0-0 in run .+\); name one by its fingerprint/,
    );
    expect(guardedRuns.filter((r) => r.startsWith(first.runId) || r.startsWith(second.runId))).toEqual([]);

    const done = await w.client.sendToolApprovalGenerate({
      ...thread,
      fingerprint: first.suspendPayload!.fingerprint,
      approved: true,
    });
    expect(done).toMatchObject({ runId: first.runId, text: 'did alpha' });

    await waitFor('one run left waiting', async () =>
      (await w.client.listSuspendedRuns(thread)).length === 1 ? true : undefined,
    );
    const declined = await w.client.sendToolApprovalGenerate({ ...thread, approved: false, reason: 'not beta' });
    expect(declined.runId).toBe(second.runId);
    expect(declined.toolResults[0]).toMatchObject({ declined: true, error: expect.stringContaining('not beta') });
    expect(guardedRuns.filter((r) => r.startsWith(second.runId))).toEqual([]);
  });

  it('works through the agent handle, and over HTTP with the fingerprint', async () => {
    const thread = { threadId: `h-${Date.now()}`, resourceId: 'initech' };
    const viaHandle = await pausedOn(thread, 'gamma');
    const handle = w.client.getAgent('thread-approver');
    // Mastra's resumeData: data for the tool is refused by name (never dropped), and nothing is decided.
    await expect(
      handle.sendToolApproval({ ...thread, approved: true, resumeData: { approved: true, note: 'hello' } }),
    ).rejects.toThrow(WrongPauseKindError);
    await expect(
      handle.sendToolApproval({ ...thread, approved: true, resumeData: { approved: true, note: 'hello' } }),
    ).rejects.toThrow(/resumeData has "note", but an approval carries no data to the tool/);
    expect((await w.client.getRun(viaHandle.runId)).pendingToolCalls).toHaveLength(1);
    const stream = await handle.sendToolApproval({ ...thread, approved: true, resumeData: { approved: true } });
    expect(stream.runId).toBe(viaHandle.runId);
    expect((await w.client.next(viaHandle.runId)).text).toBe('did gamma');

    const viaHttp = await pausedOn(thread, 'delta');
    const server: ServerType = await startServer(w.client, { port: 0, agents: [approverAgent] });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const post = (body: unknown) =>
        fetch(`${base}/threads/${thread.threadId}/tool-approval`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const noFingerprint = await post({ resourceId: 'initech', approved: true });
      expect(noFingerprint.status).toBe(400);
      const wrong = await post({ resourceId: 'initech', approved: true, fingerprint: 'not-it' });
      expect(wrong.status).toBe(409);
      const ok = await post({
        resourceId: 'initech',
        approved: true,
        fingerprint: viaHttp.suspendPayload!.fingerprint,
      });
      expect(ok.status).toBe(200);
      await ok.text();
      expect((await w.client.next(viaHttp.runId)).text).toBe('did delta');

      // Data for the tool, which an approval does not carry: refused with the reason, the call still waits.
      const withData = await pausedOn(thread, 'epsilon');
      const fingerprint = withData.suspendPayload!.fingerprint;
      const refused = await post({ resourceId: 'initech', approved: true, fingerprint, resumeData: { note: 'hi' } });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({
        error: { type: 'WrongPauseKind', message: expect.stringContaining('resumeData has "note"') },
      });
      const declined = await post({
        resourceId: 'initech',
        approved: false,
        fingerprint,
        resumeData: { approved: false, reason: 'not epsilon' },
      });
      expect(declined.status).toBe(200);
      await declined.text();
      expect((await w.client.next(withData.runId)).toolResults[0]).toMatchObject({
        declined: true,
        error: expect.stringContaining('not epsilon'),
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('deciding by thread over HTTP, with authentication', () => {
  type Person = keyof typeof people;
  let server: Awaited<ReturnType<typeof serveWithTokens>>;
  let base: string;
  beforeAll(async () => {
    server = await serveWithTokens(w.client, people, [bankAgent]);
    base = server.base;
  });
  afterAll(async () => server?.close());

  const post = async (who: Person, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${people[who].token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  it('keeps tenants apart, names no call to whoever may not read the run, and holds the decide rule', async () => {
    const threadId = `pay-${Date.now()}`;
    const started = await post('tina', '/agents/bank-agent/generate', {
      prompt: 'send 7 to bob',
      options: { threadId, script: transferScript(7) },
    });
    expect(started.status).toBe(200);
    const { runId, suspendPayload } = JSON.parse(started.text) as {
      runId: string;
      suspendPayload: { fingerprint: string };
    };
    const thread = { threadId, resourceId: 'initech' };
    await waitFor('the run listed as waiting', async () =>
      (await w.client.listSuspendedRuns(thread)).some((r) => r.runId === runId) ? true : undefined,
    );
    const decision = { fingerprint: suspendPayload.fingerprint, approved: true };
    const path = `/threads/${threadId}/tool-approval`;

    // Another tenant: its own resource has no such run; naming ours is refused outright.
    const other = await post('bert', path, decision);
    expect(other.status).toBe(409);
    expect(other.text).toMatch(/NothingPending/);
    expect(other.text).not.toContain(runId);
    expect((await post('bert', path, { ...decision, resourceId: 'initech' })).status).toBe(403);
    // Same tenant, but may not read the run (nor decide its call): nothing is named to her.
    const nora = await post('nora', path, decision);
    expect(nora.status).toBe(409);
    expect(nora.text).not.toContain(runId);
    // The starter may read the run, but the agent lets only approvers decide.
    const tina = await post('tina', path, decision);
    expect(tina.status).toBe(403);
    expect(tina.text).toMatch(/may not decide/);
    // An approver (the agent's deciders may read the runs they decide) finds the call and decides it.
    const ann = await post('ann', path, decision);
    expect(ann.status).toBe(200);
    expect((await w.client.next(runId)).finishReason).toBe('stop');
  });
});
