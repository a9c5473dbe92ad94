import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker, type NativeConnectionOptions } from '@temporalio/worker';
import { inject } from 'vitest';
import type { DecisionKeys } from '../src/worker/activities/approvals/verify-decision.js';
import type { NotificationSettings } from '../src/worker/activities/approvals/notify.js';
import type { Tracing } from '../src/tracing/tracing.js';
import type { AddressInfo } from 'node:net';
import { type Agent, type Principal, type RunStreamChunk } from '../src/index.js';
import { createWorker, type CreateWorkerOptions, type ModelFactory } from '../src/worker/index.js';
import { AgentClient } from '../src/client/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../src/server/index.js';
import type { ModelRetry } from '../src/schemas/model-retry.js';
import { resolveConnection } from '../src/connection/config.js';

// Worker INFO logs (one per state change and activity) would bury the test output.
Runtime.install({ logger: new DefaultLogger('WARN') });

export const temporalAddress = (): string => inject('temporalAddress');

/**
 * How a test connects to the test server: its address, and the TLS settings the global setup put in the
 * environment when the server is the production-shaped cluster (envconfig's `TEMPORAL_TLS_*`).
 */
export const testConnection = (): NativeConnectionOptions =>
  resolveConnection({ address: temporalAddress() }).connectionOptions;

/** A worker on a task queue of its own, for one test or one file. */
export interface TestWorker {
  taskQueue: string;
  client: AgentClient;
  stop(): Promise<void>;
}

export async function startWorker(
  agents: Agent[],
  options: {
    models?: Record<string, ModelFactory>;
    /** AI SDK providers by name, beside the built-in ones. */
    providers?: CreateWorkerOptions['providers'];
    enableScriptedModel?: boolean;
    decisionKeys?: DecisionKeys;
    codec?: PayloadCodec;
    /** The payload store of the worker and the client (default: none, whatever the environment says). */
    externalStorage?: ExternalStorage;
    taskQueue?: string;
    /** Tracing for the worker and the client (default: none, whatever the environment says). */
    tracing?: Tracing;
    /** The worker's webhook (default: none, whatever the environment says). */
    notifications?: NotificationSettings;
    /** How long the worker retries model steps of agents that set no window (default: the worker's default). */
    modelRetry?: ModelRetry;
  } = {},
): Promise<TestWorker> {
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const connection = await NativeConnection.connect(testConnection());
  const worker = await createWorker({
    agents,
    // Tests play the scripted model; a production worker has it off (see run.test.ts).
    enableScriptedModel: options.enableScriptedModel ?? true,
    decisionKeys: options.decisionKeys,
    models: options.models,
    ...(options.providers ? { providers: options.providers } : {}),
    codec: options.codec,
    externalStorage: options.externalStorage ?? false,
    tracing: options.tracing ?? false,
    notifications: options.notifications ?? false,
    ...(options.modelRetry ? { modelRetry: options.modelRetry } : {}),
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const running = worker.run();
  const client = await AgentClient.connect({
    address: temporalAddress(),
    namespace: 'default',
    taskQueue,
    codec: options.codec,
    externalStorage: options.externalStorage ?? false,
    tracing: options.tracing ?? false,
  });
  return {
    taskQueue,
    client,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await client.close();
    },
  };
}

/** The event types of a run's history, in order. */
export async function historyEventTypes(client: AgentClient, runId: string): Promise<string[]> {
  const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).map(
    (e) => proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType),
  );
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every chunk of a stream, read to its end. */
/**
 * JSON of a value without its random ids, hashes and times, to look for a digit secret in: a run id once
 * held "4242", the secret a test looked for.
 */
export function withoutRandomIds(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => (RANDOM_KEYS.has(key) ? undefined : v));
}
const RANDOM_KEYS = new Set(['id', 'runId', 'fingerprint', 'askedAt', 'timestamp']);

export async function collect(stream: AsyncIterable<RunStreamChunk>): Promise<RunStreamChunk[]> {
  const chunks: RunStreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** A worker of the plain Temporal workflows in `test/fixtures/workflows.ts`, which agents call as workflow tools. */
export async function startWorkflowWorker(taskQueue: string): Promise<{ stop(): Promise<void> }> {
  const connection = await NativeConnection.connect(testConnection());
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url)),
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/** People with bearer tokens, by name, for a server that authenticates them. */
export type TokenPeople = Record<string, { token: string; principal: Principal }>;

/**
 * The HTTP server on a free port, authenticating these people by their tokens, serving these agents and
 * letting requests send a `script` (the scripted model). `base` is its address.
 */
export async function serveWithTokens(
  client: AgentClient,
  people: TokenPeople,
  agents: Agent[],
): Promise<{ base: string; close(): Promise<void> }> {
  const tokens = Object.fromEntries(Object.values(people).map((p) => [p.token, p.principal]));
  const server = await startServer(client, {
    port: 0,
    authenticate: bearerTokens(tokens),
    agents,
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
