/**
 * The codec's typed errors. None of them ever carries key material or payload bytes.
 */

/** Codec keys that are missing, malformed or ambiguous in the configuration. */
export class CodecConfigError extends Error {
  override readonly name = 'CodecConfigError';
  constructor(
    /** Where the keys came from, e.g. `DURABLE_AGENTS_CODEC_KEYS`. */
    readonly source: string,
    readonly problem: string,
  ) {
    super(
      `${source}: ${problem}. Codec keys are a list of "<keyId>:<base64 of 32 bytes>" entries (the first is ` +
        'the current key); make a key with `openssl rand -base64 32`.',
    );
  }
}

/** A payload encrypted with a key id that this process's keyring does not have (or no keyring at all). */
export class UnknownCodecKeyError extends Error {
  override readonly name = 'UnknownCodecKeyError';
  constructor(
    readonly keyId: string,
    readonly knownKeyIds: string[],
  ) {
    super(
      knownKeyIds.length === 0
        ? `A payload is encrypted with codec key "${keyId}", but this process has no codec keys. ` +
            'Set DURABLE_AGENTS_CODEC_KEYS (or DURABLE_AGENTS_CODEC_KEYS_FILE), or pass { codec }.'
        : `A payload is encrypted with codec key "${keyId}", which this process's keyring ` +
            `(${knownKeyIds.map((k) => `"${k}"`).join(', ')}) does not have. Keep old keys in the keyring ` +
            `after a rotation: add "${keyId}" after the current key.`,
    );
  }
}

/** A payload whose key id is known but which does not decrypt: another key under that id, or altered bytes. */
export class PayloadDecryptError extends Error {
  override readonly name = 'PayloadDecryptError';
  constructor(
    readonly keyId: string,
    reason: string,
  ) {
    super(
      `A payload encrypted with codec key "${keyId}" does not decrypt (${reason}): the key named "${keyId}" ` +
        'here is not the key it was encrypted with, or the payload was altered.',
    );
  }
}
