/** Real processes for the end-to-end tests: workers, agentctl, dev servers. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';

const run = promisify(execFile);

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Where a worker process runs, and how Node loads its TypeScript. */
export interface SpawnOptions {
  /** Default: this repository. */
  cwd?: string;
  /** Default: `--import tsx`; none for Node's own type stripping (a project without tsx). */
  nodeArgs?: string[];
}

/**
 * Starts a worker process, `examples/worker.ts` (what `npm run worker` runs) unless told another
 * entry, and resolves once it serves.
 */
export async function spawnWorker(
  env: Record<string, string>,
  entry = 'examples/worker.ts',
  options: SpawnOptions = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? ['--import', 'tsx']), entry], {
    cwd: options.cwd,
    env: { ...process.env, TEMPORAL_NAMESPACE: 'default', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      output += d.toString();
      if (output.includes('worker: serving')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) =>
      reject(new Error(`worker exited (${code ?? signal}) before serving:\n${output}`)),
    );
  });
  return { child, output: () => output, exited };
}

/** Kills a worker the hard way and waits until it is gone. */
export async function killHard(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `agentctl` (bin/agentctl.js) as its own process. */
export async function agentctl(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/agentctl.js', ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs temporal-dev.sh with the given arguments; returns its stdout. */
export async function devServer(args: string[]): Promise<string> {
  const { stdout } = await run('bash', ['temporal-dev.sh', ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_DEV_PORT: '' },
  });
  return stdout.trim();
}

/** A Temporal server of a test's own that the test may stop and start again. */
export interface OwnServer {
  /** Starts it (again, on the same data); resolves to its address. */
  start(): Promise<string>;
  stop(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
  /** Restarts one of the cluster's processes: frontend, history, matching, worker or postgres. */
  restart(name: 'frontend' | 'history' | 'matching' | 'worker' | 'postgres'): Promise<void>;
  /** What a process needs to reach it (its TLS settings, for the cluster). */
  env(): Promise<Record<string, string>>;
}

/**
 * A server of the kind the run tests against: a dev server on a SQLite file in `dir`, or a
 * production-shaped cluster of temporal-cluster.sh (PostgreSQL, four services, TLS) in `dir`.
 */
export function ownServer(kind: 'dev' | 'cluster', dir: string, port: number): OwnServer {
  if (kind === 'dev') {
    const args = ['--port', String(port), '--dir', dir, '--db', join(dir, 'temporal.db'), '--headless'];
    return {
      start: () => devServer(['start', ...args]),
      stop: async () => void (await devServer(['stop', ...args])),
      destroy: async () => void (await devServer(['stop', ...args])),
      restart: () => Promise.reject(new Error('the dev server is one process: stop and start it')),
      env: async () => ({}),
    };
  }
  const cluster = async (...command: string[]) =>
    (await run('bash', ['temporal-cluster.sh', ...command, '--dir', dir])).stdout;
  return {
    start: async () => (await cluster('start')).trim().split('\n').at(-1)!,
    stop: async () => void (await cluster('stop')),
    destroy: async () => void (await cluster('destroy')),
    restart: async (name) => void (await cluster('restart', name)),
    env: async () =>
      Object.fromEntries(
        (await cluster('env'))
          .split('\n')
          .map((line) => /^export (\w+)=(.*)$/.exec(line))
          .filter((m) => m !== null)
          .map((m) => [m[1]!, m[2]!]),
      ),
  };
}
