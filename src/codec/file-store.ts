/**
 * The directory store: payloads as files on this machine, for processes that share a directory (the
 * dev server's). See docs/large-payloads.md.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { PayloadReferenceError, PayloadStoreConfigError } from './errors.js';
import { payloadStoreFailure } from './store-failure.js';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const PayloadProto = proto.temporal.api.common.v1.Payload;

/** The file driver's name, recorded in every reference it makes: readers find their driver by it. */
export const FILE_DRIVER_NAME = 'durable-agents.files';

/** `<namespace>/<workflow id>/<sha256>`, each folder name percent-encoded, dots included. */
const CLAIM_KEY = /^([A-Za-z0-9%!~*'()_-]+\/[A-Za-z0-9%!~*'()_-]+)\/[0-9a-f]{64}$/;

/** Read errors that mean the payload is not there, whatever a retry does. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

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
    const folder = this.folderFor(context.target?.namespace, context.target?.id);
    return Promise.all(payloads.map((payload) => this.storeOne(folder, payload)));
  }

  async retrieve(_context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(claims.map((claim) => this.retrieveOne(claim)));
  }

  /** The folder (`<namespace>/<workflow id>`, encoded) a reference names; it was checked when read. */
  folderOf(claim: StorageDriverClaim): string | undefined {
    return CLAIM_KEY.exec(claim.claimData.key ?? '')?.[1];
  }

  /** The folder a workflow's payloads are stored in. */
  folderFor(namespace: string | undefined, workflowId: string | undefined): string {
    return `${segment(namespace)}/${segment(workflowId)}`;
  }

  /**
   * Writes, reads back and deletes a file in the directory: a process that could not store a payload
   * would find out only when a run needed it (a tool's output lost, the tool run again).
   */
  async check(): Promise<void> {
    const probe = join(this.directory, `.probe-${randomUUID()}`);
    const bytes = randomBytes(16);
    try {
      await mkdir(this.directory, { recursive: true });
      await writeFile(probe, bytes);
      if (!(await readFile(probe)).equals(bytes)) throw new Error('a file read back differs from what was written');
      await rm(probe);
    } catch (err) {
      await rm(probe, { force: true }).catch(() => undefined);
      const code = (err as NodeJS.ErrnoException).code;
      throw new PayloadStoreConfigError(
        `cannot write, read and delete a file in the directory ${this.directory} (${code ?? errorMessage(err)}): ` +
          'give a directory every worker and client of the deployment can write',
      );
    }
  }

  private async storeOne(folder: string, payload: Payload): Promise<StorageDriverClaim> {
    const bytes = PayloadProto.encode(payload).finish();
    const hash = sha256(bytes);
    const key = `${folder}/${hash}`;
    const file = join(this.directory, key);
    if (!(await exists(file))) {
      // Written aside and renamed: a reader never sees half a file, and two writers of the same
      // bytes (a retried activity on another worker) both end with the whole one.
      const partial = `${file}.${randomUUID()}.partial`;
      try {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(partial, bytes);
        await rename(partial, file);
      } catch (err) {
        await rm(partial, { force: true }).catch(() => undefined);
        throw payloadStoreFailure(err);
      }
    }
    return new StorageDriverClaim({ key, hashAlgorithm: 'sha256', hashValue: hash });
  }

  private async retrieveOne(claim: StorageDriverClaim): Promise<Payload> {
    const { key, hashAlgorithm, hashValue } = claim.claimData;
    // A reference comes from the history, where whoever may signal a run can put one: its key names
    // a file under the directory and nothing else, and the file must hash to what it says.
    if (!key || !CLAIM_KEY.test(key) || hashAlgorithm !== 'sha256' || !key.endsWith(`/${hashValue}`)) {
      const shown = JSON.stringify(claim.claimData).slice(0, 300);
      throw new PayloadReferenceError(
        'a malformed payload-store reference',
        `a payload reference of the ${FILE_DRIVER_NAME} driver is malformed: ${shown}`,
      );
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.directory, key));
    } catch (err) {
      // What is said here reaches the history (a failed workflow task): the key, never the directory,
      // which the cause's message names.
      const why = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      // eslint-disable-next-line preserve-caught-error -- the cause names the store's directory
      if (!MISSING.has(why)) throw new Error(`the payload store could not read the payload ${key} (${why})`);
      throw new PayloadReferenceError(
        'no such payload in the payload store',
        `the payload ${key} is not in the payload store (${why}): every worker and client must share one ` +
          'directory (DURABLE_AGENTS_PAYLOAD_STORE); on several machines use the S3 driver',
      );
    }
    if (sha256(bytes) !== hashValue) {
      throw new PayloadReferenceError(
        'the stored payload does not match its hash',
        `the payload ${key} does not match its hash: it was changed`,
      );
    }
    try {
      return PayloadProto.decode(bytes);
    } catch {
      throw new PayloadReferenceError('the stored file is not a payload', `the payload ${key} is not a payload`);
    }
  }
}

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
