/**
 * A provider's outage with real processes: a worker with a wrong key and a provider that stays down make a
 * run's model step wait, not fail; the waiting run outlives a SIGKILLed worker, and `agentctl resolve
 * --retry` completes it once a worker has the right key or the provider is back. The run's approved
 * refund, decided before the outage, is kept and not run again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { startFakeOpenAI, type ChatRequest, type FakeOpenAI, type ModelAnswer } from '../openai-server.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, killHard, spawnWorker, type WorkerProcess } from '../processes.js';

/** What the provider does now: `keyed` answers only the new key, `down` answers 500 to everyone. */
let mode: 'keyed' | 'down' | 'up' = 'up';
let provider: FakeOpenAI;
const workers: WorkerProcess[] = [];

/** The model asks for a refund first; once the refund's result is in the conversation, it says it is done. */
function answer(request: ChatRequest, index: number): ModelAnswer {
  if (mode === 'down') return { fail: { status: 500, message: 'The server had an error (internal ref 7f3a).' } };
  if (mode === 'keyed' && provider.requests[index]?.auth !== 'Bearer sk-new') {
    return { fail: { status: 401, message: 'Incorrect API key provided: sk-old***' } };
  }
  const refunded = request.messages.some((m) => m.role === 'tool');
  return refunded ? { text: 'Refunded o-1.' } : { toolCalls: [{ name: 'refund', args: { orderId: 'o-1' } }] };
}

beforeAll(async () => {
  provider = await startFakeOpenAI(answer);
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await provider.close();
});

function scenario() {
  const address = temporalAddress();
  const taskQueue = `outage-${randomUUID()}`;
  return {
    async worker(apiKey: string): Promise<WorkerProcess> {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, OPENAI_API_KEY: apiKey };
      const w = await spawnWorker({ ...env, OPENAI_BASE_URL: provider.baseURL }, 'test/fixtures/outage-worker.ts');
      workers.push(w);
      return w;
    },
    ctl: (args: string[]) =>
      agentctl(['--address', address, '--namespace', 'default', '--task-queue', taskQueue, ...args]),
    client: () => AgentClient.connect({ address, namespace: 'default', taskQueue }),
  };
}

/** Starts a run, approves its refund from agentctl, and waits until its next model step waits. */
async function refundThenWait(s: ReturnType<typeof scenario>, outage: typeof mode): Promise<string> {
  mode = 'up';
  const client = await s.client();
  const paused = await client.generate('outage-agent', 'Refund order o-1.', { principal: 'clerk' });
  expect(paused.suspendPayload).toMatchObject({ toolName: 'refund', requiresApproval: true });
  const { runId } = paused;
  mode = outage;
  expect((await s.ctl(['--as', 'ops', 'approve', runId, '--latest'])).code).toBe(0);
  await waitFor('the model step to wait', async () => {
    const out = await s.ctl(['runs', 'show', runId]);
    return /@model\(.*\) {2}uncertain \(/.test(out.stdout) ? out.stdout : undefined;
  });
  await client.close();
  return runId;
}

async function resolveRetry(s: ReturnType<typeof scenario>, runId: string) {
  const resolved = await s.ctl(['--as', 'ops', 'resolve', runId, '--latest', '--retry', '--wait', '--json']);
  expect(resolved).toMatchObject({ code: 0 });
  return JSON.parse(resolved.stdout) as {
    status: string;
    result: { finishReason: string; text: string; steps: Array<{ toolResults?: Array<{ output: unknown }> }> };
  };
}

const refundsRun = (result: Awaited<ReturnType<typeof resolveRetry>>['result']) =>
  result.steps.flatMap((step) => step.toolResults ?? []).map((r) => r.output);

describe('a provider outage with real worker processes', { timeout: 180_000 }, () => {
  it('waits on a wrong key through a SIGKILL; a worker with the right key completes it on agentctl retry', async () => {
    const s = scenario();
    const old = await s.worker('sk-old');
    const runId = await refundThenWait(s, 'keyed');
    const shown = await s.ctl(['runs', 'show', runId]);
    expect(shown.stdout).toContain('the model provider of "openai/gpt-test" refused the call (HTTP 401 unauthorized)');
    expect(shown.stdout).not.toContain('sk-old');
    const refusedOnce = provider.requests.filter((r) => r.auth === 'Bearer sk-old').length;

    await killHard(old);
    await s.worker('sk-new');
    // A new worker changes nothing by itself: the step waits for a person, and the provider hears nothing.
    expect((await s.ctl(['runs', 'list', '--status', 'suspended', '--json'])).stdout).toContain(runId);
    expect(provider.requests.filter((r) => r.auth === 'Bearer sk-old')).toHaveLength(refusedOnce);

    const done = await resolveRetry(s, runId);
    expect(done).toMatchObject({ status: 'applied', result: { finishReason: 'stop', text: 'Refunded o-1.' } });
    expect(refundsRun(done.result)).toEqual([expect.objectContaining({ refunded: 'o-1' })]);
    expect(provider.requests.at(-1)?.auth).toBe('Bearer sk-new');
  });

  it('waits once a provider stays down past the window; agentctl retry completes it when it is back', async () => {
    const s = scenario();
    await s.worker('sk-new');
    const before = provider.requests.length;
    const runId = await refundThenWait(s, 'down');
    const shown = await s.ctl(['runs', 'show', runId]);
    expect(shown.stdout).toMatch(/the model provider of "openai\/gpt-test" failed \(HTTP 500 server-error\)/);
    expect(shown.stdout).not.toContain('internal ref 7f3a');
    // Retried within the window (3 s), more than once, then no more.
    const tries = provider.requests.length - before - 1;
    expect(tries).toBeGreaterThanOrEqual(2);

    mode = 'up';
    const done = await resolveRetry(s, runId);
    expect(done).toMatchObject({ status: 'applied', result: { finishReason: 'stop', text: 'Refunded o-1.' } });
    expect(refundsRun(done.result)).toHaveLength(1);
  });
});
