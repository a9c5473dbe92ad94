/** Workers in processes of their own (bench/worker-process.ts), started from pre-built workflow bundles. */
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { build, type Plugin } from 'esbuild';
import { workflowBundleOptions, workflowsPath } from '../src/worker/index.js';
import type { WorkerStats } from './worker-process.js';

export type WorkerKind = 'agent' | 'floor';

export interface Bundles {
  agent: string;
  floor: string;
  remove(): Promise<void>;
}

/** Bundles the agent's and the floor's workflows once, so that worker processes start without bundling. */
export async function buildBundles(): Promise<Bundles> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  const agent = join(dir, 'agent.js');
  const floor = join(dir, 'floor.js');
  const quiet = { logger: new DefaultLogger('WARN') };
  await writeFile(agent, (await bundleWorkflowCode({ workflowsPath, ...workflowBundleOptions, ...quiet })).code);
  const floorPath = fileURLToPath(new URL('./workflows/engine-floor.ts', import.meta.url));
  await writeFile(floor, (await bundleWorkflowCode({ workflowsPath: floorPath, ...quiet })).code);
  return { agent, floor, remove: () => rm(dir, { recursive: true, force: true }) };
}

const src = fileURLToPath(new URL('../src/', import.meta.url));
const lib = fileURLToPath(new URL('../lib/', import.meta.url));

/** Imports of the library's source become imports of the library as built (`node build.js lib`). */
const fromLib: Plugin = {
  name: 'from-lib',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      return path.startsWith(src)
        ? { path: lib + path.slice(src.length).split(sep).join('/'), external: true }
        : undefined;
    });
  },
};

let compiled: Promise<string> | undefined;

/**
 * bench/worker-process.ts compiled once by esbuild into a module that loads the library from lib/, as an
 * application's worker does, so that no worker process runs through tsx. lib/ must be built first (the
 * harness runs `node build.js`).
 */
function workerScript(): Promise<string> {
  return (compiled ??= (async () => {
    // Inside the project, so that the packages it imports resolve from its node_modules.
    const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
    await mkdir(cache, { recursive: true });
    const dir = await mkdtemp(join(cache, 'bench-worker-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'worker-process.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./worker-process.ts', import.meta.url))],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      plugins: [fromLib],
      logLevel: 'warning',
    });
    return outfile;
  })());
}

export interface WorkerProcess {
  pid: number;
  /** Its memory, cache and CPU time now; `gc` collects garbage first. */
  stats(gc?: boolean): Promise<WorkerStats>;
  stop(): Promise<void>;
}

export async function startWorkerProcess(options: {
  address: string;
  taskQueue: string;
  kind: WorkerKind;
  /** A pre-built bundle; without, the process bundles at start (as createWorker does by default). */
  bundle?: string;
  /** `maxCachedWorkflows`: a number, `sdk` (the SDK's default), or unset (createWorker's default). */
  maxCached?: number | 'sdk';
  /** Where the process writes a V8 CPU profile of each of its threads when it exits (bench/cpu-profile.ts). */
  cpuProfileDir?: string;
}): Promise<WorkerProcess> {
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child: ChildProcess = fork(await workerScript(), [], {
    execArgv: ['--expose-gc', ...profile],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      BENCH_WORKER_KIND: options.kind,
      BENCH_BUNDLE: options.bundle ?? '',
      BENCH_MAX_CACHED: options.maxCached === undefined ? '' : String(options.maxCached),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then(() => reject(new Error(`the ${options.kind} worker process exited before it was ready`)));
  });
  // One question at a time: answers come back in order.
  let queue = Promise.resolve<unknown>(undefined);
  const ask = (question: 'stats' | 'gc'): Promise<WorkerStats> => {
    const answer = queue.then(
      () =>
        new Promise<WorkerStats>((resolve) => {
          child.once('message', (m) => resolve(m as WorkerStats));
          child.send(question);
        }),
    );
    queue = answer;
    return answer;
  };
  return {
    pid: child.pid!,
    stats: (gc = false) => ask(gc ? 'gc' : 'stats'),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
