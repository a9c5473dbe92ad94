/**
 * `ask_user` and `submit_plan` answered with `agentctl resume`, as its own process (bin/agentctl.js,
 * running dist/), the way the README shows it: an answer that does not fit is refused in one line
 * (exit 1), before anything is sent, and the run keeps waiting.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chooseColourScript, planScript, supportAgent } from '../../examples/support-agent.js';
import type { RunResult, Script } from '../../src/index.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { agentctl, type CommandResult } from '../processes.js';

let w: TestWorker;
let dir: string;
beforeAll(async () => {
  w = await startWorker([supportAgent]);
  dir = await mkdtemp(join(tmpdir(), 'agentctl-builtins-'));
});
afterAll(async () => {
  await w?.stop();
  await rm(dir, { recursive: true, force: true });
});

const ctl = (args: string[]): Promise<CommandResult> =>
  agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', w.taskQueue, ...args]);

/** `agentctl start support-agent --script FILE --json`: the run, paused on call-0-0. */
async function start(script: Script): Promise<RunResult> {
  const file = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(script));
  const started = await ctl(['start', 'support-agent', '--prompt', 'go', '--script', file, '--json']);
  expect(started.stderr).toBe('');
  const paused = JSON.parse(started.stdout) as RunResult;
  expect(paused.finishReason).toBe('suspended');
  return paused;
}

/** A refusal as agentctl reports it: exit 1, one line on stderr, nothing on stdout. */
function expectRefused(result: CommandResult, line: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
}

/** `agentctl runs show --json` still lists the call as waiting for resume data. */
async function expectStillWaiting(runId: string): Promise<void> {
  const shown = await ctl(['runs', 'show', runId, '--json']);
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({
    status: 'suspended',
    pendingToolCalls: [{ toolCallId: 'call-0-0', kind: 'suspend' }],
  });
}

it('answers ask_user from the command line: a choice that is not an option is refused, one that is goes through', async () => {
  const run = await start(chooseColourScript);
  const shown = await ctl(['runs', 'show', run.runId]);
  expect(shown.stdout).toContain(
    'ask_user({"question":"Which colour should the new theme be?","options":["red","green"]})  suspended with ' +
      '{"question":"Which colour should the new theme be?","options":["red","green"],"selectionMode":"single"}',
  );

  const wrong = await ctl(['--as', 'you', 'resume', run.runId, '--data', '{"answer":"purple"}', '--latest']);
  expectRefused(
    wrong,
    new RegExp(
      '^agentctl: refused \\(InvalidResumeData\\): resume data \\{"answer":"purple"\\} does not fit the ' +
        'resumeSchema of tool call call-0-0 \\(ask_user\\): answer: Invalid option: expected one of "red"\\|"green"$',
    ),
  );
  const list = await ctl(['--as', 'you', 'resume', run.runId, '--data', '{"answer":["red"]}', '--latest']);
  expectRefused(list, /^agentctl: refused \(InvalidResumeData\): .*answer: Invalid option/);
  await expectStillWaiting(run.runId);

  const fingerprint = run.pendingToolCalls[0]!.fingerprint;
  const args = ['--as', 'you', 'resume', run.runId, '--data', '{"answer":"green"}', '--fingerprint', fingerprint];
  const answered = await ctl([...args, '--wait', '--json']);
  expect(answered.stderr).toBe('');
  expect(answered.code).toBe(0);
  expect(JSON.parse(answered.stdout)).toMatchObject({
    status: 'applied',
    result: { finishReason: 'stop', toolResults: [{ toolName: 'ask_user', output: { answer: 'green' } }] },
  });
});

it('reviews a plan from the command line: a rejection without feedback is refused, an approval goes through', async () => {
  const run = await start(planScript);
  const refused = await ctl(['--as', 'you', 'resume', run.runId, '--data', '{"action":"rejected"}', '--latest']);
  expectRefused(
    refused,
    /^agentctl: refused \(InvalidResumeData\): .*\(submit_plan\): Invalid input \(fits no alternative: .*\[feedback: /,
  );
  await expectStillWaiting(run.runId);

  const approved = await ctl([
    '--as',
    'you',
    'resume',
    run.runId,
    '--data',
    '{"action":"approved"}',
    '--latest',
    '--wait',
  ]);
  expect(approved.stderr).toBe('');
  expect(approved.code).toBe(0);
  expect(approved.stdout).toContain('run ' + run.runId + ': finished (stop)');
  expect(approved.stdout).toContain('text: The plan is through review.');
});
