/**
 * A tool's output over the payload store's threshold is stored after the activity returns, by the SDK,
 * while nothing heartbeats: a store that is down then fails the call for good (`PayloadStoreError`, not
 * retried, so that the tool's side effects are not repeated). So before returning such an output, the
 * activity waits, heartbeating, until the store takes a write again, for as long as its attempt's
 * start-to-close timeout leaves: an outage of the store delays the call rather than failing it.
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
/** Kept back from the attempt's start-to-close timeout, for the SDK's own write of the output. */
const MARGIN_MS = 15_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5_000;

/**
 * Waits until the store takes writes, when `output` is large enough to go there. Gives up (and lets the
 * SDK's write fail the call, as before) when the attempt's time runs out or the activity is cancelled.
 */
export async function untilStoreTakesWrites(store: PayloadStoreProbe | undefined, output: unknown): Promise<void> {
  // Half the threshold: the codec and the payload's metadata change the stored size a little.
  if (!store || JSON.stringify(output).length < store.threshold / 2) return;
  const activity = Context.current();
  const { startToCloseTimeoutMs, currentAttemptScheduledTimestampMs, heartbeatTimeoutMs } = activity.info;
  const deadline = currentAttemptScheduledTimestampMs + startToCloseTimeoutMs - MARGIN_MS;
  const beat = heartbeatTimeoutMs ? setInterval(() => activity.heartbeat(), heartbeatTimeoutMs / 3) : undefined;
  try {
    for (let pause = FIRST_PAUSE_MS, warned = false; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      const failure = await probe(store);
      if (failure === undefined) return;
      if (Date.now() + pause > deadline || activity.cancellationSignal.aborted) return;
      if (!warned) {
        warned = true;
        activity.log.warn(
          `the payload store does not take writes (${failure}): the tool's output waits for it, ` +
            `up to ${Math.round((deadline - Date.now()) / 1000)} s`,
        );
      }
      await sleep(pause, undefined, { signal: activity.cancellationSignal }).catch(() => undefined);
    }
  } finally {
    clearInterval(beat);
  }
}

/** The store's answer to one write: undefined when it took it, else what went wrong (for the worker's log). */
async function probe(store: PayloadStoreProbe): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer in ${PROBE_TIMEOUT_MS / 1000} s`), PROBE_TIMEOUT_MS);
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
