/**
 * A tool's output over the payload store's threshold is stored after the activity returns, by the SDK,
 * while nothing heartbeats: a store that is down then fails the call for good (`PayloadStoreError`, not
 * retried, so that the tool's side effects are not repeated). So before returning such an output, the
 * activity waits, heartbeating, until the store takes a write again, for as long as its attempt's
 * start-to-close timeout leaves: an outage of the store delays the call rather than failing it. A store
 * that refuses for good (access denied, a full disk) is waited for too, then fails the call as before.
 */
import { Context } from '@temporalio/activity';
import { setTimeout as sleep } from 'node:timers/promises';

/** The worker's payload store, as a tool's execution sees it. */
export interface PayloadStoreProbe {
  /** Payloads of this many bytes or more go to the store. */
  threshold: number;
  /** Resolves when the store takes a write (and gives it back); throws when it does not. */
  takesWrites: () => Promise<void>;
}

/** One probe of the store may take this long: a store that hangs is a store that is down. */
const PROBE_TIMEOUT_MS = 10_000;
/**
 * Kept back from the attempt's start-to-close timeout for the SDK's own write of the output (which must
 * also end within the heartbeat timeout: nothing heartbeats during it).
 */
const MARGIN_MS = 15_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5_000;

/**
 * Waits until the store takes writes, when `output` is large enough to go there. Gives up (and lets the
 * SDK's write fail the call, as before) before the attempt's time runs out, or when it is cancelled.
 */
export async function untilStoreTakesWrites(store: PayloadStoreProbe | undefined, output: unknown): Promise<void> {
  // Half the threshold: the codec and the payload's metadata change the stored size a little.
  if (!store || Buffer.byteLength(JSON.stringify(output)) < store.threshold / 2) return;
  const activity = Context.current();
  const { startToCloseTimeoutMs, currentAttemptScheduledTimestampMs, heartbeatTimeoutMs } = activity.info;
  const deadline = currentAttemptScheduledTimestampMs + startToCloseTimeoutMs - MARGIN_MS;
  const beat = heartbeatTimeoutMs ? setInterval(() => activity.heartbeat(), heartbeatTimeoutMs / 3) : undefined;
  try {
    for (let pause = FIRST_PAUSE_MS, warned = false; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      const failure = await probe(store, Math.min(PROBE_TIMEOUT_MS, deadline - Date.now()));
      if (failure === undefined) return;
      // Another pause and a whole probe must still fit before the deadline.
      if (Date.now() + pause + PROBE_TIMEOUT_MS > deadline || activity.cancellationSignal.aborted) return;
      if (!warned) {
        warned = true;
        activity.log.warn(
          `the payload store does not take writes (${failure}): the tool's output waits for it, ` +
            `up to ${Math.round((deadline - Date.now()) / 1000)} s`,
        );
      }
      await sleep(pause, undefined, { signal: activity.cancellationSignal }).catch(() => undefined);
      if (activity.cancellationSignal.aborted) return;
    }
  } finally {
    clearInterval(beat);
  }
}

/**
 * The store's answer to one write within `timeoutMs`: undefined when it took it, else what went wrong
 * (for the worker's log). A probe that runs out of time is left to end on its own.
 */
async function probe(store: PayloadStoreProbe, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer in ${Math.round(timeoutMs / 1000)} s`), Math.max(timeoutMs, 0));
  });
  try {
    return await Promise.race([
      store.takesWrites().then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err)),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
