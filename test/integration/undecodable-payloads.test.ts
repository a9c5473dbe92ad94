/**
 * Payloads a worker cannot decode (issue 25, item 4): a raw signal shaped like a payload-store
 * reference that leads nowhere, or encrypted under a key the worker lacks, is a refusal the run
 * survives; the run is then approved as usual. Sent with the official Temporal CLI, as an attacker
 * with signal rights would.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { workflowStreamPollUpdate, workflowStreamPublishSignal } from '@temporalio/workflow-streams/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../../src/index.js';
import { type RunInfo } from '../../src/client/index.js';
import { createExternalStorage, createPayloadCodec } from '../../src/codec/index.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { cliSend, grpcSignal, REFERENCE_META, takenSignals, type RawPayload } from '../raw-payloads.js';

const run = promisify(execFile);

const ran: string[] = [];
const sendTool = createTool({
  id: 'send',
  description: 'Sends a note',
  inputSchema: z.object({ note: z.string() }),
  requireApproval: true,
  execute: ({ note }) => {
    ran.push(note);
    return { sent: note };
  },
});
const senderAgent = defineAgent({
  id: 'sender-agent',
  name: 'Sender',
  instructions: 'You send notes.',
  model: 'scripted',
  tools: { send: sendTool },
});
const scriptFor = (note: string): Script => [
  { toolCalls: [{ toolName: 'send', args: { note } }] },
  { text: `Sent ${note}.` },
];

const keyA = { id: 'key-a', key: randomBytes(32) };
const hash = 'ab'.repeat(32);
const reference = (driverName: string, claimData: Record<string, string>): RawPayload => ({
  meta: REFERENCE_META,
  data: JSON.stringify({ driverName, claimData }),
});
const fileReference = (key: string) =>
  reference('durable-agents.files', { key, hashAlgorithm: 'sha256', hashValue: hash });
const encrypted = (keyId: string): RawPayload => ({
  meta: { encoding: 'binary/encrypted', 'encryption-key-id': keyId },
  data: randomBytes(64),
});

/** Each shape, and what the refusal says of it. */
const SHAPES: Array<[string, RawPayload, RegExp]> = [
  ['a reference to a file not in the store', fileReference(`default/elsewhere/${hash}`), /no such payload/],
  ['a reference with ../ in its key', fileReference(`../../etc/${hash}`), /malformed payload-store reference/],
  ['a reference without a driver', { meta: REFERENCE_META, data: '{}' }, /malformed payload-store reference/],
  ['a reference that is not JSON', { meta: REFERENCE_META, data: 'not json' }, /malformed payload-store reference/],
  ['a reference to a driver no worker has', reference('elsewhere', {}), /driver "elsewhere"/],
  ['a payload under an unknown codec key', encrypted('key-z'), /codec key "key-z", which this worker does not have/],
  ['a payload that does not decrypt', encrypted('key-a'), /does not decrypt with codec key "key-a"/],
];

let dir: string;
let cli: string;
let w: TestWorker;
let raw: Connection;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'undecodable-'));
  cli = (await run('bash', ['temporal-dev.sh', 'cli'])).stdout.trim().split('\n').at(-1)!;
  const externalStorage = await createExternalStorage({ kind: 'files', directory: join(dir, 'store') });
  w = await startWorker([senderAgent], { codec: createPayloadCodec({ keys: [keyA] }), externalStorage });
  raw = await Connection.connect({ address: temporalAddress() });
});
afterAll(async () => {
  await w?.stop();
  await raw?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A signal through the CLI; what the CLI will not send (a JSON encoding of data that is not JSON), through gRPC. */
async function signal(workflowId: string, name: string, payload: RawPayload): Promise<void> {
  const isJson =
    typeof payload.data !== 'string' || payload.meta.encoding !== 'json/protobuf' || validJson(payload.data);
  if (!isJson) return grpcSignal(raw, workflowId, name, payload);
  expect(await send(workflowId, 'signal', name, payload)).toMatchObject({ ok: expect.any(String) });
}
function validJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The decisions a run shows it refused, in its trail or apart from it. */
const refusals = (info: RunInfo) => [...info.decisions, ...(info.refusals?.recent ?? [])];

const send = (workflowId: string, kind: 'signal' | 'update' | 'query', name: string, payload: RawPayload) =>
  cliSend({ cli, dir, address: temporalAddress(), workflowId, kind, name, payload });

describe('a decision signal the worker cannot decode', () => {
  it.each(SHAPES)('%s is refused, and the run is approved as usual', async (_shape, payload, reason) => {
    const note = `note-${randomBytes(4).toString('hex')}`;
    const paused = await w.client.generate('sender-agent', 'go', { model: 'scripted', script: scriptFor(note) });
    expect(paused.finishReason).toBe('suspended');
    const { runId } = paused;

    await signal(runId, 'approveToolCall', payload);
    expect(await takenSignals(raw, runId)).toEqual({ failedTasks: [] });
    const refused = await waitFor('the refusal', async () =>
      refusals(await w.client.getRun(runId)).find((d) => !d.accepted),
    );
    expect(refused.refusal).toMatchObject({ type: 'InvalidDecision', message: expect.stringMatching(reason) });
    expect(refused.refusal!.message).toMatch(/could not be decoded/);
    expect(refused.refusal!.message).not.toContain(dir);
    expect((await w.client.getRun(runId)).status).toBe('suspended');

    const done = await w.client.approveToolCallGenerate({ runId });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe(`Sent ${note}.`);
    expect(ran.filter((n) => n === note)).toHaveLength(1);
  });
});

describe('every other signal, update and query', () => {
  it('of a run and of its thread takes an undecodable payload without failing a workflow task', async () => {
    const note = `note-${randomBytes(4).toString('hex')}`;
    const threadId = `thread-${randomBytes(4).toString('hex')}`;
    const paused = await w.client.generate('sender-agent', 'go', {
      model: 'scripted',
      script: scriptFor(note),
      threadId,
    });
    expect(paused.finishReason).toBe('suspended');
    const { runId } = paused;
    const thread = threadWorkflowId(undefined, threadId);
    const bad = encrypted('key-z');

    for (const name of [
      'declineToolCall',
      'resumeToolCall',
      'submitToolResult',
      'resolveToolCall',
      'childReport',
      'publishChunks',
      workflowStreamPublishSignal.name,
    ]) {
      await signal(runId, name, bad);
    }
    // (nextPause quotes what it was given as JSON.)
    const why = /codec key \\?"key-z\\?", which this worker does not have/;
    for (const name of ['autoResume', 'nextPause']) {
      expect((await send(runId, 'update', name, bad)).failed, name).toMatch(why);
    }
    // The library's long-poll is refused whatever it is given.
    expect((await send(runId, 'update', workflowStreamPollUpdate.name, bad)).failed).toMatch(/long-poll/);
    for (const name of ['conversation', 'readStream']) {
      expect((await send(runId, 'query', name, bad)).failed, name).toMatch(why);
    }
    await signal(thread, 'recordTurn', bad);
    // A thread refuses a write without its run's turn key before it reads the rest.
    for (const name of ['beginTurn', 'updateWorkingMemory', 'changeTasks']) {
      expect((await send(thread, 'update', name, bad)).failed, name).toMatch(/refused|key-z/);
    }
    expect(await takenSignals(raw, runId)).toEqual({ failedTasks: [] });
    expect(await takenSignals(raw, thread)).toEqual({ failedTasks: [] });

    const done = await w.client.approveToolCallGenerate({ runId });
    expect(done.text).toBe(`Sent ${note}.`);
    expect(ran.filter((n) => n === note)).toHaveLength(1);
    // The thread took the run's record of its turn as usual.
    expect(await takenSignals(raw, thread)).toEqual({ failedTasks: [] });
  });
});

describe('a run whose own input the worker cannot decode', () => {
  it('fails at once, saying why, instead of waiting', async () => {
    const runId = `undecodable-input-${randomBytes(4).toString('hex')}`;
    const args = ['workflow', 'start', '--address', temporalAddress(), '--namespace', 'default'];
    const file = join(dir, `${runId}.b64`);
    await writeFile(file, randomBytes(64).toString('base64'));
    await run(cli, [
      ...args,
      '--task-queue',
      w.taskQueue,
      '--type',
      'agentRun',
      '--workflow-id',
      runId,
      '--input-file',
      file,
      '--input-base64',
      '--input-meta',
      'encoding=binary/encrypted',
      '--input-meta',
      'encryption-key-id=key-z',
    ]);
    await expect(w.client.result(runId)).rejects.toThrow(/could not be decoded.*codec key "key-z"/);
  });
});
