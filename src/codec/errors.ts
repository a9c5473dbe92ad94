/**
 * The codec's and the payload store's typed errors. None of them ever carries key material or payload bytes.
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

/**
 * A payload-store reference that no retry can resolve: malformed, outside the store, naming a payload
 * that is not there or was changed, or another bucket's. `reason` is short and names no directory: a
 * worker hands it to the run in place of the payload (see undecodable.ts).
 */
export class PayloadReferenceError extends Error {
  override readonly name = 'PayloadReferenceError';
  constructor(
    readonly reason: string,
    message = `a payload-store reference is refused: ${reason}`,
  ) {
    super(message);
  }
}

/** A payload that an activity (not a workflow's own message) was to be given, and that cannot be read. */
export class UndecodablePayloadError extends Error {
  override readonly name = 'UndecodablePayloadError';
  constructor(readonly reason: string) {
    super(`a payload could not be decoded: ${reason}`);
  }
}

/** A payload store a process cannot use, found at its start: the process refuses to start. */
export class PayloadStoreConfigError extends Error {
  override readonly name = 'PayloadStoreConfigError';
  constructor(problem: string) {
    super(`payload store (DURABLE_AGENTS_PAYLOAD_STORE): ${problem}`);
  }
}

/** The `type` of the failure a payload store's write ends in (see {@link payloadStoreFailure}). */
export const PAYLOAD_STORE_ERROR = 'PayloadStoreError';
