/**
 * The bad-input catalogue: each class of bad or oversized input, through each surface (the HTTP
 * server, agentctl as a process, the client, raw signals and updates from the official Temporal CLI
 * and the SDK). Each must get a clear refusal (status or exit code, one line), leave the run as it
 * was and decidable, and fail no workflow task. The counts are printed at the end.
 */
import type { ServerType } from '@hono/node-server';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createTool,
  defineAgent,
  InvalidInputError,
  InvalidRunOptionsError,
  RunAlreadyExistsError,
  type RunResult,
  type Script,
} from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, jwtAuth, startServer } from '../../src/server/index.js';
import { verdictIn } from '../../src/client/runs/runs.js';
import { submitToolResultSignal } from '../../src/protocol/run-messages.js';
import { askTool, guardedTool, pickTool } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';
import { cliSend, REFERENCE_META, type RawPayload } from '../raw-payloads.js';

const run = promisify(execFile);

const bigTool = createTool({
  id: 'big',
  description: 'Returns as many KiB of text as asked for',
  inputSchema: z.object({ kib: z.number() }),
  execute: ({ kib }) => 'x'.repeat(kib * 1024),
});

/** A value only the raw arguments of a vault call hold: no answer, page or line of output may show it. */
const SECRET = 'VAULT-PIN-7391-SECRET';

const vaultTool = createTool({
  id: 'vault',
  description: 'Opens a vault with its PIN',
  inputSchema: z.object({ pin: z.string() }),
  requireApproval: true,
  execute: () => 'opened',
  transform: { display: { input: () => ({ pin: '[hidden]' }), approval: () => ({ pin: '[hidden]' }) } },
});

const edgeAgent = defineAgent({
  id: 'edge-agent',
  name: 'Edge',
  instructions: 'You use tools.',
  model: 'scripted',
  tools: { guarded: guardedTool, pick: pickTool, ask: askTool, big: bigTool, vault: vaultTool },
});
const vaultScript: Script = [{ toolCalls: [{ toolName: 'vault', args: { pin: SECRET } }] }, { text: 'Done.' }];

/** Every answer, page and line of output the catalogue saw that holds {@link SECRET}. */
const leaks: string[] = [];
function scan(where: string, text: string): void {
  if (text.includes(SECRET)) leaks.push(where);
}

const guardedScript: Script = [{ toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] }, { text: 'Done.' }];
const pickScript: Script = [{ toolCalls: [{ toolName: 'pick', args: { options: ['a', 'b'] } }] }, { text: 'Done.' }];
const askScript: Script = [{ toolCalls: [{ toolName: 'ask', args: { question: 'Colour?' } }] }, { text: 'Done.' }];

type Surface = 'HTTP' | 'agentctl' | 'client' | 'raw signals and updates';
const tally: Record<Surface, { tried: number; refused: number }> = {
  HTTP: { tried: 0, refused: 0 },
  agentctl: { tried: 0, refused: 0 },
  client: { tried: 0, refused: 0 },
  'raw signals and updates': { tried: 0, refused: 0 },
};
/** Every run the catalogue touched: none may have a failed workflow task. */
const touched = new Set<string>();

/**
 * The failures of a run's workflow tasks, but for the server's "unhandled command": a decision that
 * arrives while the run completes makes the server refuse that completion so the worker sees the new
 * event first; nothing failed, and the run goes on (two racing approvals do it under load).
 */
async function failedTasks(runId: string): Promise<string[]> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  const { WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND: UNHANDLED } =
    proto.temporal.api.enums.v1.WorkflowTaskFailedCause;
  return (history.events ?? [])
    .map((e) => e.workflowTaskFailedEventAttributes)
    .filter((a) => a && a.cause !== UNHANDLED)
    .map((a) => `cause ${a!.cause}: ${a!.failure?.message ?? 'no message'}`);
}

/** One input tried on a surface; it counts as refused cleanly once every assertion in `attempt` held. */
async function probe(surface: Surface, attempt: () => Promise<void>): Promise<void> {
  tally[surface].tried++;
  await attempt();
  tally[surface].refused++;
}

const TOKEN = 'catalogue-token-0123456789';
let w: TestWorker;
let server: ServerType;
let base: string;
let dir: string;
let cli: string;

beforeAll(async () => {
  w = await startWorker([edgeAgent]);
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ [TOKEN]: { id: 'tester' } }),
    agents: [edgeAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'model', 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'bad-input-'));
  cli = (await run('bash', ['temporal-dev.sh', 'cli'])).stdout.trim().split('\n').at(-1)!;
});

afterAll(async () => {
  let wedged = 0;
  let terminated = 0;
  for (const runId of touched) {
    const { status } = await w.client.temporal.workflow.getHandle(runId).describe();
    if (status.name === 'TERMINATED') terminated++;
    const failed = await failedTasks(runId);
    if (failed.length === 0) continue;
    wedged++;
    console.log(`run ${runId}: workflow task failed: ${failed.join('; ')}`);
  }
  const rows = Object.entries(tally).map(([s, t]) => `  ${s}: ${t.tried} inputs tried, ${t.refused} refused cleanly`);
  const total = Object.values(tally).reduce((n, t) => n + t.tried, 0);
  console.log(
    `bad-input catalogue (${total} inputs, ${touched.size} runs):\n${rows.join('\n')}\n  runs wedged: ${wedged}, ` +
      `terminated: ${terminated}, values leaked: ${leaks.length}${leaks.length ? ` (${leaks.join(', ')})` : ''}`,
  );
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
  await rm(dir, { recursive: true, force: true });
  expect({ wedged, terminated, leaks }).toEqual({ wedged: 0, terminated: 0, leaks: [] });
});

async function paused(script: Script): Promise<RunResult> {
  const result = await w.client.generate('edge-agent', 'go', { model: 'scripted', script });
  expect(result.pendingToolCalls).toHaveLength(1);
  touched.add(result.runId);
  return result;
}

function expectOneLine(message: string): void {
  expect(message).not.toMatch(/\n/);
  expect(message.length).toBeLessThan(1500);
}

/** The run waits on the same call as before, its memo stays small, and no workflow task failed. */
async function unchanged(before: RunResult): Promise<void> {
  const info = await w.client.getRun(before.runId);
  expect(info.status).toBe('suspended');
  expect(info.pendingToolCalls.map((p) => [p.toolCallId, p.fingerprint])).toEqual(
    before.pendingToolCalls.map((p) => [p.toolCallId, p.fingerprint]),
  );
  expect(JSON.stringify(info).length).toBeLessThan(100_000);
  expect(await historyEventTypes(w.client, before.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
}

async function refusedWith(promise: Promise<unknown>, type: new (...args: never[]) => Error, pattern: RegExp) {
  const err = await promise.then(
    () => new Error('not refused'),
    (e: unknown) => e as Error,
  );
  expect(err).toBeInstanceOf(type);
  expect(err.message).toMatch(pattern);
  expectOneLine(err.message);
}

async function http(method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  // Each answer is read twice: once here for the secret, once by the test.
  scan(`${method} ${path}`, await res.clone().text());
  return res;
}

async function httpRefusal(res: Response, status: number, pattern: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  const { error } = (await res.json()) as { error: { type: string; message: string } };
  expect(`${error.type}: ${error.message}`).toMatch(pattern);
  expectOneLine(error.message);
}

const ctl = (args: string[]) =>
  agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', w.taskQueue, ...args]);

async function ctlRefusal(args: string[], code: number, pattern: RegExp): Promise<void> {
  const result = await ctl(args);
  scan(`agentctl ${args[0]}`, result.stdout + result.stderr);
  expect(result.code).toBe(code);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expectOneLine(result.stderr.trim());
}

/** A signal from the official Temporal CLI, its payload from a file (an argument is limited to 128 KiB). */
async function cliSignal(runId: string, name: string, payload: unknown): Promise<void> {
  const file = join(dir, `signal-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, typeof payload === 'string' ? payload : JSON.stringify(payload));
  const args = ['workflow', 'signal', '--address', temporalAddress(), '--namespace', 'default'];
  await run(cli, [...args, '--workflow-id', runId, '--name', name, '--input-file', file]);
}

async function verdict(runId: string, decisionId: string) {
  return waitFor(`the verdict on ${decisionId}`, async () => verdictIn(await w.client.getRun(runId), decisionId));
}

describe('caller-sized fields', () => {
  it('refuses ids, notes and data over their bounds on every surface, and the run stays decidable', async () => {
    const approval = await paused(guardedScript);
    const { runId } = approval;
    const longId = 'c'.repeat(600_000);
    const longText = 'r'.repeat(3000);

    await probe('client', () =>
      refusedWith(w.client.sendDecision('approve', { runId, toolCallId: longId }), InvalidInputError, /toolCallId/),
    );
    await probe('client', () =>
      refusedWith(w.client.sendDecision('decline', { runId, reason: longText }), InvalidInputError, /reason/),
    );
    await probe('client', () =>
      refusedWith(w.client.sendDecision('approve', { runId, by: longText }), InvalidInputError, /by/),
    );
    await probe('client', () =>
      refusedWith(
        w.client.sendDecision('approve', { runId, args: { target: 'x'.repeat(300_000) } }),
        InvalidInputError,
        /args: 293 KiB of JSON; at most 256 KiB/,
      ),
    );
    await probe('HTTP', async () => {
      const res = await http('POST', `/runs/${runId}/approve`, {
        toolCallId: longId.slice(0, 500_000),
        fingerprint: 'f',
      });
      await httpRefusal(res, 400, /InvalidRequest: toolCallId: Too big/);
    });
    await probe('HTTP', async () => {
      const { fingerprint } = approval.pendingToolCalls[0]!;
      const res = await http('POST', `/runs/${runId}/decline`, { fingerprint, reason: longText });
      await httpRefusal(res, 400, /reason: Too big/);
    });
    await probe('agentctl', () =>
      ctlRefusal(['decline', runId, '--as', 'ops', '--latest', '--reason', longText], 2, /^agentctl: decision: reason/),
    );
    await probe('agentctl', () =>
      ctlRefusal(['approve', runId, '--as', 'ops', '--latest', '--note', longText], 2, /^agentctl: decision: by/),
    );
    await probe('agentctl', () =>
      ctlRefusal(['approve', runId, '--as', 'ops', '--latest', '--tool-call', 'c'.repeat(3000)], 2, /toolCallId/),
    );
    await probe('raw signals and updates', async () => {
      await cliSignal(runId, 'declineToolCall', { decisionId: 'long-reason', reason: longText });
      const d = await verdict(runId, 'long-reason');
      expect(d).toMatchObject({ accepted: false, reason: null, refusal: { type: 'InvalidDecision' } });
      expect(d.refusal!.message).toMatch(/reason: Too big/);
    });
    await probe('raw signals and updates', async () => {
      await cliSignal(runId, 'approveToolCall', { decisionId: 'long-id', toolCallId: 'c'.repeat(100_000) });
      const d = await verdict(runId, 'long-id');
      expect(d).toMatchObject({ accepted: false, toolCallId: null, refusal: { type: 'InvalidDecision' } });
    });
    await probe('raw signals and updates', async () => {
      // A principal as large as the schema allows: the trail keeps who, not the roles.
      const roles = Array.from({ length: 64 }, (_, i) => `${i}`.padEnd(256, 'r'));
      const principal = { id: 'fat', roles, groups: roles };
      await cliSignal(runId, 'approveToolCall', { decisionId: 'fat', fingerprint: 'stale', principal });
      expect(await verdict(runId, 'fat')).toMatchObject({ principal: { id: 'fat' }, accepted: false });
      expect((await verdict(runId, 'fat')).principal).not.toHaveProperty('roles');
    });
    await unchanged(approval);
    const done = await w.client.approveToolCallGenerate({ runId, principal: 'ops' });
    expect(done.finishReason).toBe('stop');
  });

  it('refuses a client result over 256 KiB at the client, over HTTP, and in the workflow', async () => {
    const waiting = await paused(pickScript);
    const { runId } = waiting;
    const { fingerprint } = waiting.pendingToolCalls[0]!;
    const huge = 'x'.repeat(700_000);
    await probe('client', () =>
      refusedWith(w.client.sendDecision('result', { runId, result: huge }), InvalidInputError, /result: 684 KiB/),
    );
    await probe('HTTP', async () => {
      await httpRefusal(await http('POST', `/runs/${runId}/tool-result`, { fingerprint, result: huge }), 413, /result/);
    });
    await probe('raw signals and updates', async () => {
      await w.client.temporal.workflow
        .getHandle(runId)
        .signal(submitToolResultSignal, { decisionId: 'sdk-huge', result: huge });
      const d = await verdict(runId, 'sdk-huge');
      expect(d.refusal).toMatchObject({ type: 'InvalidDecision', message: expect.stringMatching(/result: 684 KiB/) });
    });
    await probe('raw signals and updates', async () => {
      await cliSignal(runId, 'submitToolResult', { decisionId: 'cli-huge', result: huge });
      expect((await verdict(runId, 'cli-huge')).refusal?.type).toBe('InvalidDecision');
    });
    await unchanged(waiting);
    // A large result that fits is kept once in the result's steps; the client derives the lists.
    const done = await w.client.submitToolResultGenerate({ runId, result: 'y'.repeat(200_000), principal: 'ui' });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults[0]).toMatchObject({ isError: false });
  });

  it('gives the model a tool error for a tool output over 256 KiB, and the run completes', async () => {
    await probe('client', async () => {
      const script: Script = [{ toolCalls: [{ toolName: 'big', args: { kib: 800 } }] }, { text: 'Too big.' }];
      const result = await w.client.generate('edge-agent', 'go', { model: 'scripted', script });
      touched.add(result.runId);
      expect(result.finishReason).toBe('stop');
      expect(result.toolResults[0]).toMatchObject({
        isError: true,
        error: expect.stringMatching(/Tool "big" returned output of 801 KiB of JSON; at most 256 KiB/),
      });
    });
  });
});

describe('clear errors', () => {
  it('refuses JSON nested too deep, and non-object message parts, with a 400', async () => {
    const waiting = await paused(askScript);
    const deep = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    await probe('HTTP', async () => {
      const body = `{"fingerprint":"f","resumeData":${deep}}`;
      await httpRefusal(await http('POST', `/runs/${waiting.runId}/resume`, body), 400, /InvalidJson: .*deeper/);
    });
    await probe('HTTP', async () => {
      const res = await http('POST', '/agents/edge-agent/generate', { messages: [{ role: 'user', parts: ['hi'] }] });
      await httpRefusal(res, 400, /InvalidRequest: messages: 0\.parts\.0/);
    });
    await probe('HTTP', async () => {
      const res = await http('POST', '/agents/edge-agent/generate', { messages: [{ role: 'user', content: [1] }] });
      await httpRefusal(res, 400, /InvalidRequest: messages/);
    });
    let nested: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) nested = [nested];
    await probe('client', () =>
      refusedWith(
        w.client.sendDecision('resume', { runId: waiting.runId, resumeData: nested as never }),
        InvalidInputError,
        /deeper than 64 levels/,
      ),
    );
    await probe('client', () =>
      refusedWith(
        w.client.start('edge-agent', [{ role: 'user', content: [{ type: 'text', text: nested }] }] as never),
        InvalidInputError,
        /deeper than 64 levels/,
      ),
    );
    await probe('raw signals and updates', async () => {
      // Go's JSON decoder in the CLI takes up to 10,000 levels.
      const five = `{"decisionId":"deep","resumeData":${'['.repeat(5000)}1${']'.repeat(5000)}}`;
      await cliSignal(waiting.runId, 'resumeToolCall', five);
      // Checked before the signal's schema is, which would overflow the stack.
      expect((await verdict(waiting.runId, 'deep')).refusal?.message).toMatch(
        /resume signal does not fit its schema .*: it nests deeper than 512 levels/,
      );
    });
    await probe('raw signals and updates', async () => {
      const update = ['workflow', 'update', 'execute', '--address', temporalAddress(), '--namespace', 'default'];
      const args = [...update, '--workflow-id', waiting.runId, '--name', 'nextPause', '--input', '{"bogus":1}'];
      const failed = await run(cli, args).then(
        () => undefined,
        (e: { stderr: string }) => e.stderr,
      );
      expect(failed).toMatch(/nextPause takes/);
    });
    await probe('raw signals and updates', async () => {
      // The auto-resume update: malformed, an oversized message, and a well-formed one for a run on no thread.
      const update = ['workflow', 'update', 'execute', '--address', temporalAddress(), '--namespace', 'default'];
      const send = (input: string) =>
        run(cli, [...update, '--workflow-id', waiting.runId, '--name', 'autoResume', '--input', input]).then(
          (r: { stdout: string }) => ({ ok: r.stdout }),
          (e: { stderr: string }) => ({ failed: e.stderr }),
        );
      expect(await send('{"bogus":1}')).toMatchObject({ failed: expect.stringMatching(/autoResume refused/) });
      const long = JSON.stringify({ decisionId: 'd1', toolCallId: 'call-0-0', message: 'x'.repeat(16_001) });
      expect(await send(long)).toMatchObject({ failed: expect.stringMatching(/autoResume refused/) });
      const fine = JSON.stringify({ decisionId: 'd2', toolCallId: 'call-0-0', message: 'blue' });
      expect(await send(fine)).toMatchObject({ ok: expect.stringMatching(/NothingPending/) });
    });
    await unchanged(waiting);
    expect((await w.client.resumeGenerate({ answer: 'blue' }, { runId: waiting.runId })).text).toBe('Done.');
  });

  it('validates run ids before anything starts, and names a run id in use', async () => {
    const existing = await paused(guardedScript);
    const start = (runId: string) =>
      w.client.start('edge-agent', 'x', { model: 'scripted', script: guardedScript, runId });
    for (const [runId, pattern] of [
      ['a\nb', /letters, digits/],
      ['r'.repeat(300), /at most 200 characters/],
      ['mine::sub', /reserved for the runs of sub-agents/],
    ] as const) {
      await probe('client', () => refusedWith(start(runId), InvalidInputError, pattern));
      await probe('HTTP', async () => {
        const res = await http('POST', '/agents/edge-agent/generate', { prompt: 'x', runId });
        await httpRefusal(res, 400, pattern);
      });
      await probe('agentctl', () =>
        ctlRefusal(['start', 'edge-agent', '--prompt', 'x', '--run-id', runId], 2, pattern),
      );
    }
    await probe('client', () => refusedWith(start(existing.runId), RunAlreadyExistsError, /exists already/));
    await probe('HTTP', async () => {
      const res = await http('POST', '/agents/edge-agent/generate', { prompt: 'x', runId: existing.runId });
      await httpRefusal(res, 409, new RegExp(`RunAlreadyExistsError: A run "${existing.runId}" exists already`));
    });
    await probe('agentctl', () =>
      ctlRefusal(['start', 'edge-agent', '--prompt', 'x', '--run-id', existing.runId], 1, /exists already/),
    );
    const farAway = 'q'.repeat(2000);
    await probe('client', () => refusedWith(w.client.getRun(farAway), InvalidInputError, /at most 1000 characters/));
    await probe('HTTP', async () => {
      await httpRefusal(await http('GET', `/runs/${farAway}/stream`), 400, /at most 1000 characters/);
    });
    await probe('agentctl', () => ctlRefusal(['runs', 'show', farAway], 2, /at most 1000 characters/));
    await probe('client', () =>
      refusedWith(
        w.client.start('edge-agent', 'x', { threadId: 't'.repeat(5000) }),
        InvalidRunOptionsError,
        /threadId/,
      ),
    );
    await unchanged(existing);
    await w.client.declineToolCallGenerate({ runId: existing.runId });
  });

  it('checks agentctl flags, never echoes a script file, and reports a run that fails at once', async () => {
    await probe('agentctl', () => ctlRefusal(['runs', 'list', '--limit', 'abc'], 2, /--limit: "abc" is not a whole/));
    await probe('agentctl', () => ctlRefusal(['runs', 'list', '--limit', '0'], 2, /--limit/));
    await probe('agentctl', async () => {
      const secret = join(dir, 'secret.txt');
      await writeFile(secret, 'password=hunter2\n');
      await ctlRefusal(['start', 'edge-agent', '--prompt', 'x', '--script', secret], 2, /is not a script/);
      expect((await ctl(['start', 'edge-agent', '--prompt', 'x', '--script', secret])).stderr).not.toMatch(/hunter2/);
    });
    await probe('agentctl', () =>
      ctlRefusal(['start', 'no-such-agent', '--prompt', 'x', '--no-wait'], 1, /Unknown agent "no-such-agent"/),
    );
    await probe('HTTP', async () => {
      const res = await http('GET', `/agents/edge-agent/suspended-runs?threadId=${'t'.repeat(5000)}`);
      await httpRefusal(res, 400, /threadId: Too big/);
    });
    await probe('HTTP', async () => {
      const res = await http('POST', '/agents/no-such-agent/generate', { prompt: 'x' });
      await httpRefusal(res, 422, /Unknown agent "no-such-agent"/);
    });
  });
});

describe('racing approvals', () => {
  it('tells the loser of two approvals that the call was already decided or the run finished, never that it is gone', async () => {
    for (let round = 0; round < 2; round++) {
      const waiting = await paused(guardedScript);
      const args = ['approve', waiting.runId, '--latest', '--wait'];
      const results = await Promise.all([ctl([...args, '--as', 'ann']), ctl([...args, '--as', 'bob'])]);
      await probe('agentctl', async () => {
        expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
        const loser = results.find((r) => r.code === 1)!;
        expect(loser.stderr).toMatch(/refused \(AlreadyDecided\)|has finished/);
        expect(loser.stderr).not.toMatch(/No run/);
      });
    }
    const waiting = await paused(guardedScript);
    const both = await Promise.allSettled([
      w.client.approveToolCallGenerate({ runId: waiting.runId, principal: 'ann' }),
      w.client.approveToolCallGenerate({ runId: waiting.runId, principal: 'bob' }),
    ]);
    await probe('client', async () => {
      expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = both.find((r) => r.status === 'rejected')!.reason as Error;
      expect(lost.message).toMatch(/already decided|has finished/);
    });
  });
});

describe('raw signals as documented', () => {
  it('refuses a decision without decisionId in one readable line, and takes the documented payload', async () => {
    const waiting = await paused(guardedScript);
    const { runId } = waiting;
    const { toolCallId, fingerprint } = waiting.pendingToolCalls[0]!;
    await probe('raw signals and updates', async () => {
      await cliSignal(runId, 'approveToolCall', { toolCallId, fingerprint, by: 'INC-7' });
      const refused = await waitFor('the refusal', async () => (await w.client.getRun(runId)).refusals.recent[0]);
      expect(refused.refusal?.message).toMatch(/decisionId: required/);
      const shown = await ctl(['runs', 'show', runId]);
      const line = shown.stdout.split('\n').find((l) => l.includes('REFUSED'))!;
      expect(line).toMatch(/approve call-0-0 by no principal note "INC-7": REFUSED \(InvalidDecision\): the approve/);
    });
    await unchanged(waiting);
    // The README's worked example: the same fields with a decision id and a principal.
    await cliSignal(runId, 'approveToolCall', {
      decisionId: 'ticket-7',
      toolCallId,
      fingerprint,
      principal: { id: 'alice' },
      sentAt: new Date().toISOString(),
    });
    const accepted = await verdict(runId, 'ticket-7');
    expect(accepted).toMatchObject({ accepted: true, principal: { id: 'alice' }, sentAt: expect.any(String) });
    expect((await w.client.next(runId)).finishReason).toBe('stop');
  });
});

describe("an operator's mistakes on the command line", () => {
  it('refuses an empty prompt and an --as over 256 characters, saying what is wrong; fitting ones go through', async () => {
    for (const prompt of ['', '   ']) {
      await probe('agentctl', () =>
        ctlRefusal(
          ['start', 'edge-agent', '--prompt', prompt, '--no-wait'],
          2,
          /^agentctl: --prompt: is empty; say what the agent should do/,
        ),
      );
    }
    const long = 'a'.repeat(257);
    await probe('agentctl', () =>
      ctlRefusal(
        ['--as', long, 'start', 'edge-agent', '--prompt', 'x', '--no-wait'],
        2,
        /^agentctl: --as: is 257 characters long; at most 256\n$/,
      ),
    );
    const waiting = await paused(guardedScript);
    await probe('agentctl', () =>
      ctlRefusal(['approve', waiting.runId, '--as', long, '--latest'], 2, /^agentctl: --as: is 257 characters long/),
    );
    await unchanged(waiting);
    const approved = await ctl(['approve', waiting.runId, '--as', 'o'.repeat(256), '--latest', '--wait', '--json']);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'applied', result: { finishReason: 'stop' } });
    const started = await ctl(['start', 'edge-agent', '--prompt', 'x', '--script', await scriptFile(), '--json']);
    expect(started.code).toBe(0);
    touched.add((JSON.parse(started.stdout) as RunResult).runId);
  });
});

describe("an operator's identity", () => {
  it('refuses an identity file that is not the keys file, or without a signing key, quoting nothing of it', async () => {
    const waiting = await paused(guardedScript);
    const identity = join(dir, 'identity.json');
    await writeFile(identity, '{"ops": {"publicKey": "hunter2", "principal": {"id": "x", "roles": "admin"}}}');
    const key = join(dir, 'op.pem');
    await writeFile(key, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const approve = ['approve', waiting.runId, '--latest'];
    await probe('agentctl', () =>
      ctlRefusal(
        ['--identity', identity, ...approve],
        2,
        /^agentctl: --identity: names who you are by your signing key/,
      ),
    );
    await probe('agentctl', async () => {
      const args = ['--identity', identity, '--signing-key', key, '--key-id', 'ops', ...approve];
      await ctlRefusal(
        args,
        2,
        /^agentctl: --identity .*identity\.json: is not the approvers' keys file: .*ops\.principal\.roles/,
      );
      expect((await ctl(args)).stderr).not.toMatch(/hunter2/);
    });
    await probe('agentctl', () =>
      ctlRefusal(
        ['--identity', join(dir, 'none.json'), '--signing-key', key, '--key-id', 'ops', ...approve],
        2,
        /^agentctl: --identity .*none\.json: cannot be read: ENOENT/,
      ),
    );
    await unchanged(waiting);
    await w.client.declineToolCallGenerate({ runId: waiting.runId });
  });
});

describe('functions a run cannot store', () => {
  it('refuses per-call hooks and tools with an execute, naming the option and what to do instead', async () => {
    const withExecute = createTool({ id: 'e', inputSchema: z.object({}), execute: async () => 1 });
    const start = (options: object) => w.client.start('edge-agent', 'x', { script: [{ text: 'no' }], ...options });
    await probe('client', () =>
      refusedWith(
        start({ hooks: { beforeToolCall: () => undefined } }),
        InvalidRunOptionsError,
        /^Invalid run options: hooks: functions cannot be stored with a durable run, so per-call hooks are not supported/,
      ),
    );
    await probe('client', () =>
      refusedWith(
        start({ clientTools: { e: withExecute } }),
        InvalidRunOptionsError,
        /^Invalid run options: clientTools\.e: execute is a function, which cannot be stored .* leave execute out/,
      ),
    );
    await probe('client', () =>
      refusedWith(
        start({ toolsets: { ui: { e: withExecute } } }),
        InvalidRunOptionsError,
        /^Invalid run options: toolsets\.ui\.e: execute is a function/,
      ),
    );
  });
});

describe('credentials', () => {
  it('refuses a JWT without exp, valid too long, or without exactly one tenant, each with its reason', async () => {
    const { exportJWK, generateKeyPair, SignJWT } = await import('jose');
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] };
    const authenticate = jwtAuth({ jwks, issuer: 'https://idp.example', audience: 'edge', tenants: 'required' });
    const jwtServer = await startServer(w.client, { port: 0, authenticate, agents: [edgeAgent] });
    const url = `http://127.0.0.1:${(jwtServer.address() as AddressInfo).port}/agents/edge-agent/suspended-runs`;
    const sign = (claims: Record<string, unknown>, exp: string | null = '5m') => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer('https://idp.example')
        .setAudience('edge')
        .setSubject('mallory')
        .setIssuedAt();
      return (exp === null ? jwt : jwt.setExpirationTime(exp)).sign(privateKey);
    };
    const get = async (jwt: string) => fetch(url, { headers: { authorization: `Bearer ${jwt}` } });
    try {
      for (const [jwt, reason] of [
        [await sign({ tenant: 'acme' }, null), /^Unauthenticated: the token has no "exp" claim/],
        [await sign({ tenant: 'acme' }, '400d'), /^Unauthenticated: the token is valid for 9600 h \(exp - iat\)/],
        [await sign({}), /^Unauthenticated: the token has no "tenant" claim/],
        [await sign({ tenant: ['acme', 'globex'] }), /^Unauthenticated: .*"tenant" claim must name one tenant .*array/],
        [await sign({ tenant: '*' }), /^Unauthenticated: .*"tenant" claim must name one tenant/],
        [await sign({ tenant: { id: 'acme' } }), /^Unauthenticated: .*"tenant" claim must name one tenant .*object/],
      ] as const) {
        await probe('HTTP', async () => httpRefusal(await get(jwt), 401, reason));
      }
      expect((await get(await sign({ tenant: 'acme' }))).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => jwtServer.close(() => resolve()));
    }
  });
});

async function scriptFile(): Promise<string> {
  const file = join(dir, 'text-only.json');
  await writeFile(file, JSON.stringify([{ text: 'Fine.' }]));
  return file;
}

describe('payloads the worker cannot decode', () => {
  it('refuses a decision shaped like a payload-store reference, or encrypted, and the run is approved as usual', async () => {
    // This worker has no payload store and no codec keys: each of these failed its workflow task for good.
    const waiting = await paused(guardedScript);
    const { runId } = waiting;
    const hash = 'cd'.repeat(32);
    const reference = (driverName: string, claimData: Record<string, string>): RawPayload => ({
      meta: REFERENCE_META,
      data: JSON.stringify({ driverName, claimData }),
    });
    const shapes: RawPayload[] = [
      reference('durable-agents.files', { key: `default/${runId}/${hash}`, hashAlgorithm: 'sha256', hashValue: hash }),
      reference('durable-agents.files', { key: `../../etc/${hash}`, hashAlgorithm: 'sha256', hashValue: hash }),
      reference('aws.s3driver', { bucket: 'elsewhere', key: 'secrets', hashAlgorithm: 'sha256', hashValue: hash }),
      { meta: REFERENCE_META, data: '{}' },
      { meta: { encoding: 'binary/encrypted', 'encryption-key-id': 'key-z' }, data: Buffer.alloc(64, 7) },
    ];
    for (const payload of shapes) {
      await probe('raw signals and updates', async () => {
        const before = (await w.client.getRun(runId)).refusals.count;
        const sent = await cliSend({
          cli,
          dir,
          address: temporalAddress(),
          workflowId: runId,
          kind: 'signal',
          name: 'approveToolCall',
          payload,
        });
        expect(sent.failed).toBeUndefined();
        const refused = await waitFor('the refusal', async () => {
          const info = await w.client.getRun(runId);
          return info.refusals.count > before ? info.refusals.recent.at(-1) : undefined;
        });
        expect(refused.refusal).toMatchObject({
          type: 'InvalidDecision',
          message: expect.stringMatching(/could not be decoded: (a payload-store reference|a malformed|encrypted)/),
        });
      });
    }
    await unchanged(waiting);
    expect((await w.client.approveToolCallGenerate({ runId, principal: 'ops' })).finishReason).toBe('stop');
  });
});

describe('values a display transform hides', () => {
  it('never shows the raw arguments of a waiting call, whatever a caller gets wrong', async () => {
    const waiting = await paused(vaultScript);
    const { runId } = waiting;
    const { toolCallId } = waiting.pendingToolCalls[0]!;
    await probe('HTTP', async () => {
      await httpRefusal(
        await http('POST', `/runs/${runId}/approve`, { toolCallId, fingerprint: 'stale' }),
        409,
        /FingerprintMismatch/,
      );
    });
    await probe('HTTP', async () => {
      await httpRefusal(
        await http('POST', `/runs/${runId}/resume`, { fingerprint: 'f', resumeData: {} }),
        409,
        /WrongPauseKind/,
      );
    });
    await probe('HTTP', async () => {
      await httpRefusal(
        await http('POST', `/runs/${runId}/approve`, { toolCallId: 'call-9', fingerprint: 'f' }),
        409,
        /UnknownToolCall/,
      );
    });
    await probe('HTTP', async () => {
      const res = await http('GET', `/runs/${runId}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('[hidden]');
    });
    await probe('HTTP', async () => {
      const res = await http('GET', '/inbox/calls');
      expect(res.status).toBe(200);
    });
    await probe('agentctl', () =>
      ctlRefusal(
        ['approve', runId, '--as', 'ops', '--tool-call', toolCallId, '--fingerprint', 'stale'],
        1,
        /FingerprintMismatch/,
      ),
    );
    await probe('raw signals and updates', async () => {
      await cliSignal(runId, 'approveToolCall', { decisionId: 'vault-stale', toolCallId, fingerprint: 'stale' });
      const d = await verdict(runId, 'vault-stale');
      scan('the run’s refusals', JSON.stringify(d));
      expect(d.refusal?.type).toBe('FingerprintMismatch');
    });
    const shown = await ctl(['runs', 'show', runId]);
    scan('agentctl runs show', shown.stdout);
    await unchanged(waiting);
    await w.client.declineToolCallGenerate({ runId });
  });
});
