import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { createPayloadCodec, PayloadDecryptError, UnkeyedCodec, UnknownCodecKeyError } from '../../src/codec/index.js';
import { createWorker } from '../../src/worker/index.js';
import { collect, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';

const keyA = { id: 'key-a', key: randomBytes(32) };
const keyB = { id: 'key-b', key: randomBytes(32) };
const codecA = createPayloadCodec({ keys: [keyA] });
const codecB = createPayloadCodec({ keys: [keyB] });
const codecBA = createPayloadCodec({ keys: [keyB, keyA] });

/** Distinct secrets for each place user content goes: prompt, tool arguments, tool result, model text, decider. */
function secrets() {
  const id = randomUUID();
  return {
    prompt: `prompt-secret-${id}`,
    args: `args-secret-${id}`,
    result: `result-secret-${id}`,
    text: `text-secret-${id}`,
    by: `by-secret-${id}`,
  };
}
type Secrets = ReturnType<typeof secrets>;
/** The tool returns the receipt it was told to in its arguments, so the result's secret is the tool's own output. */
const receipts = new Map<string, string>();

const stashTool = createTool({
  id: 'stash',
  description: 'Keeps a note',
  inputSchema: z.object({ note: z.string() }),
  requireApproval: true,
  execute: ({ note }) => ({ receipt: receipts.get(note) ?? 'none' }),
});
const jamTool = createTool({
  id: 'jam',
  description: 'Fails, quoting its arguments',
  inputSchema: z.object({ note: z.string() }),
  activity: { retry: { maximumAttempts: 1 } },
  execute: ({ note }): { ok: true } => {
    throw new Error(`cannot stash ${note}`);
  },
});
const vaultAgent = defineAgent({
  id: 'vault-agent',
  name: 'Vault',
  instructions: 'You keep notes.',
  model: 'scripted',
  // A test runs it on a model no provider knows, to see the failure encrypted.
  overridable: ['model'],
  tools: { stash: stashTool, jam: jamTool },
});

const scriptFor = (s: Secrets): Script => {
  receipts.set(s.args, s.result);
  return [{ text: 'Keeping it.', toolCalls: [{ toolName: 'stash', args: { note: s.args } }] }, { text: s.text }];
};

/** A Temporal client with no codec at all: it sees what the server stores. */
let raw: Client;
let rawConnection: Connection;
beforeAll(async () => {
  rawConnection = await Connection.connect({ address: temporalAddress() });
  raw = new Client({ connection: rawConnection, namespace: 'default' });
});
afterAll(async () => {
  await rawConnection?.close();
});

/**
 * What the server keeps of a run, as bytes: the history of every run of its chain (continue-as-new
 * included) in protobuf, and the memo as describe and visibility list return it.
 */
async function stored(runId: string) {
  const service = raw.workflowService;
  const listed = await service.listWorkflowExecutions({ namespace: 'default', query: `WorkflowId = '${runId}'` });
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  for (const execution of listed.executions) {
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await service.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: execution.execution,
        nextPageToken,
      });
      events.push(...(page.history?.events ?? []));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  const described = await service.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: runId } });
  const memos = [described.workflowExecutionInfo?.memo, ...listed.executions.map((e) => e.memo)];
  const bytes = Buffer.concat([
    temporal.api.history.v1.History.encode({ events }).finish(),
    ...memos.map((m) => temporal.api.common.v1.Memo.encode(m ?? {}).finish()),
  ]);
  const memoPayloads = [
    ...events.flatMap((e) => Object.values(e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {})),
    ...events.flatMap((e) => Object.values(e.workflowExecutionStartedEventAttributes?.memo?.fields ?? {})),
    ...memos.flatMap((m) => Object.values(m?.fields ?? {})),
  ];
  return { bytes, events, memoPayloads, runs: listed.executions.length };
}

const encodingOf = (p: temporal.api.common.v1.IPayload) => Buffer.from(p.metadata?.encoding ?? []).toString();
const keyIdOf = (p: temporal.api.common.v1.IPayload) => Buffer.from(p.metadata?.['encryption-key-id'] ?? []).toString();

/** Which of the test's key ids the stored bytes name (key ids are stored in clear, in each payload's metadata). */
const keyIdsIn = (bytes: Buffer): Set<string> => new Set([keyA.id, keyB.id].filter((id) => bytes.includes(id)));

/**
 * One run through every place user content goes: a streamed prompt, a tool call that waits for
 * approval (memo, search attributes, stream), the approval with who decided, the tool's result,
 * the model's final text, and a continue-as-new (memo handed to the next run at its start).
 */
async function runEverywhere(w: TestWorker, s: Secrets): Promise<string> {
  // A thread of its own, so that the listing below sees no run of the other tests (which other keys encrypt).
  const threadId = `thread-${randomUUID()}`;
  const stream = await w.client.stream('vault-agent', s.prompt, {
    model: 'scripted',
    script: scriptFor(s),
    continueAsNewEvery: 1,
    threadId,
  });
  const first = await collect(stream);
  expect(first.find((c) => c.type === 'tool-call-approval')).toMatchObject({ args: { note: s.args } });

  // The client with the codec finds the run and reads its pending call from the memo.
  const listed = await waitFor('the run in listSuspendedRuns', async () =>
    (await w.client.listSuspendedRuns({ agentId: 'vault-agent', threadId })).find((r) => r.runId === stream.runId),
  );
  expect(listed.pendingToolCalls).toEqual([expect.objectContaining({ toolName: 'stash', args: { note: s.args } })]);
  expect((await w.client.getRun(stream.runId)).pendingToolCalls[0]?.args).toEqual({ note: s.args });

  const rest = await collect(await w.client.approveToolCall({ runId: stream.runId, by: s.by }));
  expect(rest.find((c) => c.type === 'tool-result')).toMatchObject({ output: { receipt: s.result } });
  const done = await w.client.result(stream.runId);
  expect(done.text).toBe(s.text);
  expect(done.decisions).toEqual([expect.objectContaining({ kind: 'approve', by: s.by, accepted: true })]);
  expect((await w.client.getRun(stream.runId)).decisions[0]?.by).toBe(s.by);
  return stream.runId;
}

describe('with the codec on', () => {
  let w: TestWorker;
  beforeAll(async () => {
    w = await startWorker([vaultAgent], { codec: codecA });
  });
  afterAll(async () => {
    await w?.stop();
  });

  it('keeps prompt, tool arguments and result, model text, decider and memo out of the stored run', async () => {
    const s = secrets();
    const runId = await runEverywhere(w, s);

    const { bytes, events, memoPayloads, runs } = await stored(runId);
    expect(runs).toBe(2); // continued as new once
    for (const secret of Object.values(s)) expect(bytes.includes(secret)).toBe(false);
    // The memo, upserted by the workflow and handed on at continue-as-new, is encrypted too.
    expect(events.some((e) => e.workflowPropertiesModifiedEventAttributes)).toBe(true);
    expect(events.some((e) => e.workflowExecutionStartedEventAttributes?.memo)).toBe(true);
    expect(memoPayloads.length).toBeGreaterThan(3);
    expect(memoPayloads.map(encodingOf)).toEqual(memoPayloads.map(() => 'binary/encrypted'));
    expect(memoPayloads.map(keyIdOf)).toEqual(memoPayloads.map(() => 'key-a'));
    expect(keyIdsIn(bytes)).toEqual(new Set(['key-a']));
  });

  it('refuses a client without the key, or with another key under its id, with an error that says so', async () => {
    const s = secrets();
    const paused = await w.client.generate('vault-agent', s.prompt, { model: 'scripted', script: scriptFor(s) });
    expect(paused.finishReason).toBe('suspended');

    const connect = (codec: PayloadCodec) =>
      AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue: w.taskQueue, codec });
    const noKeys = await connect(new UnkeyedCodec());
    const impostor = await connect(createPayloadCodec({ keys: [{ id: 'key-a', key: keyB.key }] }));
    try {
      const missing = await noKeys.getRun(paused.runId).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(UnknownCodecKeyError);
      expect((missing as Error).message).toMatch(
        /^A payload is encrypted with codec key "key-a", but this process has no codec keys/,
      );
      // A list does not fail on a run it cannot read: it shows it, says why, and what it cannot tell.
      const listed = await waitFor('the run in the list', async () =>
        (await noKeys.listSuspendedRuns({ agentId: 'vault-agent' })).find((r) => r.runId === paused.runId),
      );
      expect(listed).toMatchObject({ pendingToolCalls: [], unreadable: expect.stringMatching(/codec key "key-a"/) });
      await expect(noKeys.approveToolCallGenerate({ runId: paused.runId })).rejects.toThrow(UnknownCodecKeyError);
      await expect(impostor.getRun(paused.runId)).rejects.toThrow(PayloadDecryptError);
      // A decision is checked against the memo first, so a client that cannot read the run sends none
      // (a signal the worker cannot decrypt would fail its workflow tasks until the worker had that key).
      await expect(impostor.approveToolCallGenerate({ runId: paused.runId })).rejects.toThrow(
        /^A payload encrypted with codec key "key-a" does not decrypt \(Unsupported state or unable to authenticate data\)/,
      );
    } finally {
      await noKeys.close();
      await impostor.close();
    }
    // Nothing was decided or sent: the run still waits, and the owner of the key goes on with it.
    expect((await w.client.getRun(paused.runId)).status).toBe('suspended');
    expect((await stored(paused.runId)).events.some((e) => e.workflowExecutionSignaledEventAttributes)).toBe(false);
    expect((await w.client.approveToolCallGenerate({ runId: paused.runId })).text).toBe(s.text);
  });
});

it('a worker without the key fails a run it cannot read at once, naming the key it needs', async () => {
  // Waiting for a worker with the key would mean failing the workflow task on every attempt, which
  // whoever starts or signals a run must not be able to cause (a signal it cannot read is refused).
  const w = await startWorker([vaultAgent], { codec: codecB });
  const starter = await AgentClient.connect({
    address: temporalAddress(),
    namespace: 'default',
    taskQueue: w.taskQueue,
    codec: codecA,
  });
  try {
    const s = secrets();
    const { runId } = await starter.start('vault-agent', s.prompt, { model: 'scripted', script: scriptFor(s) });
    const failure = await waitFor('the failed run', async () => {
      const { events } = await stored(runId);
      return events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes
        ?.failure;
    });
    // (The tests' prebuilt bundle has no failure converter: the run's own failure is in clear, and holds no secret.)
    expect(failure?.message).toMatch(
      /^Invalid run input: the payload could not be decoded: encrypted with codec key "key-a", which this worker does not have/,
    );
    const { events } = await stored(runId);
    expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
    for (const secret of Object.values(s)) expect((await stored(runId)).bytes.includes(secret)).toBe(false);
  } finally {
    await starter.close();
    await w.stop();
  }
});

it('rotates keys: a run started under key A is read and approved with keyring [B current, A old]', async () => {
  const s = secrets();
  const before = await startWorker([vaultAgent], { codec: codecA });
  const paused = await before.client.generate('vault-agent', s.prompt, { model: 'scripted', script: scriptFor(s) });
  expect(paused.finishReason).toBe('suspended');
  await before.stop();

  // Without A in the ring, the run that waits since before the rotation cannot be read, and the error names A.
  const onlyB = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', codec: codecB });
  try {
    await expect(onlyB.getRun(paused.runId)).rejects.toThrow(
      'A payload is encrypted with codec key "key-a", which this process\'s keyring ("key-b") does not have.',
    );
  } finally {
    await onlyB.close();
  }

  const after = await startWorker([vaultAgent], { codec: codecBA, taskQueue: before.taskQueue });
  try {
    const listed = await after.client.listSuspendedRuns({ agentId: 'vault-agent' });
    expect(listed.find((r) => r.runId === paused.runId)?.pendingToolCalls[0]?.args).toEqual({ note: s.args });
    const done = await after.client.approveToolCallGenerate({ runId: paused.runId, by: s.by });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe(s.text);
    expect(done.toolResults[0]).toMatchObject({ output: { receipt: s.result } });

    const { bytes } = await stored(paused.runId);
    expect(keyIdsIn(bytes)).toEqual(new Set(['key-a', 'key-b'])); // older events under A, newer under B
    for (const secret of Object.values(s)) expect(bytes.includes(secret)).toBe(false);
  } finally {
    await after.stop();
  }
});

it('control: without codec keys the same run is stored in clear (so the checks above can fail)', async () => {
  const w = await startWorker([vaultAgent], { codec: new UnkeyedCodec() });
  try {
    const s = secrets();
    const { bytes, memoPayloads } = await stored(await runEverywhere(w, s));
    for (const secret of Object.values(s)) expect(bytes.includes(secret), secret).toBe(true);
    expect(new Set(memoPayloads.map(encodingOf))).toEqual(new Set(['json/plain']));
  } finally {
    await w.stop();
  }
});

/** A tool that fails with its arguments in the message, then the model's answer. */
const jamScript = (s: Secrets): Script => [
  { toolCalls: [{ toolName: 'jam', args: { note: s.args } }] },
  { text: s.text },
];

describe('failure messages', () => {
  it('are encrypted too: a tool error quoting its arguments, and a run failure', async () => {
    // Bundled here (no prebuilt bundle), as a worker does by default, so that the workflow's own
    // failures go through the same failure converter as the activities'.
    const connection = await NativeConnection.connect({ address: temporalAddress() });
    const taskQueue = `test-${randomUUID()}`;
    const agentWorker = await createWorker({
      agents: [vaultAgent],
      codec: codecA,
      connection,
      namespace: 'default',
      taskQueue,
      enableScriptedModel: true,
    });
    const running = agentWorker.run();
    const client = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue,
      codec: codecA,
    });
    try {
      const s = secrets();
      const done = await client.generate('vault-agent', s.prompt, { model: 'scripted', script: jamScript(s) });
      expect(done.toolResults[0]).toMatchObject({
        isError: true,
        error: expect.stringContaining(`cannot stash ${s.args}`),
      });
      const jammed = await stored(done.runId);
      expect(
        jammed.events.some((e) => e.activityTaskFailedEventAttributes?.failure?.message === 'Encoded failure'),
      ).toBe(true);
      for (const secret of Object.values(s)) expect(jammed.bytes.includes(secret), secret).toBe(false);

      const model = `secret-model-${randomUUID()}`;
      const { runId } = await client.start('vault-agent', s.prompt, { model });
      await expect(client.result(runId)).rejects.toThrow(model); // the client reads the message
      const failed = await stored(runId);
      expect(
        failed.events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes
          ?.failure?.message,
      ).toBe('Encoded failure');
      expect(failed.bytes.includes(model)).toBe(false);
    } finally {
      agentWorker.shutdown();
      await running;
      await client.close();
      await connection.close();
    }
  });

  it('control: without codec keys they are stored in clear', async () => {
    const w = await startWorker([vaultAgent], { codec: new UnkeyedCodec() });
    try {
      const s = secrets();
      const done = await w.client.generate('vault-agent', s.prompt, { model: 'scripted', script: jamScript(s) });
      expect((await stored(done.runId)).bytes.includes(`cannot stash ${s.args}`)).toBe(true);
    } finally {
      await w.stop();
    }
  });
});
