/**
 * Starts a real Temporal server for the test run, bundles the workflow code once for every test worker,
 * builds agentctl and the chat page, and stops the server after. The server is the dev server (free port,
 * temporary SQLite file, temporal-dev.sh), or with `DURABLE_AGENTS_TEST_SERVER=cluster` the
 * production-shaped one of temporal-cluster.sh (PostgreSQL, four services, TLS): its client settings go
 * into the environment (envconfig's `TEMPORAL_TLS_*`), which the test processes and what they start inherit.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { workflowBundleOptions, workflowsPath } from '../src/worker/worker.js';

const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalDevDir: string;
    temporalDevPort: number;
    /** `dev` or `cluster`: suites that restart the dev server by its script run on `dev` only. */
    temporalServerKind: 'dev' | 'cluster';
    workflowBundlePath: string;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The tests run agentctl and the chat page as shipped, from dist/: built from the source as it is now, not as
  // it was at `npm ci`.
  await run(process.execPath, ['build.js', 'agentctl', 'chat']);
  const dir = await mkdtemp(join(tmpdir(), 'durable-agents-test-'));
  const kind = process.env.DURABLE_AGENTS_TEST_SERVER === 'cluster' ? 'cluster' : 'dev';
  const server = kind === 'cluster' ? await startCluster(dir) : await startDevServer(dir);

  const bundle = await bundleWorkflowCode({
    workflowsPath,
    ...workflowBundleOptions,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  const workflowBundlePath = join(dir, 'workflow-bundle.js');
  await writeFile(workflowBundlePath, bundle.code);

  project.provide('temporalAddress', server.address);
  project.provide('temporalDevDir', dir);
  project.provide('temporalDevPort', server.port);
  project.provide('temporalServerKind', kind);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}

interface TestServer {
  address: string;
  port: number;
  stop(): Promise<void>;
}

async function startDevServer(dir: string): Promise<TestServer> {
  const port = await freePort();
  const devArgs = ['temporal-dev.sh', 'start', '--port', String(port), '--headless', '--dir', dir];
  const env = { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_DEV_PORT: '' };
  const { stdout } = await run('bash', [...devArgs, '--db', join(dir, 'temporal.db')], { env });
  return {
    address: stdout.trim(),
    port,
    stop: async () =>
      void (await run('bash', ['temporal-dev.sh', 'stop', '--port', String(port), '--dir', dir], { env })),
  };
}

async function startCluster(dir: string): Promise<TestServer> {
  const cluster = join(dir, 'cluster');
  const { stdout } = await run('bash', ['temporal-cluster.sh', 'start', '--dir', cluster], { maxBuffer: 1 << 24 });
  const { stdout: exports } = await run('bash', ['temporal-cluster.sh', 'env', '--dir', cluster]);
  for (const line of exports.split('\n')) {
    const [, name, value] = /^export (\w+)=(.*)$/.exec(line) ?? [];
    if (name) process.env[name] = value;
  }
  // Clusters the tests start of their own are signed by the same CA, so the settings above reach them too.
  process.env.TEMPORAL_CLUSTER_CA = join(cluster, 'tls');
  const address = stdout.trim().split('\n').at(-1)!;
  return {
    address,
    port: Number(address.split(':').at(-1)),
    stop: async () => void (await run('bash', ['temporal-cluster.sh', 'destroy', '--dir', cluster])),
  };
}
