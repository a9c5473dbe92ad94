/** temporal-dev.sh against the server the test setup started with it. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';

const run = promisify(execFile);
const env = { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_DEV_PORT: '' };
const args = ['--port', String(inject('temporalDevPort')), '--dir', inject('temporalDevDir')];

it('finds the running server on a second start and only re-checks the search attributes', async () => {
  const { stdout, stderr } = await run('bash', ['temporal-dev.sh', 'start', ...args, '--headless'], { env });
  expect(stdout.trim()).toBe(inject('temporalAddress'));
  expect(stderr).toContain(`a server already answers at ${inject('temporalAddress')}`);
});

it('has registered the search attributes runs use', async () => {
  const { stdout: cli } = await run('bash', ['temporal-dev.sh', 'cli'], { env });
  const { stdout } = await run(cli.trim(), [
    'operator',
    'search-attribute',
    'list',
    '--address',
    inject('temporalAddress'),
    '-o',
    'json',
  ]);
  for (const name of ['AgentId', 'AgentStatus', 'AgentThreadId', 'AgentResourceId', 'AgentPendingToolCalls'])
    expect(stdout).toContain(name);
});

it('reports status with exit 0 and the address', async () => {
  const { stdout } = await run('bash', ['temporal-dev.sh', 'status', ...args], { env });
  expect(stdout.trim()).toBe(inject('temporalAddress'));
});

it('refuses an unknown argument with exit 2 and says where help is', async () => {
  const err = await run('bash', ['temporal-dev.sh', 'start', '--bogus'], { env }).catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(err).toMatchObject({ code: 2, stderr: "temporal-dev.sh: unknown argument '--bogus' (see --help)\n" });
});

it('refuses a flag without its value, and a port out of range, with exit 2 and the flag named', async () => {
  const refusal = (argv: string[]) =>
    run('bash', ['temporal-dev.sh', 'start', ...argv], { env }).catch((e: { code: number; stderr: string }) => e);
  expect(await refusal(['--metrics-port'])).toMatchObject({
    code: 2,
    stderr: 'temporal-dev.sh: --metrics-port needs a value (see --help)\n',
  });
  expect(await refusal(['--metrics-port', 'abc'])).toMatchObject({
    code: 2,
    stderr: "temporal-dev.sh: --metrics-port must be a port from 1 to 65535, not 'abc'\n",
  });
  expect(await refusal(['--port', '70000'])).toMatchObject({
    code: 2,
    stderr: "temporal-dev.sh: --port must be a port from 1 to 65535, not '70000'\n",
  });
});
