/**
 * The S3 store: Temporal's driver `@temporalio/external-storage-s3` over `@aws-sdk/client-s3`, optional
 * dependencies loaded only here, held to one bucket and to keys of Temporal's scheme. See
 * docs/large-payloads.md.
 */
import { ValueError } from '@temporalio/common';
import type {
  Payload,
  StorageDriver,
  StorageDriverClaim,
  StorageDriverRetrieveContext,
  StorageDriverStoreContext,
} from '@temporalio/common';
import { PayloadReferenceError, PayloadStoreConfigError } from './errors.js';
import { payloadStoreFailure } from './store-failure.js';

/** What {@link s3Driver} needs of the settings. */
export interface S3StoreSettings {
  bucket: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** A key segment as Temporal's driver writes it: percent-encoded, `~` too; an empty value is `null`. */
const SEGMENT = "[A-Za-z0-9%!'()*._-]+";
/**
 * Temporal's key scheme for a workflow's payloads (every payload a run, its activities and its clients
 * store): `v0/ns/<namespace>/wt/<type>/wi/<workflow id>/ri/<run id>/d/sha256/<hash>`.
 */
const WORKFLOW_KEY = new RegExp(
  `^v0/ns/(${SEGMENT})/wt/${SEGMENT}/wi/(${SEGMENT})/ri/${SEGMENT}/d/sha256/([0-9a-f]{64})$`,
);

/** The object every worker writes at start and every process reads, to find out whether it can. */
const PROBE_KEY = 'durable-agents/probe';

export async function s3Driver(settings: S3StoreSettings): Promise<StorageDriver> {
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
  const Bucket = settings.bucket;
  const probe = async (write: boolean): Promise<void> => {
    if (write) await client.send(new s3.PutObjectCommand({ Bucket, Key: PROBE_KEY, Body: 'durable-agents' }));
    try {
      const read = await client.send(new s3.GetObjectCommand({ Bucket, Key: PROBE_KEY }));
      await read.Body?.transformToByteArray();
    } catch (err) {
      // A reader may start before any worker wrote the probe.
      if (!write && notFound(err)) return;
      throw err;
    }
  };
  return new OneBucketDriver(inner, settings.bucket, probe);
}

/**
 * Temporal's S3 driver reads whatever bucket and key a reference names, and a reference can come from
 * whoever may signal a run: this one reads only from the configured bucket and only keys of Temporal's
 * scheme for a workflow's payloads, so that a forged reference cannot bring into a run's history (or
 * its worker's memory) any other object the worker's credentials reach.
 */
export class OneBucketDriver implements StorageDriver {
  readonly name: string;
  readonly type: string;

  constructor(
    private readonly inner: StorageDriver,
    private readonly bucket: string,
    private readonly probe?: (write: boolean) => Promise<void>,
  ) {
    this.name = inner.name;
    this.type = inner.type;
  }

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    try {
      return await this.inner.store(context, payloads);
    } catch (err) {
      throw payloadStoreFailure(err instanceof Error && err.cause ? err.cause : err);
    }
  }

  async retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    const foreign = claims.find((claim) => claim.claimData.bucket !== this.bucket);
    if (foreign) {
      throw new PayloadReferenceError(
        'the reference names another bucket',
        `a payload reference names the bucket ${JSON.stringify(foreign.claimData.bucket).slice(0, 100)}, not ` +
          `the payload store's (${this.bucket}): refused; every process must be given the same ` +
          'DURABLE_AGENTS_PAYLOAD_STORE',
      );
    }
    const malformed = claims.find((claim) => this.folderOf(claim) === undefined);
    if (malformed) throw new PayloadReferenceError('a malformed payload-store reference');
    try {
      return await this.inner.retrieve(context, claims);
    } catch (err) {
      if (err instanceof ValueError) {
        throw new PayloadReferenceError(
          /integrity/.test(err.message)
            ? 'the stored payload does not match its hash'
            : 'a malformed payload-store reference',
        );
      }
      const cause = err instanceof Error && err.cause ? err.cause : err;
      if (notFound(cause)) throw new PayloadReferenceError('no such payload in the payload store');
      // Reaches the history (a failed workflow task, retried): the error's name, not the bucket's keys.
      // eslint-disable-next-line preserve-caught-error -- the cause names the bucket and the key
      throw new Error(`the S3 payload store could not read a payload (${errorName(cause)})`);
    }
  }

  /** The folder (`<namespace>/<workflow id>`, encoded) a reference names, if it is a key of a workflow's payload. */
  folderOf(claim: StorageDriverClaim): string | undefined {
    const { key, hashValue } = claim.claimData;
    const match = WORKFLOW_KEY.exec(key ?? '');
    return match && match[3] === hashValue ? `${match[1]}/${match[2]}` : undefined;
  }

  /** The folder a workflow's payloads are stored in, as Temporal's driver encodes it. */
  folderFor(namespace: string | undefined, workflowId: string | undefined): string {
    return `${keySegment(namespace)}/${keySegment(workflowId)}`;
  }

  /** Writes (a worker) and reads the probe object: the bucket is there and the credentials reach it. */
  async check(write: boolean): Promise<void> {
    if (!this.probe) return;
    try {
      await this.probe(write);
    } catch (err) {
      throw new PayloadStoreConfigError(
        `cannot ${write ? 'write and read' : 'read'} the object ${PROBE_KEY} in the bucket ${this.bucket} ` +
          `(${errorName(err)}: ${errorMessage(err).split('\n')[0]}): check the bucket, the endpoint and the ` +
          'credentials',
      );
    }
  }
}

function keySegment(value: string | undefined): string {
  return value ? encodeURIComponent(value).replace(/~/g, '%7E') : 'null';
}

function notFound(err: unknown): boolean {
  const e = err as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | undefined;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

function errorName(err: unknown): string {
  const name = (err as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : 'an error';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
