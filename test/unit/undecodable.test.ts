import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defaultPayloadConverter,
  ExternalStorage,
  StorageDriverClaim,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
  type StorageDriver,
} from '@temporalio/common';
import { ExternalStorageRunner } from '@temporalio/common/lib/internal-non-workflow/external-storage-runner.js';
import { encodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow/extstore-helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UndecodablePayloadError, UnknownCodecKeyError } from '../../src/codec/errors.js';
import { FileStorageDriver } from '../../src/codec/file-store.js';
import { workerDataConverter } from '../../src/codec/undecodable.js';
import { createPayloadCodec, UnkeyedCodec } from '../../src/codec/index.js';
import { safeParse } from '../../src/schemas/json.js';

const workflow = (workflowId: string): SerializationContext => ({ type: 'workflow', namespace: 'default', workflowId });
const activity = (workflowId: string): SerializationContext => ({
  type: 'activity',
  namespace: 'default',
  workflowId,
  isLocal: false,
});
const json = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const valueOf = (payload: Payload | undefined): unknown => defaultPayloadConverter.fromPayload(payload!);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'undecodable-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** A worker's converter over a directory store, and how it reads a payload as the SDK does: store, then codec. */
function workerOver(codec: PayloadCodec = createPayloadCodec({ keys: [{ id: 'k', key: randomBytes(32) }] })) {
  const files = new FileStorageDriver(dir);
  const converter = workerDataConverter(undefined, codec, new ExternalStorage({ drivers: [files] }));
  const runner = new ExternalStorageRunner(converter.externalStorage!);
  const [workerCodec] = converter.payloadCodecs!;
  return {
    files,
    codec,
    /** What workflow (or activity) code is given for these payloads, as they arrive in an activation. */
    async read(payloads: Payload[], context: SerializationContext): Promise<unknown[]> {
      const retrieved = await runner.retrieve(payloads);
      return (await workerCodec!.decode(retrieved, context)).map(valueOf);
    },
    /** A reference to `value`, stored as a client of `workflowId` stores it. */
    async stored(value: unknown, workflowId: string): Promise<Payload> {
      const [encoded] = await codec.encode([json(value)]);
      const [claim] = await files.store({ target: { kind: 'workflow', namespace: 'default', id: workflowId } }, [
        encoded!,
      ]);
      return encodeReferencePayload({ driverName: files.name, claim: claim!, sizeBytes: 1 });
    },
  };
}

const reference = (driverName: string, claimData: Record<string, string>): Payload =>
  encodeReferencePayload({ driverName, claim: new StorageDriverClaim(claimData), sizeBytes: 1 });

describe("a worker's payloads it cannot decode", () => {
  it('are, for a workflow, { $undecodable } with the reason; the others in the batch are read as usual', async () => {
    const w = workerOver();
    const mine = await w.stored({ decision: 'mine' }, 'run-a');
    const otherKey = await createPayloadCodec({ keys: [{ id: 'key-z', key: randomBytes(32) }] }).encode([json('x')]);
    const values = await w.read(
      [
        mine,
        reference('durable-agents.files', {
          key: `default/run-a/${'0'.repeat(64)}`,
          hashAlgorithm: 'sha256',
          hashValue: '0'.repeat(64),
        }),
        reference('durable-agents.files', { key: '../../etc/passwd', hashAlgorithm: 'sha256', hashValue: 'x' }),
        reference('elsewhere', {}),
        {
          metadata: {
            encoding: Buffer.from('json/protobuf'),
            messageType: Buffer.from('temporal.api.sdk.v1.ExternalStorageReference'),
          },
          data: Buffer.from('{}'),
        },
        otherKey[0]!,
        json({ plain: true }),
      ],
      workflow('run-a'),
    );
    expect(values).toEqual([
      { decision: 'mine' },
      { $undecodable: 'no such payload in the payload store' },
      { $undecodable: 'a malformed payload-store reference' },
      { $undecodable: 'the reference names a payload-store driver "elsewhere", which this worker does not have' },
      { $undecodable: 'a malformed payload-store reference' },
      { $undecodable: 'encrypted with codec key "key-z", which this worker does not have' },
      { plain: true },
    ]);
  });

  it('throw for an activity, as before: its task fails and is retried', async () => {
    const w = workerOver();
    const missing = reference('durable-agents.files', {
      key: `default/run-a/${'0'.repeat(64)}`,
      hashAlgorithm: 'sha256',
      hashValue: '0'.repeat(64),
    });
    await expect(w.read([missing], activity('run-a'))).rejects.toThrow(UndecodablePayloadError);
    const otherKey = await createPayloadCodec({ keys: [{ id: 'key-z', key: randomBytes(32) }] }).encode([json('x')]);
    await expect(w.read(otherKey, activity('run-a'))).rejects.toThrow(UnknownCodecKeyError);
  });

  it('keep a run to its own stored payloads, and a sub-agent result to its parent', async () => {
    const w = workerOver(new UnkeyedCodec());
    const tenantB = await w.stored('b-secret', 'run-b');
    const parents = await w.stored('for the parent', 'run-p');
    const grandparents = await w.stored('for the grandparent', 'run-g');
    const threads = await w.stored('for a run named thread', 'thread');
    const foreign = { $undecodable: 'the payload-store reference names a payload stored for another workflow' };
    expect(await w.read([tenantB], workflow('run-b'))).toEqual(['b-secret']);
    expect(await w.read([tenantB], workflow('run-a'))).toEqual([foreign]);
    expect(await w.read([tenantB], workflow('run-b2'))).toEqual([foreign]);
    expect(await w.read([parents], workflow('run-p::call-1'))).toEqual(['for the parent']);
    expect(await w.read([grandparents], workflow('run-g::call-1::call-2'))).toEqual([foreign]);
    expect(await w.read([threads], workflow('thread::my-thread'))).toEqual([foreign]);
    await expect(w.read([tenantB], activity('run-a'))).rejects.toThrow(/stored for another workflow/);
    expect(await w.read([tenantB], activity('run-b'))).toEqual(['b-secret']);
  });

  it('cannot be forged around: a tag or a marker in a payload as sent counts for nothing more than its data', async () => {
    const w = workerOver(new UnkeyedCodec());
    const forgedTag: Payload = {
      ...json('mine'),
      metadata: {
        ...json('mine').metadata,
        'durable-agents-stored-for': Buffer.from('["durable-agents.files","x/y"]'),
      },
    };
    expect(await w.read([forgedTag], workflow('run-a'))).toEqual([
      { $undecodable: 'the payload-store reference names a payload stored for another workflow' },
    ]);
    const forgedMarker: Payload = {
      ...json('x'),
      metadata: { ...json('x').metadata, 'durable-agents-undecodable': Buffer.from('1') },
    };
    expect(await w.read([forgedMarker], workflow('run-a'))).toEqual([{ $undecodable: 'undecodable' }]);
  });

  it('are refused by every parse of a message, whatever its schema, with the reason', () => {
    const lenient = z.object({ afterVersion: z.number().optional() });
    expect(safeParse(lenient, { $undecodable: 'encrypted with codec key "k"' })).toEqual({
      success: false,
      error: 'the payload could not be decoded: encrypted with codec key "k"',
    });
    expect(safeParse(lenient, {}).success).toBe(true);
  });
});

describe('a worker without a payload store', () => {
  it('stores nothing, and refuses every reference instead of failing its task', async () => {
    const converter = workerDataConverter(undefined, new UnkeyedCodec(), undefined);
    const runner = new ExternalStorageRunner(converter.externalStorage!);
    const big = json('x'.repeat(300_000));
    expect(await runner.store([big], { target: { kind: 'workflow', namespace: 'default', id: 'r' } })).toEqual([big]);
    const [refused] = await converter.payloadCodecs![0]!.decode(
      await runner.retrieve([reference('durable-agents.files', { key: 'k' })]),
      workflow('r'),
    );
    expect(valueOf(refused)).toEqual({
      $undecodable: 'a payload-store reference, and this worker has no payload store (DURABLE_AGENTS_PAYLOAD_STORE)',
    });
  });

  it('leaves a client as it was: a reference it cannot resolve still throws', async () => {
    const client = new ExternalStorage({ drivers: [new FileStorageDriver(dir)] });
    await expect(new ExternalStorageRunner(client).retrieve([reference('elsewhere', {})])).rejects.toThrow(
      /No driver registered with name 'elsewhere'/,
    );
  });
});

describe('a transient failure of the store', () => {
  it('still throws, so that the task is retried and goes on once the store is back', async () => {
    const flaky: StorageDriver = {
      name: 'flaky',
      type: 'flaky',
      store: () => Promise.resolve([]),
      retrieve: () => Promise.reject(new Error('connect ETIMEDOUT')),
    };
    const converter = workerDataConverter(undefined, new UnkeyedCodec(), new ExternalStorage({ drivers: [flaky] }));
    const runner = new ExternalStorageRunner(converter.externalStorage!);
    await expect(runner.retrieve([reference('flaky', {})])).rejects.toThrow(/ETIMEDOUT/);
  });
});
