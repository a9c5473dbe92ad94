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
import { InvalidSignatureError, type RunResult } from '../../src/index.js';
import { signDecision } from '../../src/client/signing.js';
import type { DecisionSignal } from '../../src/schemas/decisions.js';
import { approveToolCallSignal } from '../../src/workflows/messages.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

const run = promisify(execFile);
const approver = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const pem = (key: typeof approver.privateKey) => key.export({ format: 'pem', type: 'pkcs8' }).toString();

let w: TestWorker;
let dir: string;
beforeAll(async () => {
  w = await startWorker([toolboxAgent], {
    decisionKeys: { 'approver-1': approver.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
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
    (await w.client.getRun(runId)).decisions.find((d) => d.decisionId === decisionId),
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
