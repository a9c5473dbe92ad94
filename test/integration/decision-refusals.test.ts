/**
 * What a refused decision costs a run and tells its sender (issue 25, items 1, 2 and 9). An outside
 * probe destroyed another tenant's waiting run with refused decisions: each was written into the run,
 * re-saving its whole decision record, until the run hit Temporal's history limit and was terminated.
 * Here: a refusal decided at the edge writes nothing; whoever may not read a run learns nothing of it;
 * what the run records of raw refused signals is bounded; and the loser of a race is told it lost.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult } from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { RUN_MEMO_KEY } from '../../src/schemas/run-result.js';
import { bankAgent, people, transfers, transferScript } from '../fixtures/bank.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
let server: ServerType;
let base: string;

type Person = keyof typeof people;

beforeAll(async () => {
  w = await startWorker([bankAgent]);
  const tokens = Object.fromEntries(Object.values(people).map((p) => [p.token, p.principal]));
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens(tokens),
    agents: [bankAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

function call(method: string, path: string, who: Person, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${people[who].token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function pausedTransfer(who: Person = 'tina'): Promise<RunResult> {
  const res = await call('POST', '/agents/bank-agent/generate', who, {
    prompt: 'send 10 to bob',
    options: { script: transferScript(10) },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResult;
}

/** The run's whole history, in bytes as Temporal stores it. */
async function historyBytes(runId: string): Promise<number> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  return proto.temporal.api.history.v1.History.encode(history).finish().length;
}

/** How many times the run wrote its memo (the waiting calls and the trail) since it started. */
async function memoWrites(runId: string): Promise<number> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).filter((e) =>
    Object.keys(e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {}).includes(RUN_MEMO_KEY),
  ).length;
}

describe('a refusal at the edge', () => {
  it('writes nothing into the run, whoever sends it and however often, and the run stays approvable', async () => {
    const paused = await pausedTransfer();
    const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
    const before = await historyEventTypes(w.client, paused.runId);
    const long = 'x'.repeat(2000);
    const attempts: Array<[Person, Record<string, unknown>]> = [
      ['bert', { toolCallId, fingerprint: 'wrong', by: long, reason: long }], // another tenant
      ['tina', { toolCallId, fingerprint, by: long }], // the starter: no right to decide
      ['nora', { toolCallId, fingerprint }], // may not read the run
      ['ann', { toolCallId, fingerprint: 'wrong', by: long }], // an approver, wrong fingerprint
      ['ann', { toolCallId: 'call-9-9', fingerprint }], // an approver, no such call
    ];
    for (let round = 0; round < 10; round++) {
      for (const [who, body] of attempts) {
        const res = await call('POST', `/runs/${paused.runId}/approve`, who, body);
        expect(res.status).toBeGreaterThanOrEqual(400);
        await res.body?.cancel();
      }
    }
    expect(await historyEventTypes(w.client, paused.runId)).toEqual(before);
    expect((await w.client.getRun(paused.runId)).refusals.count).toBe(0);
    const approved = await call('POST', `/runs/${paused.runId}/approve`, 'ann', { toolCallId, fingerprint });
    expect(approved.status).toBe(200);
    await approved.text();
    await waitFor('the transfer', async () => (transfers.some((t) => t.runId === paused.runId) ? true : undefined));
  });

  it('tells whoever may not read the run nothing of it: another tenant gets what a missing run gets', async () => {
    const paused = await pausedTransfer();
    const { toolCallId } = paused.pendingToolCalls[0]!;
    const missing = `run-${crypto.randomUUID()}`;
    for (const [path, body] of [
      ['approve', { toolCallId, fingerprint: 'wrong' }],
      ['approve', { toolCallId: 'call-9-9', fingerprint: 'f' }],
      ['resume', { toolCallId, fingerprint: 'f', resumeData: { x: 1 } }],
      ['decline', { fingerprint: 'f' }],
    ] as const) {
      const theirs = await call('POST', `/runs/${paused.runId}/${path}`, 'bert', body);
      const none = await call('POST', `/runs/${missing}/${path}`, 'bert', body);
      expect(theirs.status).toBe(404);
      const text = await theirs.text();
      expect(text.replaceAll(paused.runId, 'RUN')).toBe((await none.text()).replaceAll(missing, 'RUN'));
      expect(text).not.toMatch(/bob|transfer|call-0-0|fingerprint [0-9a-f]{8}/);
    }
    for (const path of [`/runs/${paused.runId}`, `/runs/${paused.runId}/stream`]) {
      expect((await call('GET', path, 'bert')).status).toBe(404);
    }
    // Within the tenant, a principal the read rule keeps out is refused, and told nothing of the calls.
    const nora = await call('POST', `/runs/${paused.runId}/approve`, 'nora', {
      toolCallId: 'call-9-9',
      fingerprint: 'f',
    });
    expect(nora.status).toBe(403);
    expect(await nora.text()).not.toMatch(/call-0-0|transfer/);
    const { fingerprint } = paused.pendingToolCalls[0]!;
    expect((await call('POST', `/runs/${paused.runId}/decline`, 'ann', { fingerprint })).status).toBe(200);
  });
});

describe('raw refused signals', () => {
  // Anyone with signal rights in the namespace can send these (they are decision rights: SPEC 12); the
  // run must still record them at a bounded cost, never its whole decision record again per signal.
  it('cost the run a bounded amount each, and never rewrite its memo', async () => {
    const paused = await pausedTransfer();
    const handle = w.client.temporal.workflow.getHandle(paused.runId);
    const long = 'y'.repeat(2000);
    const writesBefore = await memoWrites(paused.runId);
    const bytesBefore = await historyBytes(paused.runId);
    const count = 60;
    for (let i = 0; i < count; i++) {
      await handle.signal('approveToolCall', {
        decisionId: `raw-${i}`,
        fingerprint: 'wrong',
        by: long,
        reason: long,
        principal: { id: 'bert', tenant: 'globex', name: 'n'.repeat(256) },
      });
    }
    await waitFor('every refusal counted', async () =>
      (await w.client.getRun(paused.runId)).refusals.count === count ? true : undefined,
    );
    const info = await w.client.getRun(paused.runId);
    expect(info.refusals.recent).toHaveLength(5);
    expect(info.refusals.recent.every((r) => (r.by?.length ?? 0) <= 200 && (r.reason?.length ?? 0) <= 200)).toBe(true);
    expect(info.decisions).toEqual([]);
    expect(await memoWrites(paused.runId)).toBe(writesBefore);
    // Each signal is about 4.5 KB in the history by itself; what the run adds to it is a few KB more.
    const perSignal = ((await historyBytes(paused.runId)) - bytesBefore) / count;
    expect(perSignal).toBeLessThan(16_000);
    expect(info.status).toBe('suspended');
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, principal: people.ann.principal });
    expect(done.finishReason).toBe('stop');
  });
});

describe('a race between two approvers', () => {
  it('tells the loser it lost (409 AlreadyDecided), never the winner’s stream', async () => {
    for (let round = 0; round < 3; round++) {
      const paused = await pausedTransfer();
      const { toolCallId, fingerprint } = paused.pendingToolCalls[0]!;
      const [a, b] = await Promise.all(
        (['ann', 'sam'] as const).map((who) =>
          call('POST', `/runs/${paused.runId}/approve`, who, { toolCallId, fingerprint }),
        ),
      );
      const statuses = [a!.status, b!.status].sort();
      expect(statuses).toEqual([200, 409]);
      const loser = a!.status === 409 ? a! : b!;
      const { error } = (await loser.json()) as { error: { type: string } };
      expect(error.type).toBe('AlreadyDecided');
      await (a!.status === 200 ? a! : b!).text();
      expect(transfers.filter((t) => t.runId === paused.runId)).toHaveLength(1);
    }
  });
});
