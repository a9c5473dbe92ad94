/**
 * The worker as a separate process, the way `npm run worker` starts it: configured from the
 * environment, serving runs, and shutting down gracefully on SIGTERM and SIGINT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { weatherDemoScript } from '../../examples/weather-agent.js';
import { AgentClient } from '../../src/index.js';
import { temporalAddress } from '../helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `tsx examples/worker.ts` and resolves once it says it is serving. */
async function startWorkerProcess(taskQueue: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/worker.ts'], {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (output.includes('worker: serving')) resolve();
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before serving:\n${output}`)));
  });
  return { child, output: () => output };
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('the worker process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('serves runs from the environment settings and stops cleanly on %s', async (signal) => {
    const taskQueue = `e2e-${randomUUID()}`;
    const { child, output } = await startWorkerProcess(taskQueue);
    expect(output()).toContain(`worker: serving weather-agent on task queue "${taskQueue}" in namespace "default"`);

    const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
    try {
      const result = await client.generate('weather-agent', 'Weather in Paris?', { model: 'scripted', script: weatherDemoScript });
      expect(result.text).toBe(weatherDemoScript[1]!.text);
    } finally {
      await client.close();
    }

    const exited = exitOf(child);
    child.kill(signal);
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(output()).toContain('worker: stopped');
  });
});
