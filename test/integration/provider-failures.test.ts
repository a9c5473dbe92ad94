/**
 * A provider's bad minutes, through the real `@ai-sdk/openai` provider over real HTTP against a local
 * OpenAI-compatible server: rate limits are waited out as the provider asks (`Retry-After`) and the run
 * completes; a refusal that will not pass (a wrong key) is not retried and says why; a provider down for
 * longer than the agent's window ends the step with the last failure. While it retries, `getRun` (and
 * `agentctl runs show`) says so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { runLines } from '../../src/cli/format.js';
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

beforeAll(async () => {
  server = await startFakeOpenAI(() => otherwise);
  server.useInThisProcess();
  w = await startWorker([patientAgent, briefAgent], { modelRetry: { window: '1h' } });
});

afterAll(async () => {
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
});

it('does not retry a wrong key, and the run says why with the provider reason', async () => {
  server.reset();
  server.answer({ fail: { status: 401, message: 'Incorrect API key provided: sk-bad***' } });
  const { runId } = await w.client.start('patient-agent', 'Hello?');
  await expect(w.client.result(runId)).rejects.toThrow(
    'the model provider of "openai/gpt-test" refused the call (HTTP 401 unauthorized): Incorrect API key provided: sk-bad***',
  );
  expect(server.requests).toHaveLength(1);
});

it("ends the step once the agent's window is over, naming the last failure", async () => {
  server.reset();
  otherwise = { fail: { status: 500, message: 'The server had an error while processing your request.' } };
  try {
    const { runId } = await w.client.start('brief-agent', 'Hello?');
    const failed = await w.client.result(runId).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failed?.message).toMatch(/HTTP 500 server-error/);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(await modelWindowMs(runId)).toBe(4000); // the agent's own window over the worker's
  } finally {
    otherwise = undefined;
  }
});
