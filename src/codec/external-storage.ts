/**
 * Large payloads out of the history: Temporal's external storage (`externalStorage` on the data
 * converter) puts every payload over a threshold in a store and records a small reference instead.
 * Worker, client, agentctl and the HTTP server all come through {@link loadExternalStorage}, so that
 * whatever one process stores, every other one can read.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  ExternalStorage,
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const PayloadProto = proto.temporal.api.common.v1.Payload;

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

/** The file driver's name, recorded in every reference it makes: readers find their driver by it. */
export const FILE_DRIVER_NAME = 'durable-agents.files';

/**
 * A store of payloads in a directory, for processes on one machine (the dev server's): no server, no
 * credentials. Each payload is a file named by the SHA-256 of its bytes, under the namespace and
 * workflow id that stored it (`<dir>/<namespace>/<workflow id>/<sha256>`), written once (a retry or a
 * replay that stores the same bytes finds the file) and checked against its hash when read.
 *
 * It never deletes: a payload lives as long as the directory. A run's files are under its workflow
 * id, so deleting that folder once the run is closed and past the namespace's retention (its history
 * is gone, nothing refers to them) frees them; see docs/large-payloads.md.
 */
export class FileStorageDriver implements StorageDriver {
  readonly name = FILE_DRIVER_NAME;
  readonly type = FILE_DRIVER_NAME;
  /** The absolute directory the payloads are in. */
  readonly directory: string;

  constructor(directory: string) {
    if (!directory) throw new TypeError('FileStorageDriver: give the directory to keep payloads in');
    this.directory = resolve(directory);
  }

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const folder = `${segment(context.target?.namespace)}/${segment(context.target?.id)}`;
    return Promise.all(payloads.map((payload) => this.storeOne(folder, payload)));
  }

  async retrieve(_context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(claims.map((claim) => this.retrieveOne(claim)));
  }

  private async storeOne(folder: string, payload: Payload): Promise<StorageDriverClaim> {
    const bytes = PayloadProto.encode(payload).finish();
    const hash = sha256(bytes);
    const key = `${folder}/${hash}`;
    const file = join(this.directory, key);
    if (!(await exists(file))) {
      await mkdir(dirname(file), { recursive: true });
      // Written aside and renamed: a reader never sees half a file, and two writers of the same
      // bytes (a retried activity on another worker) both end with the whole one.
      const partial = `${file}.${randomUUID()}.partial`;
      try {
        await writeFile(partial, bytes);
        await rename(partial, file);
      } catch (err) {
        await rm(partial, { force: true });
        throw new Error(`cannot store a payload in ${this.directory}: ${errorMessage(err)}`, { cause: err });
      }
    }
    return new StorageDriverClaim({ key, hashAlgorithm: 'sha256', hashValue: hash });
  }

  private async retrieveOne(claim: StorageDriverClaim): Promise<Payload> {
    const { key, hashAlgorithm, hashValue } = claim.claimData;
    // A reference comes from the history, where whoever may signal a run can put one: its key names
    // a file under the directory and nothing else, and the file must hash to what it says.
    if (!key || !CLAIM_KEY.test(key) || hashAlgorithm !== 'sha256' || !key.endsWith(`/${hashValue}`)) {
      throw new Error(
        `a payload reference of the ${FILE_DRIVER_NAME} driver is malformed: ${JSON.stringify(claim.claimData)}`,
      );
    }
    const file = join(this.directory, key);
    const bytes = await readFile(file).catch((err: unknown) => {
      // The message goes into the history (a failed workflow task): it names the key, not the directory.
      const why = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new Error(
        `the payload ${key} is not in the payload store (${why}): every worker and client must share one ` +
          'directory (DURABLE_AGENTS_PAYLOAD_STORE); on several machines use the S3 driver',
        { cause: err },
      );
    });
    if (sha256(bytes) !== hashValue) throw new Error(`the payload ${key} does not match its hash: it was changed`);
    return PayloadProto.decode(bytes);
  }
}

/** `<namespace>/<workflow id>/<sha256>`, each folder name percent-encoded, dots included. */
const CLAIM_KEY = /^[A-Za-z0-9%!~*'()_-]+\/[A-Za-z0-9%!~*'()_-]+\/[0-9a-f]{64}$/;

/**
 * A folder name for an id: percent-encoded (no `/`, and `.` too, so never `..`), and short enough for
 * any file system however long the id (a sub-agent's run id can take 1,000 characters).
 */
function segment(value: string | undefined): string {
  if (!value) return '_';
  const encoded = encodeURIComponent(value).replace(/\./g, '%2E');
  return encoded.length <= 150 ? encoded : `${encoded.slice(0, 100)}~${sha256(Buffer.from(value)).slice(0, 32)}`;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

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
  const driver = settings.kind === 'files' ? new FileStorageDriver(settings.directory) : await s3Driver(settings);
  return new ExternalStorage({ drivers: [driver], payloadSizeThreshold: threshold });
}

async function s3Driver(settings: Extract<PayloadStoreSettings, { kind: 's3' }>): Promise<StorageDriver> {
  const [s3, driver, adapter] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@temporalio/external-storage-s3'),
    import('@temporalio/external-storage-s3-aws-sdk'),
  ]).catch((err: unknown) => {
    throw new Error(
      'the S3 payload store needs @aws-sdk/client-s3, @temporalio/external-storage-s3 and ' +
        `@temporalio/external-storage-s3-aws-sdk: npm install them (${errorMessage(err)})`,
      { cause: err },
    );
  });
  const client = new s3.S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.forcePathStyle ? { forcePathStyle: true } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  });
  const inner = new driver.S3StorageDriver({
    client: new adapter.AwsSdkS3StorageDriverClient(client),
    bucket: settings.bucket,
  });
  return new OneBucketDriver(inner, settings.bucket);
}

/**
 * Temporal's S3 driver reads whatever bucket and key a reference names, and a reference can come from
 * whoever may signal a run: this one reads only from the configured bucket, so that a forged reference
 * cannot bring into a run's history (or its worker's memory) any object the worker's credentials reach.
 */
export class OneBucketDriver implements StorageDriver {
  readonly name: string;
  readonly type: string;

  constructor(
    private readonly inner: StorageDriver,
    private readonly bucket: string,
  ) {
    this.name = inner.name;
    this.type = inner.type;
  }

  store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return this.inner.store(context, payloads);
  }

  async retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    const foreign = claims.find((claim) => claim.claimData.bucket !== this.bucket);
    if (foreign) {
      throw new Error(
        `a payload reference names the bucket ${JSON.stringify(foreign.claimData.bucket)}, not the payload ` +
          `store's (${this.bucket}): refused; every process must be given the same DURABLE_AGENTS_PAYLOAD_STORE`,
      );
    }
    return this.inner.retrieve(context, claims);
  }
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
