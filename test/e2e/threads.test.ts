/**
 * A thread survives its workers: one is killed (SIGKILL) between two turns and another after a turn
 * paused; every message is there, read with `agentctl threads` while no worker runs, and the next
 * run's model is shown the turns before it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deleteRecordScript } from '../../examples/records-agent.js';
import { type RunResult } from '../../src/index.js';
import { AgentClient, type ThreadInfo, type ThreadMessages } from '../../src/client/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, killHard, ownServer, spawnWorker, type WorkerProcess } from '../processes.js';

let dir: string;
const workers: WorkerProcess[] = [];
const taskQueue = `threads-${randomUUID()}`;
const env = (address: string) => ({
  TEMPORAL_ADDRESS: address,
  TEMPORAL_TASK_QUEUE: taskQueue,
  RECORDS_FILE: join(dir, 'records.json'),
});
const ctl = (args: string[], address = temporalAddress()) =>
  agentctl(['--address', address, '--namespace', 'default', '--task-queue', taskQueue, ...args]);
async function worker(address = temporalAddress()): Promise<WorkerProcess> {
  const w = await spawnWorker(env(address));
  workers.push(w);
  return w;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threads-'));
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function scriptFile(name: string, script: unknown): Promise<string> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(script));
  return file;
}

/** The thread as `agentctl threads show --json` reads it once it holds `count` messages. */
async function shown(
  threadId: string,
  resourceId: string,
  count: number,
  address = temporalAddress(),
): Promise<ThreadMessages> {
  return waitFor(`${count} messages on ${threadId}`, async () => {
    const out = await ctl(['threads', 'show', threadId, '--resource', resourceId, '--json'], address);
    expect(out.code).toBe(0);
    const read = JSON.parse(out.stdout) as ThreadMessages;
    return read.messages.length === count ? read : undefined;
  });
}

describe('a thread across killed workers', () => {
  it('loses no message when the worker is killed between two turns', async () => {
    const thread = `chat-${randomUUID()}`;
    const first = await worker();
    const weather = await scriptFile('weather', [
      { toolCalls: [{ toolName: 'weather', args: { city: 'Oslo' } }] },
      { text: 'It is sunny in Oslo.' },
    ]);
    const run1 = await ctl([
      'start',
      'weather-agent',
      '--prompt',
      'Weather in Oslo?',
      '--script',
      weather,
      '--thread',
      thread,
      '--resource',
      'u1',
    ]);
    expect(run1.code).toBe(0);
    await killHard(first);

    // No worker runs: agentctl reads the thread from Temporal.
    const listed = await ctl(['threads', 'list', '--resource', 'u1', '--json']);
    expect((JSON.parse(listed.stdout) as ThreadInfo[]).map((t) => t.threadId)).toContain(thread);
    const before = await shown(thread, 'u1', 4);
    expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const text = await ctl(['threads', 'show', thread, '--resource', 'u1']);
    expect(text.stdout).toContain('user: Weather in Oslo?');
    expect(text.stdout).toMatch(/assistant: \[call weather call-0-0\]/);
    expect(text.stdout).toContain('assistant: It is sunny in Oslo.');

    // The next turn is started while no worker runs, and taken by a new one.
    const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
    try {
      const { runId } = await client.start('weather-agent', 'And what did I ask?', {
        threadId: thread,
        resourceId: 'u1',
        model: 'scripted',
        script: [{ text: 'You asked about Oslo.' }],
      });
      await worker();
      const run2: RunResult = await client.result(runId);
      // The model was shown the first turn whole before the new message.
      expect(run2.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
      expect(run2.text).toBe('You asked about Oslo.');
    } finally {
      await client.close();
    }
    const after = await shown(thread, 'u1', 6);
    expect(after.messages.slice(0, 4)).toEqual(before.messages);
    expect(after.turnCount).toBe(2);
  }, 180_000);

  it('keeps a paused turn through a killed worker, and records it whole once approved with no worker up', async () => {
    const thread = `ops-${randomUUID()}`;
    const w = await worker();
    const file = await scriptFile('delete', deleteRecordScript);
    const started = await ctl([
      'start',
      'records-agent',
      '--prompt',
      'Delete the old list.',
      '--script',
      file,
      '--thread',
      thread,
      '--resource',
      'u2',
      '--json',
    ]);
    const paused = JSON.parse(started.stdout) as RunResult;
    expect(paused.finishReason).toBe('suspended');
    await killHard(w);

    const atPause = await shown(thread, 'u2', paused.messages.length);
    expect(atPause.messages).toEqual(paused.messages);
    const { toolCallId, fingerprint } = paused.suspendPayload!;
    const approved = await ctl([
      'approve',
      paused.runId,
      '--tool-call',
      toolCallId,
      '--fingerprint',
      fingerprint,
      '--as',
      'ops',
    ]);
    expect(approved.code).toBe(0);

    await worker();
    const client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
    try {
      const done = await client.result(paused.runId);
      const whole = await shown(thread, 'u2', done.messages.length);
      expect(whole.messages).toEqual(done.messages);
      expect(whole.turnCount).toBe(1);
    } finally {
      await client.close();
    }
  }, 180_000);

  it('keeps a thread through a restart of the whole server (the dev server, or every process of the cluster)', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    // The test's own server, of the kind the run tests against (a dev server, or a cluster).
    const server = ownServer(inject('temporalServerKind'), join(dir, 'server'), port);
    const address = await server.start();
    const thread = `restart-${randomUUID()}`;
    try {
      const w = await worker(address);
      const file = await scriptFile('hello', [{ text: 'Hello, Ada.' }]);
      const run1 = await ctl(
        ['start', 'weather-agent', '--prompt', 'I am Ada.', '--script', file, '--thread', thread, '--resource', 'u3'],
        address,
      );
      expect(run1.code).toBe(0);
      await shown(thread, 'u3', 2, address);
      await killHard(w);
      await server.stop();
      expect(await server.start()).toBe(address);

      const after = await shown(thread, 'u3', 2, address);
      expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      const listed = await ctl(['threads', 'list', '--resource', 'u3', '--json'], address);
      expect((JSON.parse(listed.stdout) as ThreadInfo[]).map((t) => t.threadId)).toEqual([thread]);

      await worker(address);
      const client = await AgentClient.connect({ address, namespace: 'default', taskQueue });
      try {
        const run2 = await client.generate('weather-agent', 'Who am I?', {
          threadId: thread,
          resourceId: 'u3',
          model: 'scripted',
          script: [{ text: 'You are Ada.' }],
        });
        expect(run2.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      } finally {
        await client.close();
      }
      await shown(thread, 'u3', 4, address);
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await server.destroy();
    }
  }, 180_000);
});
