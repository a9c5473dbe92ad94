/**
 * Runs on a thread, replayed from their histories as a worker does when it lost them from its cache
 * (a query, a restart). The description is a local activity: when it ran, the code after it may run in
 * the next workflow task; on replay its result comes back in the task that recorded it. Runs made at
 * once on one worker produce both layouts (alone, a run almost never does).
 */
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent } from '../../src/index.js';
import { workflowSpanSinks } from '../../src/tracing/config.js';
import { startWorker, type TestWorker } from '../helpers.js';

const stash = createTool({
  id: 'stash',
  description: 'Stashes a note.',
  inputSchema: z.object({ note: z.string() }),
  requireApproval: true,
  execute: async () => ({ receipt: 'r-1' }),
});
const agent = defineAgent({
  id: 'stash-agent',
  name: 'Stash',
  instructions: 'Stash.',
  model: 'scripted',
  tools: { stash },
});

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([agent]);
});
afterAll(async () => {
  await w?.stop();
});

/** A streamed run on a thread of its own, approved, read to its end; its run ids, the chain's. */
async function turn(): Promise<string> {
  const stream = await w.client.stream('stash-agent', 'Stash it.', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'stash', args: { note: 'n' } }] }, { text: 'Stashed.' }],
    threadId: `thread-${randomUUID()}`,
  });
  for await (const chunk of stream) if (chunk.type === 'tool-call-approval') break;
  for await (const chunk of await w.client.approveToolCall({ runId: stream.runId, by: 'ops' })) void chunk;
  expect((await w.client.result(stream.runId)).text).toBe('Stashed.');
  return stream.runId;
}

it('replays runs on a thread begun together, whichever task their description came back in', async () => {
  const runIds = await Promise.all(Array.from({ length: 10 }, () => turn()));
  const failures: string[] = [];
  for (const runId of runIds) {
    const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      runId,
    ).catch((err: unknown) => failures.push(`${runId}: ${String(err)}`));
  }
  expect(failures).toEqual([]);
}, 300_000);
