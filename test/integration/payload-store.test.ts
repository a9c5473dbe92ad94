/**
 * The payload store against a run's neighbours and against a broken disk (issue 25, items 7 and 11):
 * a forged reference to another run's stored payload is refused, nothing of that payload reaches the
 * run; a store the process cannot write stops it at start; a store that fails later ends a tool's
 * call as a tool error, the tool run once, and nothing says where the store is.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type RunOptions, type Script } from '../../src/index.js';
import { createWorker } from '../../src/worker/index.js';
import { AgentClient, type RunInfo } from '../../src/client/index.js';
import { createExternalStorage, UnkeyedCodec } from '../../src/codec/index.js';
import { topAgent } from '../fixtures/supervisors.js';
import { collect, startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';
import { cliSend, rawHistory, REFERENCE_META, takenSignals } from '../raw-payloads.js';

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
const bigTool = createTool({
  id: 'big',
  description: 'Returns 300 KiB',
  inputSchema: z.object({ note: z.string() }),
  execute: ({ note }) => {
    ran.push(note);
    return { blob: 'x'.repeat(300 * 1024) };
  },
});
const storeAgent = defineAgent({
  id: 'store-agent',
  name: 'Store',
  instructions: 'You send notes.',
  model: 'scripted',
  tools: { send: sendTool, big: bigTool },
});
const sendScript = (note: string): Script => [
  { toolCalls: [{ toolName: 'send', args: { note } }] },
  { text: `Sent ${note}.` },
];

let dir: string;
let cli: string;
let raw: Connection;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payload-store-it-'));
  cli = (await run('bash', ['temporal-dev.sh', 'cli'])).stdout.trim().split('\n').at(-1)!;
  raw = await Connection.connect({ address: temporalAddress() });
});
afterAll(async () => {
  await raw?.close();
  await rm(dir, { recursive: true, force: true });
});

const refusals = (info: RunInfo) => [...info.decisions, ...(info.refusals?.recent ?? [])];

describe("another run's stored payload", () => {
  let w: TestWorker;
  let store: string;
  beforeAll(async () => {
    store = join(dir, 'shared');
    // A low threshold, and payloads in clear: the test finds a decision's payload among the files.
    const externalStorage = await createExternalStorage({ kind: 'files', directory: store, threshold: 1024 });
    w = await startWorker([storeAgent, topAgent], { codec: new UnkeyedCodec(), externalStorage });
  });
  afterAll(async () => w?.stop());

  it('is refused in a run that a forged reference brings it to, and nothing of it reaches that run', async () => {
    // Tenant B's run, decided with a note that is B's secret: the decision goes to the store under B's run.
    const secret = `b-secret-${randomBytes(8).toString('hex')}`;
    const theirs = await w.client.generate('store-agent', 'go', {
      model: 'scripted',
      script: sendScript('b'),
      principal: { id: 'bob', tenant: 'b' },
    });
    const done = await w.client.approveToolCallGenerate({ runId: theirs.runId, by: `${secret} ${'n'.repeat(1500)}` });
    // B's run read its own stored decision.
    expect(done.decisions).toEqual([expect.objectContaining({ accepted: true, by: expect.stringMatching(secret) })]);
    const folder = join(store, 'default', theirs.runId);
    const files = await Promise.all(
      (await readdir(folder)).map(async (name) => ({ name, bytes: await readFile(join(folder, name)) })),
    );
    // The decision signal itself (the memo and the result hold the note too, in their trail).
    const stored = files.find((f) => f.bytes.includes(secret) && !f.bytes.includes('"decisions"'));
    expect(stored, 'the decision in the store').toBeDefined();

    // Tenant A's run, waiting; A's operator forges a decision that points at B's payload.
    const note = `a-${randomBytes(4).toString('hex')}`;
    const stream = await w.client.stream('store-agent', 'go', {
      model: 'scripted',
      script: sendScript(note),
      principal: { id: 'ann', tenant: 'a' },
    });
    const first = await collect(stream);
    const { runId } = stream;
    const data = JSON.stringify({
      driverName: 'durable-agents.files',
      claimData: { key: `default/${theirs.runId}/${stored!.name}`, hashAlgorithm: 'sha256', hashValue: stored!.name },
    });
    const sent = await cliSend({
      cli,
      dir,
      address: temporalAddress(),
      workflowId: runId,
      kind: 'signal',
      name: 'approveToolCall',
      payload: { meta: REFERENCE_META, data },
    });
    expect(sent.failed).toBeUndefined();
    expect(await takenSignals(raw, runId)).toEqual({ failedTasks: [] });
    const refused = refusals(await w.client.getRun(runId)).find((d) => !d.accepted);
    expect(refused?.refusal).toMatchObject({
      type: 'InvalidDecision',
      message: expect.stringMatching(/could not be decoded: .*stored for another workflow/),
    });

    // A's run goes on as usual.
    const rest = await collect(await w.client.approveToolCall({ runId }));
    const result = await w.client.result(runId);
    expect(result.text).toBe(`Sent ${note}.`);
    expect(ran.filter((n) => n === note)).toHaveLength(1);

    // Nothing of B's payload anywhere in A: memo and trail, result, stream, A's stored payloads.
    const seen = JSON.stringify([await w.client.getRun(runId), result, first, rest]);
    expect(seen).not.toContain(secret);
    const own = join(store, 'default', runId);
    for (const name of await readdir(own)) expect((await readFile(join(own, name))).includes(secret)).toBe(false);
  });

  it("is read where it was stored: a run's own, and a sub-agent's result in its parent run", async () => {
    // Each level's result is over the threshold: stored under its parent's id, read in the child's context.
    const long = 'y'.repeat(2000);
    const options: RunOptions = {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'agent-mid', args: { prompt: 'get it done' } }] }, { text: 'top is done' }],
      subAgentOptions: {
        mid: {
          model: 'scripted',
          script: [{ toolCalls: [{ toolName: 'agent-leaf', args: { prompt: 'do it' } }] }, { text: `mid ${long}` }],
          subAgentOptions: { leaf: { model: 'scripted', script: [{ text: `leaf ${long}` }] } },
        },
      },
    };
    const result = await w.client.generate('top', 'go', options);
    expect(result.text).toBe('top is done');
    expect(result.toolResults[0]).toMatchObject({ isError: false, output: { text: `mid ${long}` } });
    expect(await readdir(join(store, 'default', result.runId))).not.toHaveLength(0);
  });
});

describe('a payload store the process cannot write', () => {
  it('stops a worker, a client and agentctl at start, with one line naming the problem', async () => {
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'not a directory');
    const directory = join(blocker, 'payloads');
    const externalStorage = await createExternalStorage({ kind: 'files', directory });
    const problem = /^payload store \(DURABLE_AGENTS_PAYLOAD_STORE\): cannot write.*\(ENOTDIR\)/;

    const worker = createWorker({
      agents: [storeAgent],
      externalStorage,
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: 'never-served',
    });
    await expect(worker).rejects.toThrow(problem);
    await expect(AgentClient.connect({ address: temporalAddress(), externalStorage })).rejects.toThrow(problem);
    const ctl = await agentctl(['--address', temporalAddress(), '--namespace', 'default', 'runs', 'list'], {
      DURABLE_AGENTS_PAYLOAD_STORE: directory,
    });
    expect(ctl.code).toBe(1);
    expect(ctl.stderr.trim().split('\n')).toHaveLength(1);
    expect(ctl.stderr).toMatch(/payload store \(DURABLE_AGENTS_PAYLOAD_STORE\): cannot write/);
  });
});

describe('a payload store that fails once the worker runs', () => {
  it("ends the tool's call as a tool error, the tool run once, and names no directory", async () => {
    const store = join(dir, 'failing');
    const externalStorage = await createExternalStorage({ kind: 'files', directory: store });
    const w = await startWorker([storeAgent], { externalStorage });
    try {
      // The namespace's folder becomes a file: nothing more can be stored.
      await mkdir(store, { recursive: true });
      await writeFile(join(store, 'default'), 'in the way');
      const note = `big-${randomBytes(4).toString('hex')}`;
      const script: Script = [{ toolCalls: [{ toolName: 'big', args: { note } }] }, { text: 'Could not.' }];
      const result = await w.client.generate('store-agent', 'go', { model: 'scripted', script });
      expect(result.finishReason).toBe('stop');
      expect(result.toolResults[0]).toMatchObject({
        isError: true,
        error: expect.stringMatching(/^Tool "big" failed: the payload store could not keep a payload \(ENOTDIR\)/),
      });
      expect(ran.filter((n) => n === note)).toHaveLength(1);
      const history = proto.temporal.api.history.v1.History.encode({ events: await rawHistory(raw, result.runId) });
      expect(Buffer.from(history.finish()).includes(store)).toBe(false);
      expect(JSON.stringify(result)).not.toContain(store);
    } finally {
      await w.stop();
    }
  });
});
