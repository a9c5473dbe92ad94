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
/** Agents whose runs are on a thread their defaults name, not their own options. */
const threaded = Array.from({ length: 10 }, (_, i) =>
  defineAgent({
    id: `stash-agent-${i}`,
    name: 'Stash',
    instructions: 'Stash.',
    model: 'scripted',
    tools: { stash },
    defaultOptions: { threadId: `default-thread-${randomUUID()}` },
  }),
);

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([agent, ...threaded]);
});
afterAll(async () => {
  await w?.stop();
});

/** A streamed run on a thread (of its own, or its agent's default), approved, read to its end; its run id. */
async function turn(agentId = 'stash-agent'): Promise<string> {
  const stream = await w.client.stream(agentId, 'Stash it.', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'stash', args: { note: 'n' } }] }, { text: 'Stashed.' }],
    ...(agentId === 'stash-agent' ? { threadId: `thread-${randomUUID()}` } : {}),
  });
  for await (const chunk of stream) if (chunk.type === 'tool-call-approval') break;
  for await (const chunk of await w.client.approveToolCall({ runId: stream.runId, by: 'ops' })) void chunk;
  expect((await w.client.result(stream.runId)).text).toBe('Stashed.');
  return stream.runId;
}

/** The runs whose history does not replay, with why. */
async function unreplayable(runIds: string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const runId of runIds) {
    const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      runId,
    ).catch((err: unknown) => failures.push(`${runId}: ${String(err)}`));
  }
  return failures;
}

it('replays runs on a thread begun together, whichever task their description came back in', async () => {
  const runIds = await Promise.all(Array.from({ length: 10 }, () => turn()));
  expect(await unreplayable(runIds)).toEqual([]);
}, 300_000);

it("replays runs on their agent's default thread begun together", async () => {
  const runIds = await Promise.all(threaded.map((a) => turn(a.id)));
  expect(await unreplayable(runIds)).toEqual([]);
}, 300_000);
