/**
 * The codec's keyring: AES-256 keys by id, one of them current. The current key encrypts; any key in
 * the ring decrypts, so keys rotate by putting a new key first and keeping the old ones after it.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { CodecConfigError } from './errors.js';

/** `keyId:base64key` entries, separated by commas or white space; the first is current. */
export const CODEC_KEYS_ENV = 'DURABLE_AGENTS_CODEC_KEYS';
/** A file with the same entries (one a line is usual; `#` starts a comment). */
export const CODEC_KEYS_FILE_ENV = 'DURABLE_AGENTS_CODEC_KEYS_FILE';
/** Names the current key when it is not the first. */
export const CODEC_CURRENT_KEY_ENV = 'DURABLE_AGENTS_CODEC_CURRENT_KEY';

/** One key: its id (stored in every payload it encrypts) and 32 bytes, raw or in base64. */
export interface CodecKey {
  id: string;
  key: Uint8Array | string;
}

/** The keys a codec knows, and which one encrypts. */
export interface Keyring {
  readonly currentKeyId: string;
  readonly keys: ReadonlyMap<string, Uint8Array>;
}

const KeyIdSchema = z
  .string()
  .regex(/^[\w.-]{1,64}$/, 'a key id is 1 to 64 letters, digits, ".", "_" or "-" (it is stored in clear)');
// zod issues do not echo the input, so no message below can leak a key.
const KeyBytesSchema = z
  .union([z.base64().transform((s) => new Uint8Array(Buffer.from(s, 'base64'))), z.instanceof(Uint8Array)], {
    error: 'the key is not base64',
  })
  .refine((bytes) => bytes.length === 32, {
    error: (i) => `the key has ${(i.input as Uint8Array).length} bytes, not 32`,
  });

/**
 * Builds a keyring from keys given in code or parsed from configuration. The current key is
 * `currentKeyId`, else the first. `source` names where the keys came from, for error messages.
 */
export function createKeyring(keys: CodecKey[], currentKeyId?: string, source = 'codec keys'): Keyring {
  if (keys.length === 0) throw new CodecConfigError(source, 'no keys');
  const ring = new Map<string, Uint8Array>();
  keys.forEach(({ id, key }, index) => {
    const checkedId = KeyIdSchema.safeParse(id);
    if (!checkedId.success)
      throw new CodecConfigError(source, `key ${index + 1}: ${checkedId.error.issues[0]?.message}`);
    if (ring.has(id)) throw new CodecConfigError(source, `key id "${id}" appears twice`);
    const bytes = KeyBytesSchema.safeParse(key);
    if (!bytes.success) throw new CodecConfigError(source, `key "${id}": ${bytes.error.issues[0]?.message}`);
    ring.set(id, bytes.data);
  });
  const current = currentKeyId ?? keys[0]!.id;
  if (!ring.has(current))
    throw new CodecConfigError(
      source,
      `the current key "${current}" is not among the keys (${[...ring.keys()].join(', ')})`,
    );
  return { currentKeyId: current, keys: ring };
}

/** Parses `keyId:base64key` entries separated by commas or white space; `#` comments run to the end of a line. */
export function parseKeyList(text: string, source: string): CodecKey[] {
  const entries = text
    .replace(/#.*$/gm, '')
    .split(/[\s,]+/)
    .filter(Boolean);
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon < 1) throw new CodecConfigError(source, `entry ${index + 1} is not "<keyId>:<base64 key>"`);
    return { id: entry.slice(0, colon), key: entry.slice(colon + 1) };
  });
}

/**
 * The keyring configured in the environment: `DURABLE_AGENTS_CODEC_KEYS`, or the file named by
 * `keysFile` or `DURABLE_AGENTS_CODEC_KEYS_FILE` (not both); undefined when none is configured.
 */
export async function keyringFromEnvironment(
  options: { keysFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Keyring | undefined> {
  const env = options.env ?? process.env;
  const inline = env[CODEC_KEYS_ENV]?.trim() || undefined;
  const file = options.keysFile ?? (env[CODEC_KEYS_FILE_ENV]?.trim() || undefined);
  if (inline && file)
    throw new CodecConfigError(
      `${CODEC_KEYS_ENV} and ${file === options.keysFile ? 'the keys file' : CODEC_KEYS_FILE_ENV}`,
      'both are set; configure the keys in one place',
    );
  const current = env[CODEC_CURRENT_KEY_ENV]?.trim() || undefined;
  if (inline) return createKeyring(parseKeyList(inline, CODEC_KEYS_ENV), current, CODEC_KEYS_ENV);
  if (!file) {
    if (current) throw new CodecConfigError(CODEC_CURRENT_KEY_ENV, `names key "${current}", but no keys are set`);
    return undefined;
  }
  const source = `codec keys file ${file}`;
  const text = await readFile(file, 'utf8').catch((err: unknown) => {
    throw new CodecConfigError(source, `cannot read it (${errorMessage(err)})`);
  });
  return createKeyring(parseKeyList(text, source), current, source);
}
