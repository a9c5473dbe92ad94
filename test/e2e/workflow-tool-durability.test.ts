/**
 * A workflow tool that waits for a person, with real processes (#29): the user's workflow suspends, the
 * worker is SIGKILLed (or the dev server restarts on its SQLite file), and `agentctl resume` from another
 * process reaches the workflow on a new worker, which runs again with the answer.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress } from '../helpers.js';
import { agentctl, devServer, killHard, spawnWorker, type WorkerProcess } from '../processes.js';
import { refundCall } from '../fixtures/workflow-tool-agent.js';

let dir: string;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'workflow-tool-durability-'));
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

function scenario(address: string) {
  const taskQueue = `wf-durable-${randomUUID()}`;
  return {
    async worker(): Promise<WorkerProcess> {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue };
      const w = await spawnWorker(env, 'test/fixtures/workflow-tool-worker.ts');
      workers.push(w);
      return w;
    },
    ctl: (args: string[]) =>
      agentctl(['--address', address, '--namespace', 'default', '--task-queue', taskQueue, ...args]),
    client: () => AgentClient.connect({ address, namespace: 'default', taskQueue }),
  };
}

/** Starts a refund whose workflow suspends, and checks that the run waits on it. */
async function suspendedRefund(s: ReturnType<typeof scenario>, orderId: string): Promise<string> {
  const client = await s.client();
  try {
    const paused = await client.generate('refund-flow-agent', `refund ${orderId}`, {
      model: 'scripted',
      script: [{ toolCalls: [refundCall(orderId, 30)] }, { text: 'Refunded.' }],
    });
    expect(paused).toMatchObject({
      finishReason: 'suspended',
      suspendPayload: { toolName: 'workflow-refund', payload: { orderId, ask: `Refund 30 on ${orderId}?` } },
    });
    return paused.runId;
  } finally {
    await client.close();
  }
}

async function resumeFromAgentctl(s: ReturnType<typeof scenario>, runId: string, orderId: string): Promise<void> {
  // Data the workflow's resume schema refuses is refused by agentctl, and the call still waits.
  const refused = await s.ctl(['--as', 'ops', 'resume', runId, '--latest', '--data', '{"ok":"yes"}']);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/resume data/i);
  const resumed = await s.ctl([
    '--as',
    'ops',
    'resume',
    runId,
    '--latest',
    '--data',
    '{"ok":true}',
    '--wait',
    '--json',
  ]);
  expect(resumed.code).toBe(0);
  expect(JSON.parse(resumed.stdout)).toMatchObject({
    status: 'applied',
    result: {
      finishReason: 'stop',
      text: 'Refunded.',
      toolResults: [{ toolName: 'workflow-refund', output: { orderId, refunded: 30 } }],
    },
  });
}

describe('a suspended workflow tool with real processes', { timeout: 180_000 }, () => {
  it('is resumed from agentctl after its worker was SIGKILLed, on a new worker', async () => {
    const s = scenario(temporalAddress());
    const first = await s.worker();
    const runId = await suspendedRefund(s, 'o-41');
    await killHard(first);

    const listed = await s.ctl(['runs', 'list', '--status', 'suspended', '--json']);
    const run = (JSON.parse(listed.stdout) as Array<{ runId: string; pendingToolCalls: unknown[] }>).find(
      (r) => r.runId === runId,
    );
    expect(run?.pendingToolCalls).toEqual([
      expect.objectContaining({ toolName: 'workflow-refund', kind: 'suspend', suspendPayload: expect.any(Object) }),
    ]);

    await s.worker();
    await resumeFromAgentctl(s, runId, 'o-41');
  });

  it('is resumed after the dev server restarts on its SQLite file', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const serverDir = join(dir, 'server');
    const serverArgs = ['--port', String(port), '--dir', serverDir, '--db', join(serverDir, 'temporal.db')];
    const address = await devServer(['start', ...serverArgs, '--headless']);
    try {
      const s = scenario(address);
      const worker = await s.worker();
      const runId = await suspendedRefund(s, 'o-42');
      await killHard(worker);

      await devServer(['stop', ...serverArgs]);
      expect(await devServer(['start', ...serverArgs, '--headless'])).toBe(address);

      await s.worker();
      await resumeFromAgentctl(s, runId, 'o-42');
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await devServer(['stop', ...serverArgs]);
    }
  });
});
