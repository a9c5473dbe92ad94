/**
 * A provider's bad minutes, through the real `@ai-sdk/openai` provider over real HTTP against a local
 * OpenAI-compatible server: rate limits are waited out as the provider asks (`Retry-After`) and the run
 * completes; a refusal that will not pass (a wrong key) is not retried, and a provider down for longer
 * than the agent's window stops retrying: either way the run waits, listed with the reason as a call of
 * its own (`@model`), for an operator to retry or fail it. While it retries, `getRun` (and `agentctl runs
 * show`) says so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { runLines } from '../../src/cli/format.js';
import { retryingRuns } from '../../src/client/runs/model-step.js';
import { errorMessage } from '../../src/errors.js';
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { startWorker, type TestWorker } from '../helpers.js';
import { startFakeOpenAI, type FakeOpenAI, type ModelAnswer } from '../openai-server.js';

/** An agent on the worker's retry window (the test worker's is one hour). */
const patientAgent = defineAgent({ id: 'patient-agent', name: 'Patient', model: 'openai/gpt-test' });
/** An agent whose own window is a few seconds, so that a provider down for longer outlasts it. */
const briefAgent = defineAgent({
  id: 'brief-agent',
  name: 'Brief',
  model: 'openai/gpt-test',
  modelRetry: { window: '4s', maximumInterval: '1s' },
});

let server: FakeOpenAI;
let w: TestWorker;
/** What the provider answers when nothing is queued. */
let otherwise: ModelAnswer | undefined;
let http: ServerType;

/** What the approval inbox lists of the runs being retried. */
async function inboxRetrying(): Promise<unknown> {
  const { port } = http.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/inbox/retrying?agentId=patient-agent`, {
    headers: { authorization: 'Bearer ops-token-0123456789abcdef' },
  });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  server = await startFakeOpenAI(() => otherwise);
  server.useInThisProcess();
  w = await startWorker([patientAgent, briefAgent], { modelRetry: { window: '1h' } });
  http = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ 'ops-token-0123456789abcdef': { id: 'ops' } }),
    agents: [patientAgent, briefAgent],
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http?.close(() => resolve()));
  await w?.stop();
  await server?.close();
});

const rateLimited = (retryAfter: string): ModelAnswer => ({
  fail: { status: 429, message: 'Rate limit reached for gpt-test', headers: { 'retry-after': retryAfter } },
});

/** The model activity's schedule-to-close timeout of a run, as its history records it (ms). */
async function modelWindowMs(runId: string): Promise<number> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  const scheduled = history.events?.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
  );
  const timeout = scheduled!.activityTaskScheduledEventAttributes!.scheduleToCloseTimeout!;
  return Number(timeout.seconds) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6);
}

it('waits out a rate limit as long as the provider asks, says so meanwhile, and completes the run', async () => {
  server.reset();
  server.answer(rateLimited('2'), rateLimited('2'), rateLimited('2'), { text: 'Here at last.' });
  const { runId } = await w.client.start('patient-agent', 'Hello?');

  // While it retries, the run says which attempt it is on, why the last failed, and when the next starts.
  await expect
    .poll(async () => (await w.client.getRun(runId)).modelRetry?.attempt ?? 0, { timeout: 30_000, interval: 200 })
    .toBeGreaterThanOrEqual(2);
  const retrying = await w.client.getRun(runId);
  expect(retrying.status).toBe('running');
  expect(retrying.modelRetry!.lastFailure).toBe(
    'the model provider of "openai/gpt-test" failed (HTTP 429 rate-limited): Rate limit reached for gpt-test',
  );
  // An operator finds every run stuck on a provider: this one, with the same attempt and failure, and no other.
  const found = await w.client.listRuns({ modelRetrying: true, agentId: 'patient-agent' });
  expect(found.map((r) => r.runId)).toEqual([runId]);
  expect(found[0]!.modelRetry!.lastFailure).toBe(retrying.modelRetry!.lastFailure);
  // So does the approval inbox, with the provider, the status and the kind, not the provider's words.
  expect(await inboxRetrying()).toEqual({
    runs: [
      expect.objectContaining({
        runId,
        agentId: 'patient-agent',
        attempt: expect.any(Number),
        lastFailure: 'the model provider of "openai/gpt-test" failed (HTTP 429 rate-limited)',
      }),
    ],
    skipped: 0,
    capped: false,
  });
  expect(runLines(retrying).join('\n')).toMatch(
    /model step: retrying, attempt \d \((next at|running)[^)]*, retried until [^)]+\)\n {2}last failure: the model provider of "openai\/gpt-test" failed \(HTTP 429 rate-limited\): Rate limit reached for gpt-test/,
  );

  const result = await w.client.result(runId);
  expect(result.text).toBe('Here at last.');
  expect(server.requests).toHaveLength(4);
  // Each attempt came no sooner than the provider asked (the policy alone would have waited 1 s, then 2 s).
  const gaps = server.requests.slice(1).map((r, i) => r.at - server.requests[i]!.at);
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1900);
  expect(await modelWindowMs(runId)).toBe(3_600_000); // the worker's window: the agent set none
  expect((await w.client.getRun(runId)).modelRetry).toBeUndefined();
  expect(await w.client.listRuns({ modelRetrying: true, agentId: 'patient-agent' })).toEqual([]);
  expect(await inboxRetrying()).toEqual({ runs: [], skipped: 0, capped: false });
});

it('leaves out a run it cannot describe, and says so, where the list is told to go on', async () => {
  const unreadable = [{ runId: '' }];
  const skipped: string[] = [];
  const skip = (run: { runId: string }, err: unknown) => void skipped.push(`${run.runId}: ${errorMessage(err)}`);
  const found = [];
  for await (const run of retryingRuns(w.client.temporal, unreadable, skip)) found.push(run);
  expect(found).toEqual([]);
  expect(skipped).toEqual([expect.stringMatching(/^: .+/)]);
  // Without `skip` (a client's listRuns), the list fails with the error.
  await expect(retryingRuns(w.client.temporal, unreadable).next()).rejects.toThrow();
});

it('does not retry a wrong key: the run waits with the reason, and a retry once it is fixed completes it', async () => {
  server.reset();
  server.answer({ fail: { status: 401, message: 'Incorrect API key provided: sk-bad***' } });
  const paused = await w.client.generate('patient-agent', 'Hello?');
  expect(paused.finishReason).toBe('suspended');
  expect(paused.pendingToolCalls).toEqual([
    expect.objectContaining({
      toolCallId: '@model-step-0',
      toolName: '@model',
      kind: 'uncertain',
      args: { model: 'openai/gpt-test', stepNumber: 0 },
      // Anyone who reads the run sees this; the provider's own words stay with operators (its failure).
      uncertainty: 'the model provider of "openai/gpt-test" refused the call (HTTP 401 unauthorized)',
    }),
  ]);
  expect(server.requests).toHaveLength(1); // not retried
  expect((await w.client.getRun(paused.runId)).status).toBe('suspended');

  // Nothing stands in for the model's answer.
  await expect(
    w.client.decide({ kind: 'resolve', runId: paused.runId, action: 'skip', output: 'Hi!', principal: 'ops' }),
  ).rejects.toThrow('@model-step-0 is a model step that waits: resolve it with retry or fail, not skip');

  server.answer({ text: 'Hello there.' }); // the key is fixed
  const retry = { kind: 'resolve', runId: paused.runId, action: 'retry', principal: 'ops' } as const;
  const done = await w.client.decide(retry, { then: 'result' });
  expect(done.finishReason).toBe('stop');
  expect(done.text).toBe('Hello there.');
  expect(done.decisions.at(-1)).toMatchObject({
    kind: 'resolve',
    toolCallId: '@model-step-0',
    principal: { id: 'ops' },
  });
  expect(server.requests).toHaveLength(2);
});

it("waits once the agent's window is over, naming the last failure; failed by an operator, the run fails", async () => {
  server.reset();
  otherwise = { fail: { status: 500, message: 'The server had an error while processing your request.' } };
  try {
    const paused = await w.client.generate('brief-agent', 'Hello?');
    expect(paused.finishReason).toBe('suspended');
    expect(paused.pendingToolCalls[0]).toMatchObject({
      toolName: '@model',
      kind: 'uncertain',
      uncertainty: expect.stringMatching(/^the model provider of "openai\/gpt-test" failed \(HTTP 500 server-error\)/),
    });
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(await modelWindowMs(paused.runId)).toBe(4000); // the agent's own window over the worker's
    const fail = { kind: 'resolve', runId: paused.runId, action: 'fail', principal: 'ops' } as const;
    await expect(
      w.client.decide({ ...fail, reason: 'the provider is down for the day' }, { then: 'result' }),
    ).rejects.toThrow(
      /the model step was marked failed by ops: the provider is down for the day \(its provider: .*HTTP 500/,
    );
  } finally {
    otherwise = undefined;
  }
});
