/**
 * Durability with real processes: workers killed with SIGKILL, decisions made from `agentctl` while
 * no worker runs, and the server restarted while a run waits (the dev server on its SQLite file, or every
 * process of the production-shaped cluster).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deleteRecordScript } from '../../examples/records-agent.js';
import { readRecords } from '../../examples/records-store.js';
import { type RunResult } from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, killHard, ownServer, spawnWorker, type WorkerProcess } from '../processes.js';

let dir: string;
let scriptFile: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'durability-'));
  scriptFile = join(dir, 'delete-r2.json');
  await writeFile(scriptFile, JSON.stringify(deleteRecordScript));
});
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** One scenario's setting: its own task queue and records file. */
function scenario(address: string, serverEnv: Record<string, string> = {}) {
  const taskQueue = `durable-${randomUUID()}`;
  const recordsFile = join(dir, `${taskQueue}.json`);
  const env = (extra: Record<string, string> = {}) => ({
    ...serverEnv,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    RECORDS_FILE: recordsFile,
    ...extra,
  });
  return {
    taskQueue,
    recordsFile,
    async worker(extra: Record<string, string> = {}): Promise<WorkerProcess> {
      const w = await spawnWorker(env(extra));
      workers.push(w);
      return w;
    },
    ctl: (args: string[]) =>
      agentctl(['--address', address, '--namespace', 'default', '--task-queue', taskQueue, ...args], serverEnv),
    client: () => AgentClient.connect({ address, namespace: 'default', taskQueue }),
  };
}

async function startPaused(s: ReturnType<typeof scenario>): Promise<RunResult> {
  const started = await s.ctl([
    'start',
    'records-agent',
    '--prompt',
    'Delete the old customer list.',
    '--script',
    scriptFile,
    '--json',
  ]);
  expect(started).toMatchObject({ code: 0 });
  const result = JSON.parse(started.stdout) as RunResult;
  expect(result.finishReason).toBe('suspended');
  expect(result.suspendPayload).toMatchObject({ toolName: 'deleteRecord', args: { id: 'r2' }, requiresApproval: true });
  return result;
}

// Each test starts several worker processes (each bundles the workflows): a cap, not a measure.
describe('durability with real processes', { timeout: 180_000 }, () => {
  it('approves from agentctl while no worker is up; a new worker completes the run; the record is deleted once', async () => {
    const s = scenario(temporalAddress());
    const worker = await s.worker();
    const paused = await startPaused(s);
    const { toolCallId, fingerprint } = paused.suspendPayload!;
    await killHard(worker);

    // Refusals: one line each, exit 1, and the run keeps waiting.
    const mismatch = await s.ctl(['approve', paused.runId, '--as', 'intern', '--fingerprint', '0'.repeat(64)]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr.trim().split('\n')).toHaveLength(1);
    expect(mismatch.stderr).toMatch(
      /^agentctl: refused \(FingerprintMismatch\): fingerprint 0{64} does not match tool call call-1-0 \(deleteRecord\): the call you decided on is not the one waiting/,
    );
    const wrongKind = await s.ctl(['resume', paused.runId, '--as', 'ops', '--latest', '--data', '{"answer":"x"}']);
    expect(wrongKind).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^agentctl: refused \(WrongPauseKind\): no pending call takes resume/),
    });
    const unknownRun = await s.ctl(['approve', 'run-does-not-exist', '--as', 'ops', '--latest']);
    expect(unknownRun).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^agentctl: No run "run-does-not-exist"/),
    });

    const listed = await s.ctl(['runs', 'list', '--status', 'suspended', '--agent', 'records-agent', '--json']);
    expect(JSON.parse(listed.stdout).map((r: { runId: string }) => r.runId)).toContain(paused.runId);

    const approved = await s.ctl([
      'approve',
      paused.runId,
      '--tool-call',
      toolCallId,
      '--fingerprint',
      fingerprint,
      '--as',
      'ops-oncall',
    ]);
    expect(approved).toMatchObject({
      code: 0,
      stdout: `approved deleteRecord ${toolCallId} (fingerprint ${fingerprint}) on run ${paused.runId}\n`,
    });
    expect((await readRecords(s.recordsFile)).deletions).toEqual([]); // nothing runs without a worker

    await s.worker();
    const client = await s.client();
    try {
      const done = await client.result(paused.runId);
      expect(done.text).toBe('Done: record r2 is deleted.');
    } finally {
      await client.close();
    }
    const records = await readRecords(s.recordsFile);
    expect(records.deletions.map((d) => d.id)).toEqual(['r2']);
    expect(records.records.map((r) => r.id)).toEqual(['r1', 'r3']);

    const shown = await s.ctl(['runs', 'show', paused.runId]);
    expect(shown.stdout).toMatch(/approve call-1-0 \(deleteRecord\) by ops-oncall via operator \(\S+\): accepted/);
    // The intern's approval was refused at agentctl's edge: it wrote nothing into the run.
    expect(shown.stdout).not.toMatch(/by intern/);
    expect(shown.stdout).toContain('result: Done: record r2 is deleted.');
  });

  it('runs a worker killed in the middle of an approved side effect again on a new worker, and the side effect happens once', async () => {
    const s = scenario(temporalAddress());
    const slow = await s.worker({ RECORDS_SLOW_MS: '60000' });
    const paused = await startPaused(s);
    expect((await s.ctl(['approve', paused.runId, '--as', 'ops', '--latest'])).code).toBe(0);

    // The deletion is written, and the tool is still running: kill the worker now.
    await waitFor('the deletion on disk', async () =>
      (await readRecords(s.recordsFile)).deletions.length > 0 ? true : undefined,
    );
    await killHard(slow);
    await s.worker();

    const client = await s.client();
    try {
      const done = await client.result(paused.runId);
      expect(done.toolResults.find((r) => r.toolName === 'deleteRecord')).toMatchObject({
        isError: false,
        output: { deleted: 'r2', title: 'Old customer list' },
      });
    } finally {
      await client.close();
    }
    const records = await readRecords(s.recordsFile);
    expect(records.deletions).toHaveLength(1);
    expect(records.deletions[0]!.idempotencyKey).toBe(`${paused.runId}:${paused.suspendPayload!.toolCallId}`);
  });

  it('does not run a killed, approved, non-idempotent side effect again: the run waits until it is resolved', async () => {
    const s = scenario(temporalAddress());
    const noticeScript = join(dir, `notify-${s.taskQueue}.json`);
    await writeFile(
      noticeScript,
      JSON.stringify([
        { toolCalls: [{ toolName: 'notifyOwner', args: { id: 'r2', message: 'Your list goes away.' } }] },
        { text: 'The owner is told.' },
      ]),
    );
    const notices = async () => (await readRecords(s.recordsFile)).notices.length;
    for (const [how, extra, expected] of [
      ['--skip', ['--output', '{"notified":"r2"}'], 1],
      ['--retry', [], 2],
    ] as const) {
      const before = await notices();
      const slow = await s.worker({ RECORDS_SLOW_MS: '60000' });
      const started = await s.ctl(['start', 'records-agent', '--prompt', 'notify', '--script', noticeScript, '--json']);
      const paused = JSON.parse(started.stdout) as RunResult;
      expect((await s.ctl(['--as', 'ops', 'approve', paused.runId, '--latest'])).code).toBe(0);
      // The notice went out, and the tool is still running: kill the worker now.
      await waitFor('the notice on disk', async () => ((await notices()) > before ? true : undefined));
      await killHard(slow);
      const next = await s.worker();

      // The new worker does not send it again: once the dead one's heartbeat times out, the call waits.
      const shown = await waitFor('the uncertain call', async () => {
        const out = await s.ctl(['runs', 'show', paused.runId]);
        return /notifyOwner\(.*\) {2}uncertain \(/.test(out.stdout) ? out.stdout : undefined;
      });
      expect(shown).toMatch(/heartbeat timeout: its worker died or it hung after it started/i);
      expect(await notices()).toBe(before + 1);

      const resolved = await s.ctl([
        '--as',
        'ops',
        'resolve',
        paused.runId,
        '--latest',
        how,
        ...extra,
        '--wait',
        '--json',
      ]);
      expect(resolved.code).toBe(0);
      expect(JSON.parse(resolved.stdout)).toMatchObject({ status: 'applied', result: { finishReason: 'stop' } });
      expect(await notices()).toBe(before + expected);
      await killHard(next);
    }
    // Two rounds, each with four worker starts and a heartbeat timeout to wait out.
  }, 300_000);

  it('keeps a waiting run through a restart of the whole server (the dev server, or every process of the cluster)', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    // A server of the test's own, of the kind the run tests against: the dev server on its SQLite file, or a
    // cluster (four services and PostgreSQL, all stopped and started again).
    const server = ownServer(inject('temporalServerKind'), join(dir, 'server'), port);
    const address = await server.start();
    try {
      const s = scenario(address, await server.env());
      const worker = await s.worker();
      const paused = await startPaused(s);
      await killHard(worker);

      await server.stop();
      expect(await server.start()).toBe(address);

      const listed = await s.ctl(['runs', 'list', '--status', 'suspended', '--json']);
      expect(listed.code).toBe(0);
      const run = (JSON.parse(listed.stdout) as Array<{ runId: string; pendingToolCalls: unknown[] }>).find(
        (r) => r.runId === paused.runId,
      );
      expect(run?.pendingToolCalls).toEqual(paused.pendingToolCalls);

      await s.worker();
      const approved = await s.ctl(['approve', paused.runId, '--as', 'ops', '--latest', '--wait', '--json']);
      expect(approved.code).toBe(0);
      expect(JSON.parse(approved.stdout)).toMatchObject({
        status: 'applied',
        result: { finishReason: 'stop', text: 'Done: record r2 is deleted.' },
      });
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await server.destroy();
    }
  });
});

describe('durability of a supervisor chain', { timeout: 180_000 }, () => {
  it('keeps a three-level approval through a worker SIGKILL, approved from the top with agentctl', async () => {
    const s = scenario(temporalAddress());
    const worker = await s.worker();
    const client = await s.client();
    try {
      const { supervisorDeleteOptions } = await import('../../examples/supervisor-agent.js');
      const paused = await client.generate('supervisor', 'Delete the old customer list.', supervisorDeleteOptions);
      expect(paused.finishReason).toBe('suspended');
      await killHard(worker);

      const shown = await s.ctl(['runs', 'show', paused.runId]);
      expect(shown.stdout).toMatch(
        /call-0-0\/call-0-0\/call-1-0 {2}deleteRecord\(\{"id":"r2"\}\) {2}awaits approval .* in ops-agent \S+ > records-agent \S+/,
      );
      const approved = await s.ctl(['approve', paused.runId, '--as', 'ops-oncall', '--latest']);
      expect(approved).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('approved deleteRecord call-0-0/call-0-0/call-1-0'),
      });

      await s.worker();
      const done = await client.result(paused.runId);
      expect(done.text).toBe('The operations agent deleted r2.');
    } finally {
      await client.close();
    }
    expect((await readRecords(s.recordsFile)).deletions.map((d) => d.id)).toEqual(['r2']);
  });
});
