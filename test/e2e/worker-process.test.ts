/**
 * The worker as a separate process, the way `npm run worker` starts it: configured from the
 * environment, serving runs, and shutting down gracefully on SIGTERM and SIGINT.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { weatherDemoScript } from '../../examples/weather-agent.js';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress } from '../helpers.js';
import { spawnWorker } from '../processes.js';

describe('the worker process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'serves runs from the environment settings and stops cleanly on %s',
    async (signal) => {
      const taskQueue = `e2e-${randomUUID()}`;
      const worker = await spawnWorker({ TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: taskQueue });
      try {
        expect(worker.output()).toContain(
          `worker: serving weather-agent, records-agent, supervisor, ops-agent, support-agent on task queue "${taskQueue}" in namespace "default"`,
        );
        const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
        try {
          const result = await client.generate('weather-agent', 'Weather in Paris?', {
            model: 'scripted',
            script: weatherDemoScript,
          });
          expect(result.text).toBe(weatherDemoScript[1]!.text);
        } finally {
          await client.close();
        }
        worker.child.kill(signal);
        expect(await worker.exited).toEqual({ code: 0, signal: null });
        expect(worker.output()).toContain('worker: stopped');
      } finally {
        worker.child.kill('SIGKILL');
      }
    },
  );

  it('survives a tool that calls suspend() without awaiting it: the call suspends, the process lives on', async () => {
    const taskQueue = `e2e-${randomUUID()}`;
    const env = { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: taskQueue };
    const worker = await spawnWorker(env, 'test/fixtures/toolbox-worker.ts');
    const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
    try {
      const paused = await client.generate('toolbox-agent', 'go', {
        model: 'scripted',
        script: [{ toolCalls: [{ toolName: 'carelessSuspend', args: {} }] }, { text: 'Done.' }],
      });
      expect(paused.finishReason).toBe('suspended');
      expect(worker.child.exitCode).toBeNull();
      const done = await client.resumeGenerate({ answer: 'yes' }, { runId: paused.runId });
      expect(done.toolResults[0]).toMatchObject({ isError: false, output: { answer: 'yes' } });
      expect(worker.child.exitCode).toBeNull();
      expect(worker.output()).not.toMatch(/unhandled/i);
    } finally {
      await client.close();
      worker.child.kill('SIGKILL');
    }
  });
});
