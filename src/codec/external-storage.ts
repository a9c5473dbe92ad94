/**
 * Large payloads out of the history: Temporal's external storage (`externalStorage` on the data
 * converter) puts every payload over a threshold in a store and records a small reference instead.
 * Worker, client, agentctl and the HTTP server all come through {@link loadExternalStorage}, so that
 * whatever one process stores, every other one can read.
 */
import { isAbsolute } from 'node:path';
import { ExternalStorage, type StorageDriver } from '@temporalio/common';
import { FileStorageDriver } from './file-store.js';
import { OneBucketDriver, s3Driver } from './s3-store.js';

export { FILE_DRIVER_NAME, FileStorageDriver } from './file-store.js';
export { OneBucketDriver } from './s3-store.js';

/**
 * Payloads from this size on (bytes of the encoded payload) go to the store. Temporal's own default:
 * well under its 2 MiB payload and 4 MiB request limits, so that a run's commands never come near
 * them, and over the size of nearly every model call, tool result and decision, whose round trip to
 * a store would cost more than their bytes in the history do.
 */
export const DEFAULT_PAYLOAD_STORE_THRESHOLD = 256 * 1024;

/**
 * The largest threshold: a payload just under it stays in the history, which must keep well under
 * Temporal's 2 MiB payload limit (the run's larger limits with a store assume it does).
 */
export const MAX_PAYLOAD_STORE_THRESHOLD = 1024 * 1024;

/** Where large payloads go: a directory on this machine, or an S3 bucket. */
export type PayloadStoreSettings =
  | { kind: 'files'; directory: string; threshold?: number }
  | {
      kind: 's3';
      bucket: string;
      threshold?: number;
      /** The S3 endpoint (an S3-compatible server); else the AWS SDK's (`AWS_ENDPOINT_URL_S3`, the region's). */
      endpoint?: string;
      /** Else the AWS SDK's (`AWS_REGION`, the profile). */
      region?: string;
      /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which most S3-compatible servers need. */
      forcePathStyle?: boolean;
      /** Else the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`, the profile, the instance's role, ...). */
      credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
    };

/**
 * What the environment says: `DURABLE_AGENTS_PAYLOAD_STORE` is a directory (an absolute path, or
 * `file:<path>`) or `s3://<bucket>`; `DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD` the size in bytes from
 * which a payload goes there (default {@link DEFAULT_PAYLOAD_STORE_THRESHOLD}). For S3, the AWS SDK's
 * own environment (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL_S3`), and
 * `DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE=1` for servers that need path-style URLs. Unset or
 * `off`: payloads stay in the history.
 */
export function payloadStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadStoreSettings | undefined {
  const store = env.DURABLE_AGENTS_PAYLOAD_STORE?.trim();
  if (!store || store === 'off') return undefined;
  const threshold = thresholdFromEnv(env.DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD);
  const withThreshold = threshold === undefined ? {} : { threshold };
  if (store.startsWith('s3://')) {
    const bucket = store.slice('s3://'.length).replace(/\/$/, '');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new TypeError(
        `DURABLE_AGENTS_PAYLOAD_STORE: "${store}" does not name an S3 bucket: give s3://<bucket> (a key prefix is not supported)`,
      );
    }
    const pathStyle = env.DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE ?? '';
    if (!['', '0', '1'].includes(pathStyle)) {
      throw new TypeError(
        `DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE: "${pathStyle}" is neither 1 (path-style URLs) nor 0`,
      );
    }
    return { kind: 's3', bucket, ...withThreshold, ...(pathStyle === '1' ? { forcePathStyle: true } : {}) };
  }
  const directory = store.startsWith('file:') ? store.slice('file:'.length) : store;
  if (!isAbsolute(directory) || directory.startsWith('//')) {
    throw new TypeError(
      `DURABLE_AGENTS_PAYLOAD_STORE: "${store}" is neither an absolute directory (or file:<absolute path>) nor ` +
        's3://<bucket>: every process must find the same directory, whatever its working directory',
    );
  }
  return { kind: 'files', directory, ...withThreshold };
}

function thresholdFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) {
    throw new TypeError(`DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD: "${value}" is not a number of bytes`);
  }
  return Number(value);
}

/**
 * The external storage for these settings. The S3 driver is Temporal's `@temporalio/external-storage-s3`
 * over `@aws-sdk/client-s3`, optional dependencies loaded only here: install them where S3 is used.
 */
export async function createExternalStorage(settings: PayloadStoreSettings): Promise<ExternalStorage> {
  const threshold = settings.threshold ?? DEFAULT_PAYLOAD_STORE_THRESHOLD;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    throw new TypeError(`payload store threshold: ${threshold} is not a number of bytes`);
  }
  if (threshold > MAX_PAYLOAD_STORE_THRESHOLD) {
    throw new TypeError(
      `payload store threshold: ${threshold} bytes is over ${MAX_PAYLOAD_STORE_THRESHOLD}: payloads under the ` +
        'threshold stay in the history, where Temporal refuses one over 2 MiB, and a run with a store may ' +
        'hold tool outputs of 16 MiB; give at most 1 MiB (the default is 256 KiB)',
    );
  }
  const driver: StorageDriver =
    settings.kind === 'files' ? new FileStorageDriver(settings.directory) : await s3Driver(settings);
  return new ExternalStorage({ drivers: [driver], payloadSizeThreshold: threshold });
}

/**
 * The external storage the environment configures (see {@link payloadStoreFromEnv}), or none. Every
 * process of a deployment must be given the same: a reference one of them records is a read error
 * in any process without its driver.
 */
export async function loadExternalStorage(env: NodeJS.ProcessEnv = process.env): Promise<ExternalStorage | undefined> {
  const settings = payloadStoreFromEnv(env);
  return settings ? createExternalStorage(settings) : undefined;
}

/** One line for a process's start-up log: where payloads over the threshold go. */
export function describeExternalStorage(storage: ExternalStorage | undefined): string {
  if (!storage) return 'payloads in the history (no payload store configured)';
  const where = storage.drivers
    .map((d) => (d instanceof FileStorageDriver ? `the directory ${d.directory}` : `the ${d.type} store`))
    .join(', ');
  return `payloads of ${storage.payloadSizeThreshold} bytes or more in ${where}`;
}

/**
 * Checks at a process's start that it can use the payload store, so that it refuses to start (one
 * line naming the problem) rather than find out when a run needs the store: a worker writes and reads
 * (a tool's output it could not store would be lost), a client of the directory store too (it stores
 * large inputs and decisions), a client of the S3 store reads. Drivers of your own are not checked.
 */
export async function checkPayloadStore(storage: ExternalStorage, role: 'worker' | 'client'): Promise<void> {
  for (const driver of storage.drivers) {
    if (driver instanceof FileStorageDriver) await driver.check();
    else if (driver instanceof OneBucketDriver) await driver.check(role === 'worker');
  }
}
