/**
 * A worker in a process of its own, so that its memory and CPU can be measured, and several can run
 * side by side: `BENCH_WORKER_KIND` `agent` (the bench agent, with the stream model) or `floor` (the
 * engine floor). `BENCH_BUNDLE`: a pre-built workflow bundle (no bundling at start);
 * `BENCH_MAX_CACHED`: the worker's `maxCachedWorkflows` (`sdk`: the SDK's own default for this heap;
 * unset: createWorker's default). Answers "stats" (and "gc", which collects first) over IPC.
 *
 * It runs as an application's worker does: compiled, loading the library as built (lib/), not through
 * tsx (bench/worker-pool.ts compiles it). Under tsx every function the workflow sandbox compiles (the
 * SDK compiles one for each promise a workflow makes) also goes through Node's source-map handling.
 */
import { getHeapStatistics } from 'node:v8';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createWorker } from '../src/worker/index.js';
import * as activities from './activities.js';
import { streamModels } from './stream-model.js';
import { benchAgent } from './systems.js';

export interface WorkerStats {
  rss: number;
  heapUsed: number;
  /** What V8 holds for its heap (used or not). */
  heapTotal: number;
  /** Memory of JavaScript objects outside the heap (buffers). */
  external: number;
  cachedWorkflows: number;
  /** CPU time of the process so far, ms (user + system). */
  cpuMs: number;
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const kind = process.env.BENCH_WORKER_KIND ?? 'agent';
const bundle = process.env.BENCH_BUNDLE;
const maxCachedSetting = process.env.BENCH_MAX_CACHED;
// The SDK's default with reuseV8Context (worker-options.js): about 600 workflows a GiB of heap over 200 MiB.
const heapMiB = getHeapStatistics().heap_size_limit / 2 ** 20;
const sdkDefault = Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), 10);
const maxCachedWorkflows =
  maxCachedSetting === 'sdk' ? sdkDefault : maxCachedSetting ? Number(maxCachedSetting) : undefined;
const cache = maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {};

let worker: Worker;
let run: () => Promise<void>;
if (kind === 'floor') {
  // Compiled into a folder of its own (bench/worker-pool.ts), it finds no workflow source beside it.
  if (!bundle)
    throw new Error('the floor worker process needs BENCH_BUNDLE, a pre-built bundle (bench/worker-pool.ts)');
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  worker = await Worker.create({
    connection,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
    activities,
    ...cache,
    workflowBundle: { codePath: bundle },
  });
  run = async () => {
    await worker.run();
    await connection.close();
  };
} else {
  const agentWorker = await createWorker({
    agents: [benchAgent],
    enableScriptedModel: true,
    models: streamModels,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
    workerOptions: cache,
  });
  worker = agentWorker.worker;
  run = agentWorker.run;
}

const stats = (): WorkerStats => {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  return {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    cachedWorkflows: worker.getStatus().numCachedWorkflows,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
};
process.on('message', (m) => {
  if (m === 'gc') globalThis.gc?.();
  process.send!(stats());
});
process.send!({ ready: true, maxCachedWorkflows: maxCachedWorkflows ?? 'default' });
await run();
process.disconnect();
