/**
 * Temporal's time-skipping test server for a test file, where a test must move the clock (an approval's
 * deadline, a reminder): `@temporalio/testing`'s environment, with the run search attributes added.
 *
 * The server starts with its clock locked: it moves at the pace of the wall clock until the test calls
 * `skipTime`, which fires every timer due within the skipped time. It serves one namespace, `default`,
 * and no visibility: runs are started, read, decided and awaited, but not listed.
 */
import type { Duration } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { requirePeers } from '../peers.js';
import { runSearchAttributeValues } from '../connection/search-attributes.js';

/** A time-skipping test server the kit started. */
export interface TimeSkippingServer {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Moves the server's clock forward by `duration`, firing the timers due meanwhile. */
  skipTime(duration: Duration): Promise<void>;
  /** The server's clock. */
  now(): Promise<Date>;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** How to start the time-skipping test server. */
export interface TimeSkippingServerOptions {
  /**
   * The test server to run (a native build from the Java SDK's releases, or a launcher of its Java build).
   * Default: `TEMPORAL_TEST_SERVER`, else the build `@temporalio/testing` downloads and caches.
   */
  testServer?: string | undefined;
}

/** Starts the time-skipping test server on a free port and registers the run search attributes. */
export async function startTimeSkippingServer(options: TimeSkippingServerOptions = {}): Promise<TimeSkippingServer> {
  requirePeers('startTestKit({ timeSkipping: true })', ['@temporalio/testing']);
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const path = options.testServer ?? process.env.TEMPORAL_TEST_SERVER;
  let env: TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: path ? { type: 'existing-path', path } : { type: 'cached-download' } },
    });
  } catch (err) {
    throw new Error(
      `startTestKit: cannot start the time-skipping test server ${path ? `"${path}"` : '(the SDK downloads it)'}: ` +
        `${err instanceof Error ? err.message : String(err)}; name one with testServer or TEMPORAL_TEST_SERVER`,
      { cause: err },
    );
  }
  try {
    // The test server takes search attributes as registered; it does not list them.
    await env.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: runSearchAttributeValues(),
    });
  } catch (err) {
    await env.teardown();
    throw err;
  }
  return {
    address: env.address,
    skipTime: (duration) => env.sleep(duration),
    now: async () => new Date(await env.currentTimeMs()),
    stop: () => env.teardown(),
  };
}
