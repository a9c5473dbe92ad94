/**
 * The package as a user gets it: `npm pack`, installed from the tarball into a fresh project outside
 * the repository, which defines an agent, runs a worker and a client against the dev server and runs
 * `npx agentctl` on the run. Nothing here may load the repository's source: every import of the package
 * must resolve into the consumer's node_modules.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalAddress, waitFor } from '../helpers.js';
import { spawnWorker } from '../processes.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../consumer', import.meta.url));

/** What `npm pack --json` says of the tarball. */
interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

let workDir: string;
let consumer: string;
let packed: Packed;
let env: NodeJS.ProcessEnv;

/** Runs a command in the consumer project; its output, or an error with all of it. */
async function inConsumer(command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd: consumer,
      env: { ...env, ...extraEnv },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, {
      cause: err,
    });
  }
}

beforeAll(async () => {
  // lib/ from the source as it is now (the global setup has just built dist/, agentctl); `npm pack` runs
  // no scripts, since its `prepare` would rebuild dist/ under the agentctl of the tests running beside.
  await run(process.execPath, ['build.js', 'lib'], { cwd: repo });
  workDir = await mkdtemp(join(tmpdir(), 'durable-agents-package-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', workDir], {
    cwd: repo,
  });
  packed = (JSON.parse(stdout) as Packed[])[0]!;

  consumer = join(workDir, 'consumer');
  await mkdir(consumer);
  await writeFile(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  for (const file of await readdir(fixtures)) await copyFile(join(fixtures, file), join(consumer, file));
  // The Node the tests run on (22, from the `node` package) runs the consumer's TypeScript by stripping
  // its types; this repository's node_modules/.bin is off the PATH, so `npx agentctl` can only be the
  // consumer's.
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => p && !resolve(p).startsWith(repo));
  env = {
    ...process.env,
    PATH: [dirname(process.execPath), ...path].join(delimiter),
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `e2e-package-${randomUUID()}`,
  };
  // What a user adds beside the package: zod for schemas, the Temporal packages their workflow file and
  // bundling use, Node's types. The same versions as here, so the install comes from npm's cache.
  const own = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const beside = ['zod', '@temporalio/worker', '@temporalio/workflow', '@temporalio/testing'].map(
    (p) => `${p}@${own.dependencies[p] ?? own.devDependencies[p]}`,
  );
  await inConsumer('npm', [
    'install',
    join(workDir, packed.filename),
    ...beside,
    `@types/node@${own.devDependencies['@types/node']}`,
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
  ]);
}, 300_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the package installed from its tarball', () => {
  it('ships JavaScript with type declarations, an entry per export, no TypeScript source', async () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        'bin/agentctl.js',
        'dist/agentctl.js',
        'lib/index.js',
        'lib/index.d.ts',
        'lib/workflow.js',
        'lib/workflow.d.ts',
        'lib/tracing/index.js',
        'lib/workflows/index.js',
      ]),
    );
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(
      await readFile(join(consumer, 'node_modules', 'durable-agents', 'package.json'), 'utf8'),
    ) as { private?: boolean; version: string; license: string; dependencies: Record<string, string> };
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.version).toMatch(/^0\.\d+\.\d+$/);
    expect(manifest.dependencies).not.toHaveProperty('tsx');
    // An application that only starts and decides runs does not install the Temporal worker.
    expect(manifest.dependencies).not.toHaveProperty('@temporalio/worker');
    expect(manifest.dependencies).not.toHaveProperty('react');
  });

  it("resolves every entry into the consumer's node_modules, not this repository", async () => {
    const where = JSON.parse(await inConsumer(process.execPath, ['resolve.ts'])) as Record<string, string>;
    const installed = join(consumer, 'node_modules', 'durable-agents', 'lib') + sep;
    expect(Object.keys(where)).toEqual([
      '.',
      '/worker',
      '/client',
      '/server',
      '/codec',
      '/testing',
      '/workflow',
      '/tracing',
    ]);
    for (const url of Object.values(where)) expect(fileURLToPath(url).startsWith(installed)).toBe(true);
  });

  it('type-checks the consumer against the shipped declarations', async () => {
    // This repository's compiler, on the consumer's tsconfig: every type it reads is the consumer's.
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const files = (await inConsumer(process.execPath, [tsc, '-p', '.', '--listFiles'])).trim().split('\n');
    const read = files.filter((f) => !f.includes('/node_modules/typescript/lib/'));
    expect(read).toContain(join(consumer, 'node_modules', 'durable-agents', 'lib', 'index.d.ts'));
    expect(read).toContain(join(consumer, 'node_modules', 'durable-agents', 'lib', 'workflow.d.ts'));
    expect(read.filter((f) => !/^(node_modules|quickstart)/.test(relative(consumer, f))).sort()).toEqual(
      [
        'agent.ts',
        'bundle.ts',
        'client.ts',
        'deprecated.ts',
        'kit-clock.ts',
        'kit.ts',
        'loads.ts',
        'resolve.ts',
        'team-client.ts',
        'team-worker.ts',
        'team-workflows.ts',
        'worker.ts',
        'workflows.ts',
      ].map((f) => join(consumer, f)),
    );
  });

  it('loads, for each entry, only what its process needs: the root neither the worker nor the client', async () => {
    const loads: Record<string, { packages: string[]; ms: number }> = {};
    for (const entry of [
      'durable-agents',
      'durable-agents/client',
      'durable-agents/workflow',
      'durable-agents/worker',
    ]) {
      loads[entry] = JSON.parse(await inConsumer(process.execPath, ['loads.ts', entry])) as (typeof loads)[string];
    }
    // Figures for the closing note and bench/: each is one cold import in a fresh process.
    console.log(
      `cold import ms: ${Object.entries(loads)
        .map(([e, l]) => `${e} ${l.ms}`)
        .join(', ')}`,
    );
    const heavy = [
      '@temporalio/worker',
      '@temporalio/client',
      'hono',
      'jose',
      '@opentelemetry/sdk-trace-base',
      'react',
    ];
    expect(loads['durable-agents']!.packages.filter((p) => heavy.includes(p))).toEqual([]);
    expect(loads['durable-agents/client']!.packages).toContain('@temporalio/client');
    expect(loads['durable-agents/client']!.packages).not.toContain('@temporalio/worker');
    // The client's methods load zod, the schemas and the rest on first call: an import pays for none of them.
    for (const lazy of ['zod', '@temporalio/workflow', '@noble/hashes']) {
      expect(loads['durable-agents/client']!.packages).not.toContain(lazy);
    }
    expect(loads['durable-agents/workflow']!.packages).not.toContain('@temporalio/worker');
    expect(loads['durable-agents/worker']!.packages).toContain('@temporalio/worker');
  });

  it('still runs code written for 0.2 that imports every name from the root', async () => {
    expect(JSON.parse(await inConsumer(process.execPath, ['deprecated.ts']))).toEqual({
      connect: 'function',
      createWorker: 'function',
      createServerApp: 'function',
      codec: 'EncryptionCodec',
    });
  });

  it('bundles a workflow file of the user that imports durable-agents/workflow', async () => {
    expect(await inConsumer(process.execPath, ['bundle.ts'])).toMatch(/^bundled \d+ bytes/);
  });

  it('runs an agent with a worker and a client of the consumer, and agentctl shows the run', async () => {
    const worker = await spawnWorker(
      {
        PATH: env.PATH!,
        TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!,
        TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE!,
        XDG_CACHE_HOME: join(workDir, 'cache'),
      },
      'worker.ts',
      { cwd: consumer, nodeArgs: [] },
    );
    try {
      // The worker bundled the run workflows from the installed package, and keeps the bundle by its files.
      const bundles = join(workDir, 'cache', 'durable-agents', 'workflow-bundles');
      const manifest = (await readdir(bundles)).find((name) => name.endsWith('.json'))!;
      const { files } = JSON.parse(await readFile(join(bundles, manifest), 'utf8')) as { files: [string, string][] };
      expect(files.map(([path]) => path)).toContain(
        join(consumer, 'node_modules', 'durable-agents', 'lib', 'workflows', 'index.js'),
      );
      const ran = JSON.parse(await inConsumer(process.execPath, ['client.ts'])) as Record<string, string>;
      expect(ran).toMatchObject({ finishReason: 'stop', text: 'I said hello to Ada.' });

      const shown = await inConsumer('npx', ['--no-install', 'agentctl', 'runs', 'show', ran.runId!]);
      expect(shown).toContain(`run:       ${ran.runId}`);
      expect(shown).toContain('agent:     greeter');
      expect(shown).toContain('status:    completed');
      expect(shown).toContain('result: I said hello to Ada. (stop, 2 steps,');
      const bin = (await inConsumer('npx', ['--no-install', 'which', 'agentctl'])).trim();
      expect(bin).toBe(join(consumer, 'node_modules', '.bin', 'agentctl'));
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });

  it("hosts agent runs on a team's own worker: its workflow runs an agent, agentctl approves, its activity runs", async () => {
    const team: NodeJS.ProcessEnv = { ...env, TEMPORAL_TASK_QUEUE: `${env.TEMPORAL_TASK_QUEUE}-team` };
    const worker = await spawnWorker(
      { PATH: env.PATH!, TEMPORAL_ADDRESS: team.TEMPORAL_ADDRESS!, TEMPORAL_TASK_QUEUE: team.TEMPORAL_TASK_QUEUE! },
      'team-worker.ts',
      { cwd: consumer, nodeArgs: [] },
    );
    const inTeam = async (command: string, args: string[]) =>
      (await run(command, args, { cwd: consumer, env: team })).stdout;
    try {
      expect((await inTeam(process.execPath, ['team-client.ts', 'start', 'Ada'])).trim()).toBe('team-Ada');
      // The agent's run, a child of the team's workflow, waits for a person like any run.
      await waitFor('the agent run to wait', async () => {
        const shown = await inTeam('npx', ['--no-install', 'agentctl', 'runs', 'show', 'greet-Ada']).catch(() => '');
        return shown.includes('status:    suspended') ? shown : undefined;
      });
      const approved = await inTeam('npx', [
        '--no-install',
        'agentctl',
        '--as',
        'ann',
        'approve',
        'greet-Ada',
        '--latest',
        '--wait',
      ]);
      expect(approved).toContain('run greet-Ada: finished (stop)');
      expect((await inTeam(process.execPath, ['team-client.ts', 'result', 'Ada'])).trim()).toBe('I GREETED ADA.');
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });

  it("tests a user's agent with the test kit, as a user would", async () => {
    expect(JSON.parse(await inConsumer(process.execPath, ['kit.ts']))).toEqual({
      waitedOn: 'greet',
      text: 'I greeted Bo.',
    });
  });

  it("tests an approval's deadline with the test kit on the time-skipping server, as a user would", async () => {
    const { stdout: testServer } = await run('bash', ['temporal-test-server.sh'], { cwd: repo });
    const clock = await inConsumer(process.execPath, ['kit-clock.ts'], {
      TEMPORAL_TEST_SERVER: testServer.trim(),
    });
    // The SDK's core logs to stdout too (this server advertises no heartbeat capability): the answer is marked.
    const answer = clock.split('\n').find((line) => line.startsWith('kit-clock: '));
    expect(JSON.parse(answer!.slice('kit-clock: '.length))).toEqual({ expiresAt: true, decisions: ['expire'] });
  });

  it("runs the README's quick start as it is written: the run waits, agentctl approves it", async () => {
    // The blocks marked file=NAME, written as the user copies them (tsx runs them, as the README says).
    const readme = await readFile(join(repo, 'README.md'), 'utf8');
    const dir = join(consumer, 'quickstart');
    await mkdir(dir, { recursive: true });
    const files = [...readme.matchAll(/```ts file=(\S+)\n([\s\S]*?)```/g)].map(([, name]) => name!);
    for (const [, name, code] of readme.matchAll(/```ts file=(\S+)\n([\s\S]*?)```/g)) {
      await writeFile(join(dir, name!), code!);
    }
    expect(files).toEqual(['agent.ts', 'worker.ts', 'start.ts']);
    const tsx = ['--import', pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href];
    const worker = await spawnWorker(
      { PATH: env.PATH!, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!, TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE! },
      'worker.ts',
      { cwd: dir, nodeArgs: tsx },
    );
    try {
      const started = await run(process.execPath, [...tsx, 'start.ts'], { cwd: dir, env });
      const [reason, runId] = started.stdout.trim().split(' ');
      expect(reason).toBe('suspended');
      const approved = await inConsumer('npx', [
        '--no-install',
        'agentctl',
        '--as',
        'ann',
        'approve',
        runId!,
        '--latest',
        '--wait',
      ]);
      expect(approved).toContain(`run ${runId}: finished (stop)`);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });
});
