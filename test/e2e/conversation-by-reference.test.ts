/**
 * The conversation by reference across worker processes: a model call carries only the messages after
 * what the previous call held; when the worker that held them is killed (SIGKILL) between steps, the
 * next call runs on a new worker process with an empty cache, which reads them from the run by query.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallModelInput } from '../../src/protocol/activities.js';
import { type RunResult, type Script } from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress } from '../helpers.js';
import { killHard, spawnWorker, type WorkerProcess } from '../processes.js';

let dir: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conversation-ref-'));
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Two steps, a deletion that pauses for approval (declined: the records stay as they are), two more. */
const script: Script = [
  { text: 'Let me look.', toolCalls: [{ toolName: 'listRecords', args: {} }] },
  { text: 'Once more.', toolCalls: [{ toolName: 'listRecords', args: {} }] },
  { text: 'Deleting r2.', toolCalls: [{ toolName: 'deleteRecord', args: { id: 'r2' } }] },
  { text: 'Declined; listing again.', toolCalls: [{ toolName: 'listRecords', args: {} }] },
  { text: 'Done: nothing deleted.' },
];

/** The model-call inputs of a run, as its history records them. */
async function modelCalls(client: AgentClient, runId: string): Promise<CallModelInput[]> {
  const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') return [];
    return [defaultPayloadConverter.fromPayload<CallModelInput>(scheduled.input!.payloads![0]!)];
  });
}

describe('the conversation by reference, worker killed between steps', { timeout: 180_000 }, () => {
  it('the next model call runs on a new worker with an empty cache, which reads the conversation from the run', async () => {
    const address = temporalAddress();
    const taskQueue = `conversation-ref-${randomUUID()}`;
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, RECORDS_FILE: join(dir, 'records.json') };
    const start = async () => {
      const w = await spawnWorker(env);
      workers.push(w);
      return w;
    };
    const client = await AgentClient.connect({ address, namespace: 'default', taskQueue });
    try {
      const first = await start();
      const options = { model: 'scripted', script };
      const paused = await client.generate('records-agent', 'Tidy the records.', options);
      expect(paused.finishReason).toBe('suspended');
      await killHard(first);

      const second = await start();
      const done = await client.declineToolCallGenerate({ runId: paused.runId, by: 'ops', reason: 'keep it' });
      expect(done.finishReason).toBe('stop');
      expect(done.text).toBe('Done: nothing deleted.');
      expect(done.steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([
        ['listRecords'],
        ['listRecords'],
        ['deleteRecord'],
        ['listRecords'],
        [],
      ]);
      // The model call after the kill carried one message (the declined call's result) and a
      // reference to the six before it, which only the run held: the new worker read them by query.
      const calls = await modelCalls(client, paused.runId);
      expect(calls).toHaveLength(5);
      expect(calls.every((c) => c.messages === undefined)).toBe(true);
      expect(calls.map((c) => [c.conversation?.base.count, c.conversation?.added.length])).toEqual([
        [0, 1],
        [2, 1],
        [4, 1],
        [6, 1],
        [8, 1],
      ]);
      // The instructions and tools went whole with the first call only; the others repeat them by digest.
      expect(calls.map((c) => [c.tools !== undefined, c.conversation?.sameSetup !== undefined])).toEqual([
        [true, false],
        [false, true],
        [false, true],
        [false, true],
        [false, true],
      ]);
      expect(second.output()).toContain('callModel: conversation read from the run');

      // The model saw the whole conversation: every step's prompt (the scripted model counts its
      // tokens from the prompt's JSON) is the size of the same run's on one worker that lives.
      const control: RunResult = await client.generate('records-agent', 'Tidy the records.', options);
      const declined = await client.declineToolCallGenerate({ runId: control.runId, by: 'ops', reason: 'keep it' });
      expect(declined.text).toBe(done.text);
      expect(done.steps.map((s) => s.usage.inputTokens)).toEqual(declined.steps.map((s) => s.usage.inputTokens));
      expect(done.messages).toEqual(declined.messages);
    } finally {
      await client.close();
    }
  });
});
