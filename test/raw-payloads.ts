/**
 * Payloads as an attacker with Temporal rights sends them: any metadata, any bytes, through the
 * official Temporal CLI; and a run's history as the server keeps it, read without codec or store.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Connection } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { waitFor } from './helpers.js';

const run = promisify(execFile);

/** A payload's metadata and data, as the CLI's `--input-meta` and `--input-file` give them. */
export interface RawPayload {
  meta: Record<string, string>;
  data: string | Buffer;
}

/** The metadata that makes a payload a payload-store reference (`temporal.api.sdk.v1.ExternalStorageReference`). */
export const REFERENCE_META = {
  encoding: 'json/protobuf',
  messageType: 'temporal.api.sdk.v1.ExternalStorageReference',
};

/**
 * Sends one raw payload as a signal, an update or a query with the Temporal CLI. An update or query
 * the workflow refuses answers `{ failed: <the CLI's error output> }`.
 */
export async function cliSend(options: {
  cli: string;
  dir: string;
  address: string;
  workflowId: string;
  kind: 'signal' | 'update' | 'query';
  name: string;
  payload: RawPayload;
}): Promise<{ ok?: string; failed?: string }> {
  const { cli, dir, address, workflowId, kind, name, payload } = options;
  const file = join(dir, `payload-${randomUUID()}`);
  // The CLI takes JSON encodings as JSON text only (it checks before it would decode base64).
  const asText = typeof payload.data === 'string' && payload.meta.encoding?.startsWith('json/');
  await writeFile(file, asText ? payload.data : Buffer.from(payload.data).toString('base64'));
  const command = {
    signal: ['workflow', 'signal'],
    update: ['workflow', 'update', 'execute'],
    query: ['workflow', 'query'],
  };
  const meta = Object.entries(payload.meta).flatMap(([k, v]) => ['--input-meta', `${k}=${v}`]);
  const args = [...command[kind], '--address', address, '--namespace', 'default', '--workflow-id', workflowId];
  const input = ['--input-file', file, ...(asText ? [] : ['--input-base64'])];
  return run(cli, [...args, '--name', name, ...input, ...meta]).then(
    (r) => ({ ok: r.stdout }),
    (e: { stderr?: string; message: string }) => ({ failed: e.stderr || e.message }),
  );
}

/**
 * A signal sent through the gRPC API, for payloads the CLI will not send (a JSON encoding whose data is
 * not JSON).
 */
export async function grpcSignal(
  connection: Connection,
  workflowId: string,
  name: string,
  payload: RawPayload,
): Promise<void> {
  const metadata = Object.fromEntries(Object.entries(payload.meta).map(([k, v]) => [k, Buffer.from(v)]));
  await connection.workflowService.signalWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId },
    signalName: name,
    input: { payloads: [{ metadata, data: Buffer.from(payload.data) }] },
    identity: 'raw-payloads',
  });
}

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** A workflow's history as the server keeps it (no codec, no payload store: references stay references). */
export async function rawHistory(connection: Connection, workflowId: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/**
 * Waits until the workflow has taken every signal sent so far (a workflow task after the last one
 * completed, or failed), and says which workflow tasks failed, if any.
 */
export async function takenSignals(connection: Connection, workflowId: string): Promise<{ failedTasks: string[] }> {
  return waitFor(`${workflowId} to take its signals`, async () => {
    const events = await rawHistory(connection, workflowId);
    const failedTasks = events
      .map((e) => e.workflowTaskFailedEventAttributes)
      .filter((a) => a !== null && a !== undefined)
      .map((a) => a.failure?.message ?? 'no message');
    const last = events.findLastIndex((e) => e.workflowExecutionSignaledEventAttributes);
    const after = events.slice(last + 1);
    const closed = after.some(
      (e) => e.workflowExecutionCompletedEventAttributes || e.workflowExecutionFailedEventAttributes,
    );
    const settled =
      closed || after.some((e) => e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes);
    return settled || failedTasks.length > 0 ? { failedTasks } : undefined;
  });
}
