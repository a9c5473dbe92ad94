/**
 * A thread's task list survives its worker: the example support agent plans with the task tools in one
 * turn, its worker process is killed (SIGKILL), the list is read with `agentctl threads tasks` and over
 * HTTP while no worker runs (each principal within its tenant), and the next turn, taken by a new
 * worker, is shown the list and checks it.
 */
import type { ServerType } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkTasksScript, planTasksScript } from '../../examples/support-agent.js';
import { type RunResult } from '../../src/index.js';
import { AgentClient, type ThreadTasks } from '../../src/client/index.js';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { temporalAddress } from '../helpers.js';
import { agentctl, killHard, spawnWorker, type WorkerProcess } from '../processes.js';

let dir: string;
let client: AgentClient;
const workers: WorkerProcess[] = [];
const taskQueue = `task-tools-${randomUUID()}`;
const tenant = `tasks-${randomUUID()}`;
const ctl = (args: string[]) =>
  agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', taskQueue, ...args]);
async function worker(): Promise<WorkerProcess> {
  const w = await spawnWorker({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    RECORDS_FILE: join(dir, 'records.json'),
  });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'task-tools-'));
  client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

it('keeps the task list through a killed worker: read with no worker up, shown to the next turn', async () => {
  const threadId = `plan-${randomUUID()}`;
  const first = await worker();
  const script = join(dir, 'plan.json');
  await writeFile(script, JSON.stringify(planTasksScript));
  const started = await ctl([
    'start',
    'support-agent',
    '--prompt',
    'Give the site a green theme.',
    '--script',
    script,
    '--thread',
    threadId,
    '--resource',
    tenant,
    '--json',
  ]);
  expect(started.code).toBe(0);
  expect((JSON.parse(started.stdout) as RunResult).text).toBe('The theme is backed up; switching it now.');
  await killHard(first);

  // No worker runs: agentctl reads the list from the thread's memo.
  const json = await ctl(['threads', 'tasks', threadId, '--resource', tenant, '--json']);
  expect(json.code).toBe(0);
  const read = JSON.parse(json.stdout) as ThreadTasks;
  expect(read.tasks).toEqual([
    { id: 'backup', content: 'Back up the theme', status: 'completed', activeForm: 'Backing up the theme' },
    { id: 'switch', content: 'Switch the theme to green', status: 'in_progress' },
    { id: 'check', content: 'Check every page', status: 'pending' },
  ]);
  expect(read.summary).toEqual({ total: 3, completed: 1, inProgress: 1, pending: 1, allCompleted: false });
  const text = await ctl(['threads', 'tasks', threadId, '--resource', tenant]);
  expect(text.stdout.split('\n').slice(1, 5)).toEqual([
    'ID      STATUS       TASK',
    'backup  completed    Back up the theme',
    'switch  in_progress  Switch the theme to green',
    'check   pending      Check every page',
  ]);
  expect(text.stdout).toMatch(new RegExp(`^thread ${threadId} of ${tenant}: 1 of 3 tasks completed \\(updated `));

  // And over HTTP, within the tenant of who asks.
  const tokens = {
    'tasks-owner-token-0123456789': { id: 'ada', tenant },
    'tasks-other-token-0123456789': { id: 'eve', tenant: 'elsewhere' },
  };
  const server: ServerType = await startServer(client, { port: 0, authenticate: bearerTokens(tokens) });
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = (path: string, token: string) =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const mine = await get(`/threads/${threadId}/tasks`, 'tasks-owner-token-0123456789');
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as ThreadTasks).tasks.map((t) => t.status)).toEqual([
      'completed',
      'in_progress',
      'pending',
    ]);
    const other = await get(`/threads/${threadId}/tasks?resourceId=${tenant}`, 'tasks-other-token-0123456789');
    expect(other.status).toBe(403);
    const notTheirs = await get(`/threads/${threadId}/tasks`, 'tasks-other-token-0123456789');
    expect(notTheirs.status).toBe(404);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // The next turn is started while no worker runs, and taken by a new one.
  const { runId } = await client.start('support-agent', 'How far along are we?', {
    threadId,
    resourceId: tenant,
    script: checkTasksScript,
  });
  await worker();
  const second = await client.result(runId);
  const shown = second.messages.findIndex((m) => m.content === 'How far along are we?');
  expect(second.messages[shown - 1]).toEqual({
    role: 'user',
    content: expect.stringContaining('- [in_progress] switch: Switch the theme to green'),
  });
  expect(second.steps[0]!.toolResults[0]).toMatchObject({
    toolName: 'task_check',
    isError: false,
    output: {
      summary: { completed: 1, total: 3, allCompleted: false },
      incompleteTasks: [{ id: 'switch' }, { id: 'check' }],
    },
  });
}, 180_000);
