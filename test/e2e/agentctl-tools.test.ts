/**
 * `agentctl tools` as its own process, as shipped (bin/agentctl.js, running dist/), against a worker it
 * shares no code with: list, describe (the schema for machines), run, and a run that waits for approval.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunResult, ToolInfo } from '../../src/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent], { enableScriptedModel: false });
});
afterAll(async () => {
  await w?.stop();
});

const connection = (taskQueue: string) => [
  '--address',
  temporalAddress(),
  '--namespace',
  'default',
  '--task-queue',
  taskQueue,
];
const ctl = (args: string[]) => agentctl([...connection(w.taskQueue), ...args]);

it('lists and describes the tools, and prints the input schema alone for machines', async () => {
  const list = await ctl(['tools', 'list']);
  expect(list.stderr).toBe('');
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^TOOL +KIND +APPROVAL +AGENTS +DESCRIPTION$/m);
  expect(list.stdout).toMatch(/^add +tool +no +toolbox-agent\/add +Adds two numbers$/m);
  expect(list.stdout).toMatch(/^guarded +tool +required +toolbox-agent\/guarded /m);
  expect(list.stdout).toMatch(/^pick +client +no /m);

  const json = await ctl(['tools', 'list', '--json']);
  expect((JSON.parse(json.stdout) as ToolInfo[]).map((t) => t.id)).toContain('charge');

  const schema = await ctl(['tools', 'describe', 'add', '--schema']);
  expect(schema.code).toBe(0);
  expect(JSON.parse(schema.stdout)).toMatchObject({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  });

  const described = await ctl(['tools', 'describe', 'guarded']);
  expect(described.code).toBe(0);
  expect(described.stdout).toContain('approval:     the tool requires it');
  expect(described.stdout).toContain(
    `toolbox-agent as "guarded": approval required (by the tool); decided by anyone the agent lets in, not the run's starter`,
  );
  expect(described.stdout).toMatch(/^input schema:\n {2}\{/m);

  const unknown = await ctl(['tools', 'describe', 'nope']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/^agentctl: Unknown tool "nope": the workers serve "add", /);
});

it('runs a tool, and fails with the tool', async () => {
  const done = await ctl(['tools', 'run', 'add', '{"a":1,"b":2}']);
  expect(done.stderr).toBe('');
  expect(done.code).toBe(0);
  expect(done.stdout).toMatch(/^run run-\S+: finished \(stop\)\nadd\(\{"a":1,"b":2\}\) -> \{"sum":3\}\n$/);

  const json = await ctl(['tools', 'run', 'add', '{"a":2,"b":2}', '--json']);
  expect((JSON.parse(json.stdout) as RunResult).steps[0]!.toolResults[0]).toMatchObject({ output: { sum: 4 } });

  const failed = await ctl(['tools', 'run', 'explode', '{}']);
  expect(failed.code).toBe(1);
  expect(failed.stdout).toMatch(/-> error: Tool "explode" failed: boom: the fuse was lit/);
  expect(failed.stderr).toMatch(/^agentctl: tool explode failed: Tool "explode" failed: boom: the fuse was lit\n$/);
});

it('refuses input that is not JSON or does not fit the schema, before anything starts', async () => {
  const notJson = await ctl(['tools', 'run', 'add', '{a:1}']);
  expect(notJson).toMatchObject({ code: 2, stdout: '' });
  expect(notJson.stderr).toMatch(/^agentctl: <json> \(the tool input\): "\{a:1\}" is not valid JSON\n$/);

  const runId = `run-${randomUUID()}`;
  const misfit = await ctl(['tools', 'run', 'add', '{"a":1,"b":"two"}', '--run-id', runId]);
  expect(misfit).toMatchObject({ code: 2, stdout: '' });
  expect(misfit.stderr).toMatch(/^agentctl: the input of tool "add": b: .*expected number, received string\n$/);
  expect((await ctl(['runs', 'show', runId])).stderr).toMatch(/No run "run-/);

  const client = await ctl(['tools', 'run', 'pick', '{"options":["a"]}']);
  expect(client.code).toBe(2);
  expect(client.stderr).toMatch(/^agentctl: tool "pick" is a client tool/);
});

it('runs a tool that requires approval: the run waits, says how to approve, and someone else approves it', async () => {
  const paused = await ctl(['--as', 'alice', 'tools', 'run', 'guarded', '{"target":"db"}']);
  expect(paused.stderr).toBe('');
  expect(paused.code).toBe(0);
  const [, runId] = /^run (\S+): suspended$/m.exec(paused.stdout)!;
  const [, fingerprint] =
    /^pending: tool-run {2}guarded\(\{"target":"db"\}\) {2}awaits approval {2}fingerprint (\w+)/m.exec(paused.stdout)!;
  expect(paused.stdout).toContain(
    `to approve (someone the agent lets decide, not the run's starter): agentctl --as WHO approve ${runId} ` +
      `--fingerprint ${fingerprint}`,
  );

  const self = await ctl(['--as', 'alice', 'approve', runId!, '--fingerprint', fingerprint!]);
  expect(self.code).toBe(1);
  expect(self.stderr).toMatch(/^agentctl: refused \(SelfApproval\): "alice" started this run/);

  const approved = await ctl(['--as', 'bob', 'approve', runId!, '--fingerprint', fingerprint!, '--wait', '--json']);
  expect(approved.code).toBe(0);
  expect(JSON.parse(approved.stdout)).toMatchObject({
    status: 'applied',
    result: { finishReason: 'stop', steps: [{ toolResults: [{ toolName: 'guarded', output: 'did db' }] }] },
  });
});

it('says a worker must be up when none serves the task queue', async () => {
  const result = await agentctl([...connection(`nobody-${randomUUID()}`), 'tools', 'list']);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /^agentctl: No worker answered on task queue "nobody-\S+": no worker polls it in namespace "default". The tools are known to the workers only: start one on this task queue/,
  );
});

it('--help lists the tools commands', async () => {
  expect((await agentctl(['--help'])).stdout).toMatch(/^ {2}tools +list, describe and run the tools/m);
  const help = await agentctl(['tools', '--help']);
  expect(help.code).toBe(0);
  for (const command of ['list', 'describe', 'run']) expect(help.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
});
