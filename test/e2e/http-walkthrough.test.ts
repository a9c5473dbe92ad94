/**
 * The README's HTTP walkthrough as written: `npm run server` (examples/server.ts) with `SERVER_TOKENS`
 * naming two principals, a run started and streamed with one token, its call approved with the other.
 * One token for both is refused as self-approval: a call that needs approval needs a second person.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exampleAgents } from '../../examples/agents.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';

process.env.RECORDS_FILE = join(tmpdir(), `records-${randomUUID()}.json`);

// export ALICE_TOKEN=$(openssl rand -hex 16) BOB_TOKEN=$(openssl rand -hex 16)
const ALICE_TOKEN = randomBytes(16).toString('hex');
const BOB_TOKEN = randomBytes(16).toString('hex');

let w: TestWorker;
let server: ChildProcess;
let base: string;

beforeAll(async () => {
  w = await startWorker(exampleAgents);
  server = spawn(process.execPath, ['--import', 'tsx', 'examples/server.ts'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: w.taskQueue,
      PORT: '0',
      SERVER_DEV_TOKEN: '',
      SERVER_JWKS_URL: '',
      SERVER_TOKENS: JSON.stringify({ [ALICE_TOKEN]: { id: 'alice' }, [BOB_TOKEN]: { id: 'bob' } }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer): void => {
      output += d.toString();
      const listening = /server: listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (listening) resolve(listening[1]!);
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.once('exit', (code) =>
      reject(new Error(`examples/server.ts exited (${code}) before listening:\n${output}`)),
    );
  });
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await w?.stop();
});

/** `H=(-H "authorization: Bearer $TOKEN" -H 'content-type: application/json')` */
const H = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

/** The `data:` chunks of an SSE answer. */
function chunks(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

it('starts and streams a run with one token and approves its call with another, as the README shows', async () => {
  // curl -N -i localhost:3000/agents/records-agent/stream "${H[@]}" -d '{"prompt":"Delete r2","options":{...}}'
  const script = [{ toolCalls: [{ toolName: 'deleteRecord', args: { id: 'r2' } }] }, { text: 'Deleted.' }];
  const started = await fetch(`${base}/agents/records-agent/stream`, {
    method: 'POST',
    headers: H(ALICE_TOKEN),
    body: JSON.stringify({ prompt: 'Delete r2', options: { script } }),
  });
  expect(started.status).toBe(200);
  const runId = started.headers.get('x-run-id')!;
  const finish = chunks(await started.text()).find((c) => c.type === 'finish') as {
    messageMetadata: { finishReason: string; pendingToolCalls: Array<{ toolCallId: string; fingerprint: string }> };
  };
  expect(finish.messageMetadata.finishReason).toBe('suspended');
  const { toolCallId, fingerprint } = finish.messageMetadata.pendingToolCalls[0]!;
  const body = JSON.stringify({ toolCallId, fingerprint, by: 'INC-42' });

  // The one who started it cannot approve it.
  const self = await fetch(`${base}/runs/${runId}/approve`, { method: 'POST', headers: H(ALICE_TOKEN), body });
  expect(self.status).toBe(403);
  expect(((await self.json()) as { error: { type: string } }).error.type).toBe('SelfApproval');

  // curl -N localhost:3000/runs/RUN/approve "${A[@]}" -d '{"toolCallId":"call-0-0","fingerprint":"…","by":"INC-42"}'
  const approved = await fetch(`${base}/runs/${runId}/approve`, { method: 'POST', headers: H(BOB_TOKEN), body });
  expect(approved.status).toBe(200);
  const after = chunks(await approved.text());
  expect(after).toContainEqual(
    expect.objectContaining({ type: 'tool-output-available', output: { deleted: 'r2', title: 'Old customer list' } }),
  );
  expect(after.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  expect((await w.client.getRun(runId)).decisions).toEqual([
    expect.objectContaining({ kind: 'approve', accepted: true, principal: expect.objectContaining({ id: 'bob' }) }),
  ]);
});
