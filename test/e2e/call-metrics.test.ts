/**
 * How long calls wait for a person, as metrics: a worker process whose Runtime exports Prometheus metrics
 * shows a call that began to wait, and once approved, how long it waited, tagged by agent, kind and decision.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { spawnWorker, type WorkerProcess } from '../processes.js';

let worker: WorkerProcess | undefined;
afterAll(() => worker?.child.kill('SIGKILL'));

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

it('exports the calls that wait and how long each waited until it was decided', async () => {
  const metricsAddress = `127.0.0.1:${await freePort()}`;
  const taskQueue = `metrics-${randomUUID()}`;
  worker = await spawnWorker(
    { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: taskQueue, METRICS_ADDRESS: metricsAddress },
    'test/fixtures/metrics-worker.ts',
  );
  const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
  try {
    const paused = await client.generate('toolbox-agent', 'go', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] }, { text: 'Done.' }],
    });
    await client.decide({ kind: 'approve', runId: paused.runId, principal: 'ops' }, { then: 'result' });
  } finally {
    await client.close();
  }
  const scrape = async () => (await fetch(`http://${metricsAddress}/metrics`)).text();
  const text = await waitFor('the wait in the metrics', async () => {
    const body = await scrape();
    return /durable_agents_call_wait_seconds_count\{[^}]*decision="approve"/.test(body) ? body : undefined;
  });
  const line = (name: RegExp) => text.split('\n').find((l) => name.test(l) && l.includes(taskQueue));
  expect(line(/^durable_agents_calls_waiting\w*\{/)).toMatch(
    /agent_id="toolbox-agent".*wait_kind="approval"|wait_kind="approval".*agent_id="toolbox-agent"/,
  );
  expect(line(/^durable_agents_calls_waiting\w*\{/)).toMatch(/ 1$/);
  const count = line(/^durable_agents_call_wait_seconds_count\{/);
  // The buckets are the worker's override (test/fixtures/metrics-worker.ts), not the default's, which stop at 10.
  expect(line(/^durable_agents_call_wait_seconds_bucket\{.*le="604800"/)).toMatch(/ 1$/);
  expect(count).toContain('decision="approve"');
  expect(count).toMatch(/ 1$/);
});
