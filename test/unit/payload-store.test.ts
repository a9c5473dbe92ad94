import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
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
} from '../../src/index.js';
import { OneBucketDriver } from '../../src/codec/external-storage.js';

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
  it('reads only from its own bucket, whatever bucket a reference names', async () => {
    const read: string[] = [];
    const inner: StorageDriver = {
      name: 'aws.s3driver',
      type: 'aws.s3driver',
      store: () => Promise.resolve([]),
      retrieve: (_context, claims) => {
        read.push(...claims.map((c) => `${c.claimData.bucket}/${c.claimData.key}`));
        return Promise.resolve(claims.map(() => ({ metadata: {}, data: new Uint8Array() })));
      },
    };
    const driver = new OneBucketDriver(inner, 'agent-payloads');
    const claim = (bucket: string) =>
      new StorageDriverClaim({ bucket, key: 'k', hashAlgorithm: 'sha256', hashValue: '0' });
    const context = {} as StorageDriverRetrieveContext;
    await expect(driver.retrieve(context, [claim('agent-payloads'), claim('other-secrets')])).rejects.toThrow(
      /names the bucket "other-secrets", not the payload store's \(agent-payloads\): refused/,
    );
    expect(read).toEqual([]);
    await driver.retrieve(context, [claim('agent-payloads')]);
    expect(read).toEqual(['agent-payloads/k']);
  });
});
