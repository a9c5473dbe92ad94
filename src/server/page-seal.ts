/**
 * The page tokens the HTTP server hands out, sealed (AES-256-GCM) and bound to who asked for which list.
 * The client's token is Temporal's cursor, which on SQL visibility names the start time and Temporal run
 * id of the last row read: a row the caller may not have been allowed to see. Sealed, it tells nothing,
 * and it opens only for the same principal and the same filter on a server with the same key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The client's tokens are at most 4,096 characters; sealed, base64url, they stay under this. */
const MAX_SEALED = 6000;
/** The shortest `pageTokenKey` a server takes: a secret, not a password. */
export const MIN_PAGE_TOKEN_KEY = 32;

const NOT_OURS =
  'not a token this server gave for this list (a token continues the list, with the filter and for the ' +
  'caller, it was given for, on servers sharing a pageTokenKey): ask for the first page again';

/** Seals and opens page tokens under one key: the server's `pageTokenKey`, or a random one of the process. */
export class PageSeal {
  private readonly key: Buffer;

  constructor(secret?: string) {
    if (secret !== undefined && (typeof secret !== 'string' || secret.length < MIN_PAGE_TOKEN_KEY)) {
      throw new TypeError(
        `pageTokenKey: a secret of at least ${MIN_PAGE_TOKEN_KEY} characters (e.g. openssl rand -base64 32), ` +
          'the same on every replica of the server',
      );
    }
    this.key = secret === undefined ? randomBytes(32) : createHash('sha256').update(secret).digest();
  }

  /** The client's token, sealed for this scope. */
  seal(token: string, scope: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(scope));
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The client's token in a sealed one, if it was sealed here for this scope; else a refusal. */
  open(sealed: string, scope: string): string {
    if (sealed.length > MAX_SEALED || !/^[A-Za-z0-9_-]+$/.test(sealed))
      throw new InvalidInputError('pageToken', NOT_OURS);
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) throw new InvalidInputError('pageToken', NOT_OURS);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(scope));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new InvalidInputError('pageToken', NOT_OURS);
    }
  }
}
