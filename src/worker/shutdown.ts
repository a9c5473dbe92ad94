import type { Worker } from '@temporalio/worker';

/**
 * Stops a worker whatever state it is in. `Worker.shutdown()` throws until the worker is RUNNING, and
 * ours starts running only after its plugin has checked the namespace's search attributes (a network
 * call), so a stop asked for in that window would throw; here it waits for the worker to run, or for
 * `running` to settle, and stops it then.
 */
export async function shutdownOnceRunning(worker: Worker, running: Promise<unknown>): Promise<void> {
  let settled = false;
  running.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled && worker.getState() === 'INITIALIZED') await new Promise((r) => setTimeout(r, 5));
  if (worker.getState() === 'RUNNING') worker.shutdown();
}
