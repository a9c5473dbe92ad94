/**
 * `durable-agents/testing`: test your agents as this project tests its own, against a real Temporal
 * dev server (never a mock): a worker for your agents on a task queue of its own, with the offline
 * `scripted` model on, and a client for it.
 *
 * ```ts
 * const kit = await startTestKit({ agents: [myAgent] });
 * const result = await kit.client.generate('my-agent', 'hi', { model: 'scripted', script: [{ text: 'hello' }] });
 * await kit.stop();
 * ```
 */
import { randomUUID } from 'node:crypto';
import type { PayloadCodec } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import type { Agent } from '../agent.js';
import { AgentClient } from '../client/index.js';
import type { PendingToolCall } from '../schemas/decisions.js';
import { rejectUnknownKeys } from '../options.js';
import { createWorker } from '../worker/worker.js';
import type { ModelFactory } from '../worker/models/registry.js';
import type { ModelProvider } from '../worker/models/providers.js';
import type { Duration } from '@temporalio/common';
import { startDevServer } from './dev-server.js';
import { startTimeSkippingServer, type TimeSkippingServer } from './time-skipping.js';

export { RUN_SEARCH_ATTRIBUTES, startDevServer } from './dev-server.js';
export type { DevServer, DevServerOptions } from './dev-server.js';
export { startTimeSkippingServer } from './time-skipping.js';
export type { TimeSkippingServer, TimeSkippingServerOptions } from './time-skipping.js';

/** What the kit runs. */
export interface TestKitOptions {
  /** The agents under test. */
  agents: Agent[];
  /**
   * A Temporal server to use (its namespace `default` must have the run search attributes:
   * {@link RUN_SEARCH_ATTRIBUTES}). Default: a dev server the kit starts with the Temporal CLI and stops.
   */
  address?: string;
  /** The Temporal CLI, when the kit starts the server. Default: `TEMPORAL_CLI`, else `temporal` on the PATH. */
  cli?: string;
  /**
   * Run on Temporal's time-skipping test server rather than a dev server, so that the test can move the
   * clock with {@link TestKit.skipTime} (an approval's deadline, say). That server lists no runs
   * (`listRuns`, `listSuspendedRuns` and the inbox fail with its UNIMPLEMENTED); starting, reading,
   * deciding and awaiting runs work as on a cluster. Needs `@temporalio/testing`.
   */
  timeSkipping?: boolean;
  /**
   * The time-skipping test server to run. Default: `TEMPORAL_TEST_SERVER`, else the build
   * `@temporalio/testing` downloads.
   */
  testServer?: string;
  /** AI SDK providers beside the built-in ones, by the name a model string starts with (see `createWorker`). */
  providers?: Record<string, ModelProvider>;
  /** Model factories beside `scripted` (a fake of your own, say). */
  models?: Record<string, ModelFactory>;
  /** The payload codec of the worker and the client. Default: payloads in clear. */
  codec?: PayloadCodec;
  /** A pre-built workflow bundle, to skip bundling (about 10 s) in every test file. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** A worker and a client on a task queue of their own. */
export interface TestKit {
  client: AgentClient;
  address: string;
  taskQueue: string;
  /** Waits until the run waits on a call (an approval, a suspension, a client tool) and returns the calls. */
  waitForPendingCalls(runId: string, timeoutMs?: number): Promise<PendingToolCall[]>;
  /**
   * Moves the server's clock forward by `duration` (`'25 hours'`, or milliseconds), firing every timer due
   * meanwhile: deadlines, reminders. Only with `timeSkipping: true`; refused on a dev server.
   */
  skipTime(duration: Duration): Promise<void>;
  /** The server's clock: the wall clock on a dev server, the skipped-to time on the time-skipping server. */
  now(): Promise<Date>;
  /** Stops the worker, the client and the server the kit started. */
  stop(): Promise<void>;
}

const KIT_OPTIONS = [
  ...['agents', 'address', 'cli', 'timeSkipping', 'testServer'],
  ...['providers', 'models', 'codec', 'workflowBundle'],
];

/**
 * Starts a worker for the agents and a client, on a server of its own (a dev server, or the time-skipping
 * test server) unless given an address.
 */
export async function startTestKit(options: TestKitOptions): Promise<TestKit> {
  rejectUnknownKeys('startTestKit', options, KIT_OPTIONS);
  const timeSkipping = kitServerChoice(options);
  const server: { address: string; stop(): Promise<void> } | undefined = options.address
    ? undefined
    : timeSkipping
      ? await startTimeSkippingServer({ testServer: options.testServer })
      : await startDevServer(options.cli ? { cli: options.cli } : {});
  const address = options.address ?? server!.address;
  const taskQueue = `test-${randomUUID()}`;
  const common = { address, namespace: 'default', taskQueue, externalStorage: false as const, tracing: false as const };
  let stopWorker: (() => Promise<void>) | undefined;
  try {
    const worker = await createWorker({
      ...common,
      agents: options.agents,
      enableScriptedModel: true,
      notifications: false,
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.models ? { models: options.models } : {}),
      ...(options.codec ? { codec: options.codec } : {}),
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
    const client = await AgentClient.connect({ ...common, ...(options.codec ? { codec: options.codec } : {}) });
    return {
      client,
      address,
      taskQueue,
      waitForPendingCalls: (runId, timeoutMs = 20_000) => pendingCalls(client, runId, timeoutMs),
      async skipTime(duration) {
        if (!timeSkipping) {
          throw new Error(
            "skipTime: this kit runs on a dev server, whose clock moves with the wall clock's; " +
              'start it with startTestKit({ timeSkipping: true }) to move the clock',
          );
        }
        await (server as TimeSkippingServer).skipTime(duration);
      },
      now: async () => (timeSkipping ? await (server as TimeSkippingServer).now() : new Date()),
      async stop() {
        // The server goes whatever the worker or the client said as they stopped: no test server is left behind.
        try {
          await stopWorker!();
          await client.close();
        } finally {
          await server?.stop();
        }
      },
    };
  } catch (err) {
    await stopWorker?.().catch(() => undefined);
    await server?.stop();
    throw err;
  }
}

/** Whether the kit runs on the time-skipping server; refuses choices that contradict each other. */
function kitServerChoice(options: TestKitOptions): boolean {
  if (options.timeSkipping !== undefined && typeof options.timeSkipping !== 'boolean') {
    throw new TypeError(`startTestKit: timeSkipping is true or false, not ${JSON.stringify(options.timeSkipping)}`);
  }
  const timeSkipping = options.timeSkipping === true;
  if (timeSkipping && (options.address !== undefined || options.cli !== undefined)) {
    throw new TypeError(
      'startTestKit: timeSkipping starts a test server of its own; it takes testServer, not address or cli',
    );
  }
  if (!timeSkipping && options.testServer !== undefined) {
    throw new TypeError('startTestKit: testServer names the time-skipping server; set timeSkipping: true with it');
  }
  return timeSkipping;
}

async function pendingCalls(client: AgentClient, runId: string, timeoutMs: number): Promise<PendingToolCall[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await client.getRun(runId);
    if (run.pendingToolCalls.length > 0) return run.pendingToolCalls;
    if (run.status !== 'running' && run.status !== 'suspended') {
      throw new Error(`waitForPendingCalls: run ${runId} ended (${run.status}) without waiting on a call`);
    }
    if (Date.now() > until)
      throw new Error(`waitForPendingCalls: run ${runId} waited on no call within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
