import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunStreamChunk, Script } from '../../src/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const add = (n: number) => ({ toolCalls: [{ toolName: 'add', args: { a: n, b: 1 } }] });

async function runsOf(workflowId: string): Promise<string[]> {
  const statuses: string[] = [];
  for await (const wf of w.client.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    statuses.push(wf.status.name);
  return statuses.sort();
}

it('continues a long run as new every N steps, with one result, one trail and one stream', async () => {
  const script: Script = [
    add(1),
    add(2),
    add(3),
    { toolCalls: [{ toolName: 'guarded', args: { target: 'late' } }] },
    add(5),
    { text: 'All added.' },
  ];
  const stream = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script, continueAsNewEvery: 2 });
  const chunks: RunStreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks.at(-1)).toMatchObject({
    type: 'finish',
    finishReason: 'suspended',
    pendingToolCalls: [{ toolName: 'guarded' }],
  });

  // The approval reaches the run that waits now, whichever run of the chain that is.
  const paused = await w.client.next(stream.runId);
  expect(paused.steps.map((s) => s.stepNumber)).toEqual([0, 1, 2, 3]);
  for await (const chunk of await w.client.approveToolCall({ runId: stream.runId, by: 'ops' })) chunks.push(chunk);

  const done = await w.client.next(stream.runId);
  expect(done.finishReason).toBe('stop');
  expect(done.text).toBe('All added.');
  expect(done.steps.map((s) => s.stepNumber)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(done.toolResults.map((r) => (r.isError ? r.error : r.output))).toEqual([
    { sum: 2 },
    { sum: 3 },
    { sum: 4 },
    'did late',
    { sum: 6 },
  ]);
  expect(done.decisions).toEqual([expect.objectContaining({ kind: 'approve', by: 'ops', accepted: true })]);
  expect(done.messages.filter((m) => m.role === 'assistant')).toHaveLength(6);

  // One stream across the chain: offsets run on with no gap and no repeat.
  const offsets = chunks.filter((c) => c.offset >= 0).map((c) => c.offset);
  expect(offsets).toEqual(offsets.map((_, i) => i));
  expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });

  const statuses = await waitFor('the chain in visibility', async () => {
    const s = await runsOf(stream.runId);
    return s.filter((x) => x === 'CONTINUED_AS_NEW').length >= 2 ? s : undefined;
  });
  expect(statuses).toContain('CONTINUED_AS_NEW');
  expect(await historyEventTypes(w.client, stream.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  expect((await w.client.getRun(stream.runId)).agentId).toBe('toolbox-agent');
});
