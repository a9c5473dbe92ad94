/**
 * agentctl as its own process, as shipped (bin/agentctl.js, running dist/), for what the durability tests do
 * not drive: client tool results, --json shapes, --help and what a start loads.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunResult } from '../../src/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

let w: TestWorker;
let dir: string;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
  dir = await mkdtemp(join(tmpdir(), 'agentctl-'));
});
afterAll(async () => {
  await w?.stop();
  await rm(dir, { recursive: true, force: true });
});

const ctl = (args: string[]) =>
  agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', w.taskQueue, ...args]);

it('starts a run that waits on a client tool, and submits its result', async () => {
  const script = join(dir, 'pick.json');
  await writeFile(
    script,
    JSON.stringify([{ toolCalls: [{ toolName: 'pick', args: { options: ['red', 'blue'] } }] }, { text: 'Blue.' }]),
  );
  const started = await ctl(['start', 'toolbox-agent', '--prompt', 'pick one', '--script', script, '--json']);
  expect(started.code).toBe(0);
  const paused = JSON.parse(started.stdout) as RunResult;
  expect(paused).toMatchObject({
    finishReason: 'tool-calls',
    pendingToolCalls: [{ toolCallId: 'call-0-0', toolName: 'pick', kind: 'client' }],
  });

  const anonymous = await ctl(['approve', paused.runId, '--latest']);
  expect(anonymous).toMatchObject({ code: 2, stderr: expect.stringMatching(/^agentctl: say who decides: --as NAME/) });
  const unbound = await ctl(['approve', paused.runId, '--as', 'ops']);
  expect(unbound).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^agentctl: name the call you decide on with --fingerprint .* or pass --latest/),
  });

  const refused = await ctl(['approve', paused.runId, '--as', 'ops', '--latest']);
  expect(refused).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(
      /^agentctl: refused \(WrongPauseKind\): no pending call takes approve: pick call-0-0 waits for a tool result/,
    ),
  });

  const fingerprint = paused.pendingToolCalls[0]!.fingerprint;
  const submitted = await ctl([
    'submit',
    paused.runId,
    '--result',
    '"blue"',
    '--as',
    'ui',
    '--fingerprint',
    fingerprint,
    '--note',
    'INC-1',
    '--wait',
    '--json',
  ]);
  expect(submitted.stderr).toBe('');
  expect(submitted.code).toBe(0);
  expect(JSON.parse(submitted.stdout)).toMatchObject({
    status: 'applied',
    result: { finishReason: 'stop', text: 'Blue.', toolResults: [{ output: 'blue' }] },
  });
});

it('starts a run with structured output from a JSON schema file, and shows its object', async () => {
  const script = join(dir, 'answer.json');
  await writeFile(script, JSON.stringify([{ text: '{"city":"Lyon"}' }]));
  const schema = join(dir, 'schema.json');
  await writeFile(
    schema,
    JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  );
  const start = (outputSchema: string) =>
    ctl(['start', 'toolbox-agent', '--prompt', 'where?', '--script', script, '--output-schema', outputSchema]);
  const started = await start(schema);
  expect(started.stderr).toBe('');
  expect(started.stdout).toContain('object: {"city":"Lyon"}');
  const runId = /^run (\S+):/.exec(started.stdout)![1]!;
  const shown = await ctl(['runs', 'show', runId]);
  expect(shown.stdout).toContain('object: {"city":"Lyon"}');

  await writeFile(script, JSON.stringify([{ text: 'Lyon, I think.' }]));
  const failed = await start(schema);
  expect(failed.stdout).toContain('object: none: The model answered with text that is not JSON: "Lyon, I think.".');
  // A script learns it from the exit code, and the reason in one line.
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/^agentctl: Run "\S+" finished without the structured output it was asked for: /);

  const list = join(dir, 'list-schema.json');
  await writeFile(list, JSON.stringify({ type: 'array' }));
  const refused = await start(list);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^agentctl: .*structuredOutput: schema: its root is of type "array", not an object/);
  const huge = join(dir, 'huge-schema.json');
  await writeFile(huge, JSON.stringify({ type: 'object', description: 'x'.repeat(20_000) }));
  expect(await start(huge)).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--output-schema .* at most 16 KiB/),
  });
});

it('sends a message to a run, and says in one line why a finished run does not take it', async () => {
  const script = join(dir, 'hello.json');
  await writeFile(script, JSON.stringify([{ text: 'Hello.' }]));
  const started = await ctl(['start', 'toolbox-agent', '--prompt', 'hi', '--script', script, '--json']);
  const { runId } = JSON.parse(started.stdout) as RunResult;
  const late = await ctl(['runs', 'message', runId, 'one more thing']);
  expect(late).toMatchObject({ code: 1, stdout: '' });
  expect(late.stderr.trim()).toBe(
    `agentctl: Run "${runId}" did not take the message (RunNotWorking): run ${runId} has ended: start a new run`,
  );
});

it('approves in a batch every waiting call its conditions take, after a dry run, and exits 1 on a refusal', async () => {
  const target = `batch-${Date.now()}`;
  const script = join(dir, 'guarded.json');
  await writeFile(
    script,
    JSON.stringify([{ toolCalls: [{ toolName: 'guarded', args: { target } }] }, { text: 'Done.' }]),
  );
  const started = await ctl(['start', 'toolbox-agent', '--prompt', 'go', '--script', script, '--json']);
  const { runId } = JSON.parse(started.stdout) as RunResult;
  const batch = ['batch', 'approve', '--tool', 'guarded', '--agent', 'toolbox-agent', '--where', `target=${target}`];

  const anonymous = await ctl(batch);
  expect(anonymous).toMatchObject({ code: 2, stderr: expect.stringMatching(/^agentctl: say who decides/) });
  const dry = await ctl(['--as', 'ops', ...batch, '--dry-run', '--json']);
  expect(dry.code).toBe(0);
  const preview = JSON.parse(dry.stdout) as { decided: Array<{ runId: string; fingerprint: string }> };
  expect(preview).toMatchObject({ dryRun: true, decided: [{ runId, toolCallId: 'call-0-0' }] });
  // A call that begins to wait after the dry run is not decided with what it listed.
  const second = await ctl(['start', 'toolbox-agent', '--prompt', 'go', '--script', script, '--json']);
  const secondRun = (JSON.parse(second.stdout) as RunResult).runId;
  const done = await ctl(['--as', 'ops', ...batch, '--fingerprint', preview.decided[0]!.fingerprint]);
  expect(done).toMatchObject({ code: 0 });
  expect(done.stdout).toContain(`approved guarded call-0-0 on run ${runId} {"target":"${target}"}`);
  expect(done.stdout).toMatch(/^1 decided, 0 refused$/m);
  const rest = await ctl(['--as', 'ops', ...batch]);
  expect(rest.stdout).toContain(`approved guarded call-0-0 on run ${secondRun}`);
  expect((await ctl(['--as', 'ops', ...batch])).stdout).toMatch(/^0 decided, 0 refused$/m);

  // Carl started this one: his batch takes it, and the run's rule refuses him (no self-approval).
  const own = await ctl(['--as', 'carl', 'start', 'toolbox-agent', '--prompt', 'go', '--script', script, '--json']);
  const ownRun = (JSON.parse(own.stdout) as RunResult).runId;
  const self = await ctl(['--as', 'carl', ...batch]);
  expect(self).toMatchObject({ code: 1, stderr: 'agentctl: 1 of 1 calls refused\n' });
  expect(self.stdout).toMatch(new RegExp(`^refused guarded call-0-0 on run ${ownRun} .*: SelfApproval: `, 'm'));

  const wrong = await ctl(['--as', 'ops', 'batch', 'grant', '--tool', 'guarded']);
  expect(wrong).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/batch takes approve or decline, not "grant"/),
  });
  const vague = await ctl(['--as', 'ops', ...batch.slice(0, 4), '--where', 'target is x']);
  expect(vague).toMatchObject({ code: 2, stderr: expect.stringMatching(/condition "target is x" has no operator/) });
});

it('refuses a script file that is not a script, in one line that quotes nothing of the file', async () => {
  const bad = join(dir, 'bad.json');
  await writeFile(bad, JSON.stringify([{ secretField: 'hunter2' }]));
  const notJson = join(dir, 'key.pem');
  await writeFile(notJson, '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIhunter2\n-----END PRIVATE KEY-----\n');
  for (const file of [bad, notJson]) {
    const result = await ctl(['start', 'toolbox-agent', '--prompt', 'x', '--script', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^agentctl: --script .* is not a script: /);
    expect(result.stderr).not.toMatch(/hunter2|secretField|BEGIN/);
  }
});

it('--help exits 0 and lists the commands', async () => {
  const help = await agentctl(['--help']);
  expect(help.code).toBe(0);
  for (const command of ['runs', 'approve', 'decline', 'resume', 'submit', 'start']) {
    expect(help.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
  }
  const runs = await agentctl(['runs', '--help']);
  expect(runs.code).toBe(0);
  expect(runs.stdout).toMatch(/^ {2}list /m);
  expect(runs.stdout).toMatch(/^ {2}show /m);
});

it('loads neither the Temporal client, gRPC, zod nor the AI SDK for --help or a usage error', async () => {
  const tracer = fileURLToPath(new URL('../fixtures/loaded-files.js', import.meta.url));
  for (const args of [['--help'], ['runs', 'lst'], ['approve']]) {
    const result = await agentctl(args, { NODE_OPTIONS: `--import=${tracer}` });
    expect(result.code).toBe(args[0] === '--help' ? 0 : 2);
    const { loaded } = JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { loaded: string[] };
    expect(loaded.some((url) => url.endsWith('/dist/agentctl.js'))).toBe(true);
    // dist/ is bundled: esbuild marks the code of each package with a comment naming its files.
    const packages = new Set<string>();
    for (const url of loaded) {
      const code = await readFile(fileURLToPath(url), 'utf8');
      for (const [, name] of code.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) packages.add(name!);
    }
    expect([...packages]).toEqual(['commander']);
  }
});

it('stops quietly, with its own exit code, when the reader of its output goes away (`| head -1`)', async () => {
  // The reader's end is closed before agentctl writes: every write of it meets a closed pipe (EPIPE).
  const child = spawn(process.execPath, ['bin/agentctl.js', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
});

it('names an address where no Temporal server answers, and what to check, in one line', async () => {
  // A port just closed: nothing listens there, and the channel never becomes ready.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const result = await agentctl(['--address', `127.0.0.1:${port}`, 'runs', 'list']);
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(`^agentctl: no Temporal server answered at 127\\.0\\.0\\.1:${port} within 10 s .*check the address`),
    ),
  ]);
}, 30_000);
