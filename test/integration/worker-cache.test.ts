/**
 * The worker's workflow cache: createWorker bounds it by default, and a run waiting for approval that
 * was evicted from it (its decision then replays the history) completes like any other.
 */
import { randomUUID } from 'node:crypto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { type Script } from '../../src/index.js';
import { createWorker, DEFAULT_MAX_CACHED_WORKFLOWS } from '../../src/worker/index.js';
import { AgentClient } from '../../src/client/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, temporalAddress } from '../helpers.js';

const guardedScript: Script = [{ toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] }, { text: 'Finished.' }];

/** A worker; `null` gives `workerOptions: { maxCachedWorkflows: undefined }`, as an unset variable would. */
async function worker(maxCachedWorkflows?: number | null, more: { conversationCacheBytes?: number } = {}) {
  const taskQueue = `test-cache-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const created = await createWorker({
    agents: [toolboxAgent],
    enableScriptedModel: true,
    tracing: false,
    notifications: false,
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...more,
    ...(maxCachedWorkflows !== undefined
      ? { workerOptions: { maxCachedWorkflows: maxCachedWorkflows ?? undefined } }
      : {}),
  });
  const running = created.run();
  const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
  return {
    worker: created.worker,
    client,
    async stop() {
      created.shutdown();
      await running;
      await connection.close();
      await client.close();
    },
  };
}

function workflowTaskSlots(w: Worker): number | undefined {
  const supplier = w.options.tuner.workflowTaskSlotSupplier;
  return supplier.type === 'fixed-size' ? supplier.numSlots : undefined;
}

describe('the workflow cache', () => {
  it('is bounded by createWorker by default, and workerOptions.maxCachedWorkflows sets it', async () => {
    const byDefault = await worker();
    const set = await worker(2);
    const unset = await worker(null);
    try {
      expect(byDefault.worker.options.maxCachedWorkflows).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
      expect(unset.worker.options.maxCachedWorkflows).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
      expect(set.worker.options.maxCachedWorkflows).toBe(2);
      // Slots beyond the cache starve a workflow task poller (temporalio/sdk-rust#1534).
      expect(workflowTaskSlots(byDefault.worker)).toBe(40);
      expect(workflowTaskSlots(set.worker)).toBe(2);
    } finally {
      await byDefault.stop();
      await set.stop();
      await unset.stop();
    }
  });

  it('evicts waiting runs past its size, and an evicted run completes once approved', async () => {
    const w = await worker(2);
    try {
      const runs = [];
      for (let i = 0; i < 4; i++) {
        const paused = await w.client.generate('toolbox-agent', 'go', { model: 'scripted', script: guardedScript });
        expect(paused.finishReason).toBe('suspended');
        runs.push(paused.runId);
      }
      expect(w.worker.getStatus().numCachedWorkflows).toBeLessThanOrEqual(2);
      // The oldest runs were evicted: their decisions replay their histories.
      for (const runId of runs) {
        const result = await w.client.approveToolCallGenerate({ runId });
        expect(result.finishReason).toBe('stop');
        expect(result.text).toBe('Finished.');
        const events = await historyEventTypes(w.client, runId);
        expect(events).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
        expect(events).not.toContain('EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT');
      }
    } finally {
      await w.stop();
    }
  }, 120_000);

  it("takes the README's conversationCacheBytes: a worker without a conversation cache runs runs", async () => {
    const w = await worker(undefined, { conversationCacheBytes: 0 });
    try {
      const paused = await w.client.generate('toolbox-agent', 'go', { model: 'scripted', script: guardedScript });
      expect(paused.finishReason).toBe('suspended');
      const result = await w.client.approveToolCallGenerate({ runId: paused.runId });
      expect(result.text).toBe('Finished.');
    } finally {
      await w.stop();
    }
  });
});
