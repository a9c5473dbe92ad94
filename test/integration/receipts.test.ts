/**
 * Receipts on the dev server: a run's signed decisions, across continue-as-new, read by the client,
 * exported by `agentctl audit export` and verified offline by `agentctl audit verify`; a file whose chain
 * was rewritten fails with the approvers' keys; a time range is exported by tenant.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { receiptHash, receiptLine } from '../../src/approvals/receipts.js';
import { AgentClient } from '../../src/client/index.js';
import type { Receipt } from '../../src/schemas/receipts.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

const ann = generateKeyPairSync('ed25519');
const publicPem = ann.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const privatePem = ann.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const keys = { 'ops-ann': { publicKey: publicPem, principal: { id: 'ann' } } };

let w: TestWorker;
let signing: AgentClient;
let dir: string;
beforeAll(async () => {
  w = await startWorker([toolboxAgent], { decisionKeys: keys });
  signing = await AgentClient.connect({
    address: temporalAddress(),
    namespace: 'default',
    taskQueue: w.taskQueue,
    signingKey: { keyId: 'ops-ann', privateKey: privatePem },
    principal: { id: 'ann' },
    tracing: false,
    externalStorage: false,
  });
  dir = await mkdtemp(join(tmpdir(), 'receipts-'));
  await writeFile(join(dir, 'keys.json'), JSON.stringify(keys));
});
afterAll(async () => {
  await signing?.close();
  await w?.stop();
  await rm(dir, { recursive: true, force: true });
});

const guarded = (target: string) => ({ toolCalls: [{ toolName: 'guarded', args: { target } }] });
const ctl = (args: string[]) => agentctl(['--address', temporalAddress(), '--namespace', 'default', ...args]);

/** A run that waits on two calls in turn, continuing as new after each step; both decided with Ann's key. */
async function decidedRun(resourceId?: string): Promise<string> {
  const script = [guarded('a'), guarded('b'), { text: 'Done.' }];
  const options = { model: 'scripted', script, continueAsNewEvery: 1, ...(resourceId ? { resourceId } : {}) };
  const first = await w.client.generate('toolbox-agent', 'go', options);
  expect(first.finishReason).toBe('suspended');
  const { runId } = first;
  const second = await signing.decide({ kind: 'approve', runId }, { then: 'result' });
  expect(second.finishReason).toBe('suspended');
  const done = await signing.decide({ kind: 'decline', runId, reason: 'not b' }, { then: 'result' });
  expect(done.finishReason).toBe('stop');
  return runId;
}

it('keeps a receipt of each decision across continue-as-new, which agentctl exports and verifies', async () => {
  const runId = await decidedRun();
  const executions = [];
  for await (const e of w.client.temporal.workflow.list({ query: `WorkflowId = '${runId}'` })) executions.push(e);
  expect(executions.length).toBeGreaterThan(1);

  const receipts = await w.client.receipts({ runId });
  expect(receipts).toMatchObject([
    { runId, seq: 0, prev: null, kind: 'approve', principal: { id: 'ann' }, signature: { keyId: 'ops-ann' } },
    { runId, seq: 1, prev: receipts[0]!.hash, kind: 'decline', reason: 'not b', signature: { keyId: 'ops-ann' } },
  ]);

  const file = join(dir, 'run.jsonl');
  const exported = await ctl(['audit', 'export', runId, '--out', file]);
  expect(exported).toMatchObject({ code: 0, stderr: `agentctl: 2 receipts written to ${file}\n` });
  expect(
    (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Receipt),
  ).toEqual(receipts);
  // An export never overwrites one made before.
  expect(await ctl(['audit', 'export', runId, '--out', file])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('the file exists'),
  });

  const keysFile = join(dir, 'keys.json');
  const verified = await agentctl(['audit', 'verify', file, '--keys', keysFile]);
  expect(verified.code).toBe(0);
  expect(verified.stdout).toBe(
    `${runId}: 2 receipts from seq 0, 2 signed (2 checked), last hash ${receipts[1]!.hash}\n` +
      'verified: 2 receipts of 1 runs\n',
  );

  // The auditor's copy after someone put another approver's name on the first decision and hashed the
  // chain again: the hashes hold; Ann's key, which the keys file binds to her, does not sign for Bob.
  const forged: Receipt[] = [];
  for (const r of receipts) {
    const fields = { ...r, prev: forged.at(-1)?.hash ?? null, ...(r.seq === 0 ? { principal: { id: 'bob' } } : {}) };
    forged.push({ ...fields, hash: receiptHash(fields) });
  }
  const forgedFile = join(dir, 'forged.jsonl');
  await writeFile(forgedFile, forged.map(receiptLine).join('\n'));
  expect((await agentctl(['audit', 'verify', forgedFile])).code).toBe(0);
  expect(await agentctl(['audit', 'verify', forgedFile, '--keys', keysFile])).toMatchObject({
    code: 1,
    stderr: `agentctl: ${forgedFile} line 1 (run ${runId}, seq 0) does not verify: its signature (key "ops-ann") is by ann's key, but the receipt names bob\n`,
  });
  // The first decision cut out of the file.
  const cutFile = join(dir, 'cut.jsonl');
  await writeFile(cutFile, `${receiptLine(receipts[1]!)}\n`);
  expect(await agentctl(['audit', 'verify', cutFile])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(
      'line 1 (run ' + runId + ", seq 1) does not verify: the run's receipts before seq 1",
    ),
  });
});

it("exports a time range of a tenant's runs, and refuses a range that is not one", async () => {
  const tenant = `tenant-${randomUUID()}`;
  const since = new Date(Date.now() - 1000).toISOString();
  const [one, two] = [await decidedRun(tenant), await decidedRun(tenant)];
  const until = new Date(Date.now() + 1000).toISOString();
  const receipts = await w.client.receipts({ since, until, resourceId: tenant });
  expect(receipts.map((r) => [r.runId, r.seq]).sort()).toEqual(
    [
      [one, 0],
      [one, 1],
      [two, 0],
      [two, 1],
    ].sort(),
  );
  // Nothing before the range.
  expect(await w.client.receipts({ since: until, resourceId: tenant })).toEqual([]);
  await expect(w.client.receipts({ since, resourceId: tenant, limit: 1 })).rejects.toThrow(
    /^limit: more than 1 runs have receipts between .*: export a shorter range, or raise limit/,
  );
  await expect(w.client.receipts({ since: 'yesterday' })).rejects.toThrow(/^since: "yesterday" is not a time/);
  await expect(w.client.receipts({ runId: one, since } as never)).rejects.toThrow(/since/);

  const file = join(dir, 'range.jsonl');
  const exported = await ctl([
    'audit',
    'export',
    '--since',
    since,
    '--until',
    until,
    '--resource',
    tenant,
    '--out',
    file,
  ]);
  expect(exported.code).toBe(0);
  const verified = await agentctl(['audit', 'verify', file, '--keys', join(dir, 'keys.json')]);
  expect(verified).toMatchObject({ code: 0, stdout: expect.stringContaining('verified: 4 receipts of 2 runs') });
  expect(await ctl(['audit', 'export', one, '--since', since])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('name the runs, or give --since'),
  });
});
