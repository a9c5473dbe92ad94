/**
 * Starts a real Temporal dev server for the test run (free port, temporary SQLite file) through
 * temporal-dev.sh, bundles the workflow code once for every test worker, builds agentctl and the chat
 * page, and stops the server after.
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
  const port = await freePort();
  const devArgs = [
    'temporal-dev.sh',
    'start',
    '--port',
    String(port),
    '--headless',
    '--dir',
    dir,
    '--db',
    join(dir, 'temporal.db'),
  ];
  const env = { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_DEV_PORT: '' };
  const { stdout } = await run('bash', devArgs, { env });
  const address = stdout.trim();

  const bundle = await bundleWorkflowCode({
    workflowsPath,
    ...workflowBundleOptions,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  const workflowBundlePath = join(dir, 'workflow-bundle.js');
  await writeFile(workflowBundlePath, bundle.code);

  project.provide('temporalAddress', address);
  project.provide('temporalDevDir', dir);
  project.provide('temporalDevPort', port);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    await run('bash', ['temporal-dev.sh', 'stop', '--port', String(port), '--dir', dir], { env });
    await rm(dir, { recursive: true, force: true });
  };
}
