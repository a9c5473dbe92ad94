/** A dev server of the benchmark's own: temporal-dev.sh on a free port, with a temporary SQLite file. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface DevServer {
  address: string;
  /** The server's process id, to read its CPU time. */
  pid: number;
  /** The server's Prometheus endpoint (persistence requests by operation: bench/server-metrics.ts). */
  metricsUrl: string;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

export async function startDevServer(): Promise<DevServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-'));
  const port = await freePort();
  const metricsPort = await freePort();
  const devArgs = ['--port', String(port), '--dir', dir, '--db', join(dir, 'bench.db'), '--headless'];
  const startArgs = [...devArgs, '--metrics-port', String(metricsPort)];
  // The caller's own server settings must not leak into the benchmark's.
  const env = { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_DEV_PORT: '' };
  const { stdout } = await run('bash', ['temporal-dev.sh', 'start', ...startArgs], { env });
  const pid = Number(await readFile(join(dir, `server-${port}.pid`), 'utf8'));
  return {
    address: stdout.trim(),
    pid,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    async stop() {
      await run('bash', ['temporal-dev.sh', 'stop', ...devArgs], { env });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
