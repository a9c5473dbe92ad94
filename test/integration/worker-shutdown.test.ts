/**
 * Stopping an agent worker: `AgentWorker.shutdown()` works at any time, including the moment after
 * `run()`, while the worker still checks its namespace and the SDK's own `shutdown()` would throw.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createWorker } from '../../src/worker/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { temporalAddress } from '../helpers.js';

const create = () =>
  createWorker({
    agents: [toolboxAgent],
    enableScriptedModel: true,
    tracing: false,
    notifications: false,
    address: temporalAddress(),
    namespace: 'default',
    taskQueue: `test-shutdown-${randomUUID()}`,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });

describe('AgentWorker.shutdown', () => {
  it('stops a worker asked to stop the moment it was started, and run() resolves', async () => {
    const worker = await create();
    const running = worker.run();
    expect(() => worker.shutdown()).not.toThrow();
    await expect(running).resolves.toBeUndefined();
    expect(worker.worker.getState()).toBe('STOPPED');
  });

  it('stops a worker asked to stop before run(), as soon as it runs', async () => {
    const worker = await create();
    worker.shutdown();
    await expect(worker.run()).resolves.toBeUndefined();
    expect(worker.worker.getState()).toBe('STOPPED');
  });
});
