/**
 * A worker's answer to payloads it cannot decode. The SDK decodes a workflow activation (payload-store
 * references resolved, then the codecs) before workflow code runs, and a throw there fails the
 * workflow task on every attempt: one raw signal with a forged reference, or encrypted under a key
 * the worker lacks, wedged its run for good. Here, what can never be decoded (a permanent refusal by
 * the store, a codec key the worker lacks, a payload that does not decrypt) becomes, for a workflow's
 * own messages and input, a payload standing for it, `{ $undecodable: <why> }` in JSON, which the run
 * refuses as it refuses any malformed message (src/schemas/undecodable.ts). For an activity's input or
 * result it still throws, as before: that task fails and is retried.
 *
 * It also keeps each run to its own stored payloads: a payload read from the store is honoured only in
 * the workflow it was stored for, or, in a sub-agent's run, for its parent run (a child's result is
 * stored under its parent's id and read in the child's context). The driver tags what it read with the folder its
 * reference named; the codec, which is told the workflow, checks the tag.
 *
 * Transient failures (the store unreachable, an I/O error) still throw: the task is retried and goes
 * on once the store is back. Clients are not wrapped: they keep throwing.
 */
import {
  ExternalStorage,
  type DataConverter,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
  type StorageDriver,
  type StorageDriverClaim,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import { undecodable, undecodableReason } from '../schemas/undecodable.js';
import { PayloadDecryptError, PayloadReferenceError, UndecodablePayloadError, UnknownCodecKeyError } from './errors.js';
import { withPayloadCodec } from './payload-codec.js';
import { guardReferences } from './reference-guard.js';

/** Metadata of ours on the payload that stands for an undecodable one. */
export const UNDECODABLE_METADATA = 'durable-agents-undecodable';
/** Metadata of ours on a payload read from the store: the driver and the folder its reference named. */
const STORED_FOR_METADATA = 'durable-agents-stored-for';

const NO_STORE = 'a payload-store reference, and this worker has no payload store (DURABLE_AGENTS_PAYLOAD_STORE)';
const FOREIGN = 'the payload-store reference names a payload stored for another workflow';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? new TextDecoder().decode(bytes) : undefined;

/** The payload that stands for one that could not be decoded: `{ $undecodable: reason }` in JSON. */
export function undecodablePayload(reason: string): Payload {
  return {
    metadata: { encoding: utf8('json/plain'), [UNDECODABLE_METADATA]: utf8('1') },
    data: utf8(JSON.stringify(undecodable(reason))),
  };
}

/** A driver that names, for a reference, the folder of the workflow its payload was stored for. */
interface Foldered {
  folderOf(claim: StorageDriverClaim): string | undefined;
  folderFor(namespace: string | undefined, workflowId: string | undefined): string;
}

function foldered(driver: StorageDriver): (StorageDriver & Foldered) | undefined {
  const d = driver as Partial<Foldered>;
  return typeof d.folderOf === 'function' && typeof d.folderFor === 'function'
    ? (driver as StorageDriver & Foldered)
    : undefined;
}

/**
 * A driver as a worker uses it: each reference resolved on its own, a permanent refusal
 * ({@link PayloadReferenceError}) turned into the payload standing for it, and what was read tagged
 * with the folder its reference named.
 */
class WorkerDriver implements StorageDriver {
  readonly name: string;
  readonly type: string;

  constructor(readonly inner: StorageDriver) {
    this.name = inner.name;
    this.type = inner.type;
  }

  store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return this.inner.store(context, payloads);
  }

  retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(claims.map((claim) => this.retrieveOne(context, claim)));
  }

  private async retrieveOne(context: StorageDriverRetrieveContext, claim: StorageDriverClaim): Promise<Payload> {
    let payload: Payload | undefined;
    try {
      [payload] = await this.inner.retrieve(context, [claim]);
    } catch (err) {
      if (err instanceof PayloadReferenceError) return undecodablePayload(err.reason);
      throw err;
    }
    if (!payload) throw new Error(`the ${this.name} driver returned no payload for a reference`);
    const metadata = { ...payload.metadata };
    // Whatever the stored payload says of itself, what counts is where its reference pointed.
    delete metadata[STORED_FOR_METADATA];
    delete metadata[UNDECODABLE_METADATA];
    const folder = foldered(this.inner)?.folderOf(claim);
    if (folder !== undefined) metadata[STORED_FOR_METADATA] = utf8(JSON.stringify([this.name, folder]));
    return { ...payload, metadata };
  }
}

/**
 * The external storage a worker runs with: `storage`'s drivers wrapped (see {@link WorkerDriver}), or,
 * without a store, one that stores nothing and refuses every reference, so that a reference in a raw
 * signal is refused rather than failing the task until a worker with a store comes (none may).
 */
export function workerExternalStorage(storage: ExternalStorage | undefined): ExternalStorage {
  if (!storage) {
    const none: StorageDriver = {
      name: 'durable-agents.none',
      type: 'durable-agents.none',
      store: () => Promise.reject(new Error('this worker has no payload store')),
      retrieve: (_context, claims) => Promise.resolve(claims.map(() => undecodablePayload(NO_STORE))),
    };
    const refusing = new ExternalStorage({ drivers: [none], driverSelector: () => null });
    guardReferences(refusing, { refused: undecodablePayload, unknownDriver: () => NO_STORE });
    return refusing;
  }
  const wrapped = new Map(storage.drivers.map((d) => [d.name, new WorkerDriver(d)]));
  const worker = new ExternalStorage({
    drivers: [...wrapped.values()],
    driverSelector: (context, payload) => {
      const chosen = storage.driverSelector(context, payload);
      return chosen ? (wrapped.get(chosen.name) ?? null) : null;
    },
    payloadSizeThreshold: storage.payloadSizeThreshold,
  });
  guardReferences(worker, {
    refused: undecodablePayload,
    unknownDriver: (name) => `the reference names a payload-store driver "${name}", which this worker does not have`,
  });
  return worker;
}

/**
 * The worker's codecs, each payload decoded on its own: in a workflow's context, what cannot be decoded
 * (a codec key the worker lacks, a payload that does not decrypt, a refused reference, a payload stored
 * for another workflow) becomes the payload standing for it; in an activity's it throws.
 */
export class WorkerCodec implements PayloadCodec {
  constructor(
    private readonly codecs: PayloadCodec[],
    private readonly drivers: ReadonlyMap<string, StorageDriver>,
  ) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    let encoded = payloads;
    for (const codec of this.codecs) encoded = await codec.encode(encoded, context);
    return encoded;
  }

  decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.decodeOne(payload, context)));
  }

  private async decodeOne(payload: Payload, context: SerializationContext | undefined): Promise<Payload> {
    const refuse = (reason: string): Payload => {
      if (context?.type === 'workflow') return undecodablePayload(reason);
      throw new UndecodablePayloadError(reason);
    };
    if (payload.metadata?.[UNDECODABLE_METADATA]) {
      return refuse(undecodableReason(safeJson(text(payload.data))) ?? 'undecodable');
    }
    const storedFor = payload.metadata?.[STORED_FOR_METADATA];
    let decoded: Payload[] = [payload];
    if (storedFor) {
      if (!this.mayRead(text(storedFor), context)) return refuse(FOREIGN);
      const metadata = { ...payload.metadata };
      delete metadata[STORED_FOR_METADATA];
      decoded = [{ ...payload, metadata }];
    }
    try {
      for (const codec of [...this.codecs].reverse()) decoded = await codec.decode(decoded, context);
    } catch (err) {
      // An activity's own payloads throw as they did: the task fails, and goes on once its worker has the key.
      if (context?.type !== 'workflow') throw err;
      if (err instanceof UnknownCodecKeyError) {
        return refuse(`encrypted with codec key "${err.keyId.slice(0, 64)}", which this worker does not have`);
      }
      if (err instanceof PayloadDecryptError)
        return refuse(`does not decrypt with codec key "${err.keyId.slice(0, 64)}"`);
      throw err;
    }
    const [one] = decoded;
    if (!one) throw new Error('a payload codec returned no payload');
    return one;
  }

  /**
   * Whether a payload stored in this folder may be read in this context: it was stored for the
   * context's workflow, or, for a sub-agent's run (`<run>::<call>`), for the run that started it,
   * which is where a child's result is stored (and read in the child's context). Not further up: a
   * grandchild's result is read by its own parent. A thread's workflow id (`thread::<id>` when it has
   * no resource) has no parent.
   */
  private mayRead(tag: string | undefined, context: SerializationContext | undefined): boolean {
    const [driverName, folder] = (safeJson(tag) as [string, string] | undefined) ?? [];
    const driver = driverName === undefined ? undefined : this.drivers.get(driverName);
    const inner = driver instanceof WorkerDriver ? foldered(driver.inner) : undefined;
    const id = context?.workflowId;
    if (!inner || !id) return false;
    const cut = id.lastIndexOf('::');
    const readers = cut > 0 && !id.startsWith('thread:') ? [id, id.slice(0, cut)] : [id];
    return readers.some((reader) => inner.folderFor(context.namespace, reader) === folder);
  }
}

function safeJson(value: string | undefined): unknown {
  try {
    return value === undefined ? undefined : JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * A worker's data converter: its codec after any in `dataConverter` (see `withPayloadCodec`), both
 * under a {@link WorkerCodec}, and its external storage as {@link workerExternalStorage} makes it.
 */
export function workerDataConverter(
  dataConverter: DataConverter | undefined,
  codec: PayloadCodec,
  storage: ExternalStorage | undefined,
): DataConverter {
  const withCodec = withPayloadCodec(dataConverter, codec);
  const externalStorage = workerExternalStorage(storage);
  const drivers = new Map(externalStorage.drivers.map((d) => [d.name, d]));
  return { ...withCodec, payloadCodecs: [new WorkerCodec(withCodec.payloadCodecs ?? [], drivers)], externalStorage };
}
