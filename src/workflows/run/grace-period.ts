/**
 * The grace period of a finished streamed run: it stays open a while so that readers a few seconds
 * behind get its last chunks. Cancelling the run ends it at once.
 */
import { CancellationScope, sleep } from '@temporalio/workflow';
import { takes } from '../patches.js';

/** Sleeps `ms`, or until the run is cancelled. */
export async function gracePeriod(ms: number): Promise<void> {
  // The timer starts in a non-cancellable scope, as it did in runs from before, and is never
  // cancelled: a cancel request stops the waiting instead, and the run closes with the timer pending.
  // Where a run from before replays a cancel request in its grace period, the patch is not taken and the
  // run waits the timer out, as it did.
  const timer = CancellationScope.nonCancellable(() => sleep(ms));
  const cancelled = new Promise<void>((resolve) => {
    CancellationScope.current().cancelRequested.catch(() => {
      if (takes('graceEndsOnCancel')) resolve();
    });
  });
  await Promise.race([timer, cancelled]);
}
