/**
 * Signed decisions: with approver keys on the worker, only a decision signed with one of them counts.
 * An unsigned decision from the client, a raw signal sent with the official Temporal CLI, an expired,
 * tampered, misdirected or replayed signature are each refused and recorded; the run keeps waiting.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defineAgent, InvalidSignatureError, type RunResult } from '../../src/index.js';
import { signDecision } from '../../src/client/decisions/signing.js';
import type { DecisionSignal } from '../../src/schemas/decisions.js';
import { approveToolCallSignal } from '../../src/protocol/run-messages.js';
import { guardedTool, toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';
import { verdictIn } from '../../src/client/runs/runs.js';

const run = promisify(execFile);
const approver = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const pem = (key: typeof approver.privateKey) => key.export({ format: 'pem', type: 'pkcs8' }).toString();
const publicPem = (key: typeof approver.publicKey) => key.export({ format: 'pem', type: 'spki' }).toString();
// Operators whose keys the workers bind to who they are: Ann is an approver, Bob is not.
const ann = generateKeyPairSync('ed25519');
const bob = generateKeyPairSync('ed25519');
const boundKeys = {
  'ops-ann': { publicKey: publicPem(ann.publicKey), principal: { id: 'ann', roles: ['approver'] } },
  'ops-bob': { publicKey: publicPem(bob.publicKey), principal: { id: 'bob' } },
};

/** Only approvers decide its calls. */
const approversAgent = defineAgent({
  id: 'approvers-agent',
  name: 'Approvers only',
  model: 'scripted',
  tools: { guarded: guardedTool },
  access: { decide: ['role:approver'] },
});

let w: TestWorker;
let dir: string;
beforeAll(async () => {
  w = await startWorker([toolboxAgent, approversAgent], {
    decisionKeys: { 'approver-1': publicPem(approver.publicKey), ...boundKeys },
  });
  dir = await mkdtemp(join(tmpdir(), 'signed-'));
});
afterAll(async () => {
  await w?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function paused(target: string): Promise<RunResult> {
  const result = await w.client.generate('toolbox-agent', 'go', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'guarded', args: { target } }] }, { text: 'Done.' }],
  });
  expect(result.finishReason).toBe('suspended');
  return result;
}

/** Waits for the verdict on a decision; it must be a refusal for a signature that does not hold. */
async function refusedSignature(runId: string, decisionId: string): Promise<string> {
  const verdict = await waitFor(`the verdict on ${decisionId}`, async () =>
    verdictIn(await w.client.getRun(runId), decisionId),
  );
  expect(verdict).toMatchObject({ accepted: false, refusal: { type: 'InvalidSignature' } });
  return verdict.refusal!.message;
}

async function stillWaiting(runId: string): Promise<void> {
  const info = await w.client.getRun(runId);
  expect(info.status).toBe('suspended');
  expect(info.pendingToolCalls).toHaveLength(1);
  expect(await historyEventTypes(w.client, runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
}

it('refuses unsigned, forged, expired and misdirected decisions, and takes a signed one once', async () => {
  const a = await paused('a');
  const b = await paused('b');
  const call = a.pendingToolCalls[0]!;
  const base: DecisionSignal = {
    decisionId: 'x',
    toolCallId: call.toolCallId,
    fingerprint: call.fingerprint,
    principal: { id: 'ann' },
  };
  const binding = { runId: a.runId, toolCallId: call.toolCallId };
  const key = { keyId: 'approver-1', privateKey: pem(approver.privateKey) };

  // The client without a key: the run refuses, and the caller gets the typed refusal.
  await expect(w.client.approveToolCallGenerate({ runId: a.runId, principal: 'ann' })).rejects.toThrow(
    InvalidSignatureError,
  );

  // A raw signal with the official Temporal CLI, as anyone with signal rights could send it.
  const cli = (await run('bash', ['temporal-dev.sh', 'cli'])).stdout.trim().split('\n').at(-1)!;
  const input = JSON.stringify({ ...base, decisionId: 'from-the-cli' });
  await run(cli, [
    'workflow',
    'signal',
    '--address',
    temporalAddress(),
    '--namespace',
    'default',
    '--workflow-id',
    a.runId,
    '--name',
    'approveToolCall',
    '--input',
    input,
  ]);
  expect(await refusedSignature(a.runId, 'from-the-cli')).toMatch(/not signed/);

  const handle = w.client.temporal.workflow.getHandle(a.runId);
  const cases: Array<[DecisionSignal, RegExp]> = [
    [
      signDecision(
        { ...key, privateKey: pem(stranger.privateKey) },
        'approve',
        { ...base, decisionId: 'stranger' },
        binding,
      ),
      /does not match/,
    ],
    [signDecision(key, 'approve', { ...base, decisionId: 'old' }, binding, Date.now() - 10 * 60_000), /expired/],
    [
      signDecision(key, 'approve', { ...base, decisionId: 'for-b' }, { runId: b.runId, toolCallId: call.toolCallId }),
      /not this one/,
    ],
    [{ ...signDecision(key, 'decline', { ...base, decisionId: 'kind' }, binding) }, /does not match/], // signed as a decline
    [
      { ...signDecision(key, 'approve', { ...base, decisionId: 'edited' }, binding), args: { target: 'prod' } },
      /does not match/,
    ],
    [
      signDecision({ ...key, keyId: 'unknown' }, 'approve', { ...base, decisionId: 'unknown-key' }, binding),
      /no approver key "unknown"/,
    ],
  ];
  for (const [decision, reason] of cases) {
    await handle.signal(approveToolCallSignal, decision);
    expect(await refusedSignature(a.runId, decision.decisionId)).toMatch(reason);
  }
  await stillWaiting(a.runId);

  // agentctl with the approver's key: accepted.
  const keyFile = join(dir, 'approver.pem');
  await writeFile(keyFile, key.privateKey);
  const approved = await agentctl([
    '--address',
    temporalAddress(),
    '--namespace',
    'default',
    '--as',
    'ann',
    '--signing-key',
    keyFile,
    '--key-id',
    'approver-1',
    'approve',
    a.runId,
    '--fingerprint',
    call.fingerprint,
    '--wait',
    '--json',
  ]);
  expect(approved.code).toBe(0);
  const sent = JSON.parse(approved.stdout) as { decisionId: string; result: RunResult };
  expect(sent.result.finishReason).toBe('stop');

  // The same signed decision again (taken from the history, as an eavesdropper could): refused.
  const history = await handle.fetchHistory();
  const signaled = history.events!.find(
    (e) =>
      e.workflowExecutionSignaledEventAttributes?.signalName === 'approveToolCall' &&
      Buffer.from(e.workflowExecutionSignaledEventAttributes.input!.payloads![0]!.data!)
        .toString()
        .includes(sent.decisionId),
  );
  const replayed = JSON.parse(
    Buffer.from(signaled!.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!).toString(),
  ) as DecisionSignal;
  expect(replayed.signature).toBeDefined();
  const bHandle = w.client.temporal.workflow.getHandle(b.runId);
  await bHandle.signal(approveToolCallSignal, { ...replayed, toolCallId: b.pendingToolCalls[0]!.toolCallId });
  expect(await refusedSignature(b.runId, sent.decisionId)).toMatch(/not this one|does not match/);
  await stillWaiting(b.runId);
});

it("carries an operator's roles only with a key the workers bind to them, never from a flag", async () => {
  const started = await w.client.generate('approvers-agent', 'go', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'guarded', args: { target: 'vault' } }] }, { text: 'Done.' }],
  });
  expect(started.finishReason).toBe('suspended');
  const { runId } = started;
  const { fingerprint } = started.pendingToolCalls[0]!;
  const files = {
    keys: join(dir, 'keys.json'),
    ann: join(dir, 'ann.pem'),
    bob: join(dir, 'bob.pem'),
    forged: join(dir, 'forged.json'),
  };
  await writeFile(files.keys, JSON.stringify(boundKeys));
  await writeFile(files.ann, pem(ann.privateKey));
  await writeFile(files.bob, pem(bob.privateKey));
  // Bob's own copy of the keys file, where he gave himself the role.
  const forgedKeys = {
    ...boundKeys,
    'ops-bob': { ...boundKeys['ops-bob'], principal: { id: 'bob', roles: ['approver'] } },
  };
  await writeFile(files.forged, JSON.stringify(forgedKeys));
  const ctl = (args: string[], after: string[] = []) =>
    agentctl([
      '--address',
      temporalAddress(),
      '--namespace',
      'default',
      ...args,
      'approve',
      runId,
      '--fingerprint',
      fingerprint,
      ...after,
    ]);

  // A bare --as names an id, no role: the rule is not met.
  expect(await ctl(['--as', 'ann'])).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^agentctl: refused \(NotAllowed\): .*role:approver/),
  });
  // Roles written into one's own copy of the keys file: the workers' binding says otherwise.
  const forged = ['--identity', files.forged, '--signing-key', files.bob, '--key-id', 'ops-bob'];
  expect(await ctl(forged, ['--wait'])).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(
      /^agentctl: refused \(InvalidSignature\): .*key "ops-bob" is bob's, who has no role approver/,
    ),
  });
  // Another's key, or a name other than the key's: refused before anything is sent.
  expect(await ctl(['--identity', files.keys, '--signing-key', files.bob, '--key-id', 'ops-ann'])).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^agentctl: --signing-key .*bob\.pem: is not the key "ops-ann" of .*keys\.json/),
  });
  expect(
    await ctl(['--as', 'mallory', '--identity', files.keys, '--signing-key', files.ann, '--key-id', 'ops-ann']),
  ).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^agentctl: --as: "mallory" is not who key "ops-ann" is: ann; leave --as out/),
  });
  expect(await ctl(['--identity', files.keys])).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^agentctl: --identity: names who you are by your signing key: give --signing-key/),
  });
  const info = await w.client.getRun(runId);
  expect(info.status).toBe('suspended');
  expect(info.pendingToolCalls).toHaveLength(1);

  // Ann, by the key the workers bind to her: her role meets the rule.
  const approved = await ctl(
    ['--identity', files.keys, '--signing-key', files.ann, '--key-id', 'ops-ann'],
    ['--wait', '--json'],
  );
  expect(approved.stderr).toBe('');
  expect(approved.code).toBe(0);
  expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'applied', result: { finishReason: 'stop' } });
  const trail = (await w.client.getRun(runId)).decisions;
  expect(trail.filter((d) => d.accepted)).toEqual([
    expect.objectContaining({ kind: 'approve', principal: expect.objectContaining({ id: 'ann' }) }),
  ]);
});
