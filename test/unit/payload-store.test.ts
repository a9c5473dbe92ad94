import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApplicationFailure,
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
} from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_PAYLOAD_STORE_THRESHOLD,
  FileStorageDriver,
  loadExternalStorage,
  payloadStoreFromEnv,
} from '../../src/codec/index.js';
import { OneBucketDriver } from '../../src/codec/external-storage.js';
import { PayloadReferenceError } from '../../src/codec/errors.js';
import { failureOf } from '../../src/client/failures.js';

const payload = (text: string): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(JSON.stringify(text)),
});
const target = { kind: 'workflow', namespace: 'default', id: '../run.1::call-0-0' } as const;

describe('FileStorageDriver', () => {
  let dir: string;
  let driver: FileStorageDriver;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payload-store-'));
    driver = new FileStorageDriver(dir);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('stores each payload once under its namespace and workflow id, and reads it back', async () => {
    const [a, again, b] = await driver.store({ target }, [payload('a'), payload('a'), payload('b')]);
    expect(again!.claimData).toEqual(a!.claimData);
    // The workflow id is one folder, dots and slashes encoded: no way out of the directory.
    expect(a!.claimData.key).toMatch(/^default\/%2E%2E%2Frun%2E1%3A%3Acall-0-0\/[0-9a-f]{64}$/);
    expect(await readdir(join(dir, 'default', '%2E%2E%2Frun%2E1%3A%3Acall-0-0'))).toHaveLength(2);
    const [readA, readB] = await driver.retrieve({}, [a!, b!]);
    expect(new TextDecoder().decode(readA!.data!)).toBe('"a"');
    expect(new TextDecoder().decode(readB!.data!)).toBe('"b"');
  });

  it('refuses a reference that points outside the directory or at a file that is not its hash', async () => {
    const [claim] = await driver.store({ target }, [payload('c')]);
    const { hashValue } = claim!.claimData;
    const forged = (key: string) => new StorageDriverClaim({ key, hashAlgorithm: 'sha256', hashValue: hashValue! });
    await expect(driver.retrieve({}, [forged(`../../etc/${hashValue}`)])).rejects.toThrow(/malformed/);
    await expect(driver.retrieve({}, [forged(`default/x/${'0'.repeat(64)}`)])).rejects.toThrow(/malformed/);
    await writeFile(join(dir, claim!.claimData.key!), 'tampered');
    await expect(driver.retrieve({}, [claim!])).rejects.toThrow(/does not match its hash/);
    const missing = forged(`default/elsewhere/${hashValue}`);
    await expect(driver.retrieve({}, [missing])).rejects.toThrow(/every worker and client must share one directory/);
    // Each is a refusal no retry changes, with a short reason that names no directory.
    for (const refused of [forged(`../../etc/${hashValue}`), missing, claim!]) {
      const err = await driver.retrieve({}, [refused]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PayloadReferenceError);
      expect((err as PayloadReferenceError).reason).not.toContain(dir);
      expect((err as Error).message).not.toContain(dir);
    }
  });

  it('names the folder of the workflow a reference was stored for', async () => {
    const [claim] = await driver.store({ target }, [payload('d')]);
    expect(driver.folderOf(claim!)).toBe(driver.folderFor('default', '../run.1::call-0-0'));
    expect(driver.folderFor('default', 'x'.repeat(1000))).toMatch(/^default\/x{100}~[0-9a-f]{32}$/);
  });

  it('checks at start that it can write, and a write that fails later is not retried and names no directory', async () => {
    await expect(driver.check()).resolves.toBeUndefined();
    expect((await readdir(dir)).filter((f) => f.startsWith('.probe'))).toEqual([]);
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, 'a file');
    await expect(new FileStorageDriver(join(blocked, 'store')).check()).rejects.toThrow(
      /^payload store \(DURABLE_AGENTS_PAYLOAD_STORE\): cannot write, read and delete a file in the directory .*\(ENOTDIR\)/,
    );
    const failed = await new FileStorageDriver(join(blocked, 'store'))
      .store({ target }, [payload('e')])
      .catch((e) => e);
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect(failed).toMatchObject({ type: 'PayloadStoreError', nonRetryable: true });
    expect((failed as Error).message).toMatch(/^the payload store could not keep a payload \(ENOTDIR\)/);
    expect((failed as Error).message).not.toContain(dir);
    // What a client or the HTTP server tells its caller of it (a large input it could not store).
    expect(failureOf(failed)).toMatchObject({
      type: 'PayloadStoreError',
      httpStatus: 503,
      exitCode: 1,
      expected: true,
    });
  });
});

describe('payloadStoreFromEnv', () => {
  it('reads a directory, an S3 bucket, a threshold, or nothing', async () => {
    expect(payloadStoreFromEnv({})).toBeUndefined();
    expect(payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: 'off' })).toBeUndefined();
    expect(payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: 'file:/var/payloads' })).toEqual({
      kind: 'files',
      directory: '/var/payloads',
    });
    expect(
      payloadStoreFromEnv({
        DURABLE_AGENTS_PAYLOAD_STORE: 's3://agent-payloads',
        DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD: '1048576',
        DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE: '1',
      }),
    ).toEqual({ kind: 's3', bucket: 'agent-payloads', threshold: 1048576, forcePathStyle: true });
    const storage = await loadExternalStorage({ DURABLE_AGENTS_PAYLOAD_STORE: '/tmp/payloads' });
    expect(storage?.payloadSizeThreshold).toBe(DEFAULT_PAYLOAD_STORE_THRESHOLD);
  });

  it('refuses what it cannot use, saying what to give', () => {
    expect(() => payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: 'payloads' })).toThrow(
      /"payloads" is neither an absolute directory .* nor s3:\/\/<bucket>/,
    );
    expect(() => payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: 's3://Bad_Bucket/prefix' })).toThrow(
      /does not name an S3 bucket/,
    );
    expect(() =>
      payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: '/tmp/p', DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD: '256k' }),
    ).toThrow(/"256k" is not a number of bytes/);
    expect(() =>
      payloadStoreFromEnv({
        DURABLE_AGENTS_PAYLOAD_STORE: 's3://agent-payloads',
        DURABLE_AGENTS_PAYLOAD_STORE_S3_PATH_STYLE: 'true',
      }),
    ).toThrow(/"true" is neither 1 \(path-style URLs\) nor 0/);
    expect(() => payloadStoreFromEnv({ DURABLE_AGENTS_PAYLOAD_STORE: 'file://host/payloads' })).toThrow(
      /is neither an absolute directory/,
    );
  });

  it('refuses a threshold at which a payload kept in the history could pass the 2 MiB limit of Temporal', async () => {
    await expect(
      loadExternalStorage({
        DURABLE_AGENTS_PAYLOAD_STORE: '/tmp/p',
        DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD: '4194304',
      }),
    ).rejects.toThrow(/4194304 bytes is over 1048576/);
    const storage = await loadExternalStorage({
      DURABLE_AGENTS_PAYLOAD_STORE: '/tmp/p',
      DURABLE_AGENTS_PAYLOAD_STORE_THRESHOLD: '1048576',
    });
    expect(storage?.payloadSizeThreshold).toBe(1048576);
  });
});

describe('the S3 store', () => {
  const hash = 'ab'.repeat(32);
  const key = `v0/ns/default/wt/agentRun/wi/run-1%3A%3Acall-0/ri/r1/d/sha256/${hash}`;
  const claim = (bucket: string, k = key) =>
    new StorageDriverClaim({ bucket, key: k, hashAlgorithm: 'sha256', hashValue: hash });
  const context = {} as StorageDriverRetrieveContext;

  function recording(read: string[], fail?: Error): StorageDriver {
    return {
      name: 'aws.s3driver',
      type: 'aws.s3driver',
      store: () => (fail ? Promise.reject(fail) : Promise.resolve([])),
      retrieve: (_context, claims) => {
        if (fail) return Promise.reject(fail);
        read.push(...claims.map((c) => `${c.claimData.bucket}/${c.claimData.key}`));
        return Promise.resolve(claims.map(() => ({ metadata: {}, data: new Uint8Array() })));
      },
    };
  }

  it('reads only from its own bucket, whatever bucket a reference names', async () => {
    const read: string[] = [];
    const driver = new OneBucketDriver(recording(read), 'agent-payloads');
    await expect(driver.retrieve(context, [claim('agent-payloads'), claim('other-secrets')])).rejects.toThrow(
      /names the bucket "other-secrets", not the payload store's \(agent-payloads\): refused/,
    );
    expect(read).toEqual([]);
    await driver.retrieve(context, [claim('agent-payloads')]);
    expect(read).toEqual([`agent-payloads/${key}`]);
  });

  it("reads only keys of Temporal's scheme for a workflow's payload, and names the workflow's folder", async () => {
    const read: string[] = [];
    const driver = new OneBucketDriver(recording(read), 'agent-payloads');
    for (const forged of ['secrets/backup.tar', `v0/d/sha256/${hash}`, key.replace(hash, '00'.repeat(32))]) {
      const refused = await driver.retrieve(context, [claim('agent-payloads', forged)]).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PayloadReferenceError);
      expect((refused as PayloadReferenceError).reason).toBe('a malformed payload-store reference');
    }
    expect(read).toEqual([]);
    expect(driver.folderOf(claim('agent-payloads'))).toBe('default/run-1%3A%3Acall-0');
    expect(driver.folderFor('default', 'run-1::call-0')).toBe('default/run-1%3A%3Acall-0');
  });

  it('tells a missing object from an unreachable store, and a failed write is not retried', async () => {
    const missing = Object.assign(new Error('S3StorageDriver retrieve failed [bucket=b, key=k]'), {
      cause: Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }),
    });
    const gone = await new OneBucketDriver(recording([], missing), 'b').retrieve(context, [claim('b')]).catch((e) => e);
    expect(gone).toMatchObject({ name: 'PayloadReferenceError', reason: 'no such payload in the payload store' });
    const down = Object.assign(new Error('S3StorageDriver retrieve failed [bucket=b, key=k]'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { name: 'TimeoutError' }),
    });
    const unreachable = await new OneBucketDriver(recording([], down), 'b')
      .retrieve(context, [claim('b')])
      .catch((e) => e);
    expect(unreachable).not.toBeInstanceOf(PayloadReferenceError);
    expect((unreachable as Error).message).toBe('the S3 payload store could not read a payload (TimeoutError)');
    const denied = Object.assign(new Error('S3StorageDriver store failed [bucket=b, key=k]'), {
      cause: Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }),
    });
    const write = await new OneBucketDriver(recording([], denied), 'b').store({}, [payload('x')]).catch((e) => e);
    expect(write).toBeInstanceOf(ApplicationFailure);
    expect(write).toMatchObject({ type: 'PayloadStoreError', nonRetryable: true });
    expect((write as Error).message).toMatch(/^the payload store could not keep a payload \(AccessDenied\)/);
  });
});
