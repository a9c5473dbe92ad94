/**
 * AES-256-GCM payload encryption with key ids, in the format of Temporal's encryption samples: an
 * encrypted payload has metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`, and its
 * data is nonce (12 bytes) | ciphertext | tag (16 bytes) of the original payload in protobuf. The
 * plain (not length-delimited) protobuf is what the Go, Python and .NET samples encrypt, so a codec
 * server written with any of them reads these payloads given the same keys.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { errorMessage } from '../errors.js';
import { PayloadDecryptError, UnknownCodecKeyError } from './errors.js';
import type { Keyring } from './keyring.js';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const PayloadProto = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = (bytes: Uint8Array | undefined | null): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/** The key id of an encrypted payload; undefined for a payload that is not encrypted. */
export function encryptionKeyId(payload: Payload): string | undefined {
  if (utf8(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return undefined;
  return utf8(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]) ?? '';
}

/**
 * Encrypts every payload with the keyring's current key; decrypts with the key its metadata names.
 * Payloads that are not encrypted decode as they are (history written before the codec was on).
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly currentKey: Uint8Array;
  private readonly currentKeyIdBytes: Uint8Array;

  constructor(private readonly keyring: Keyring) {
    this.currentKey = keyring.keys.get(keyring.currentKeyId)!;
    this.currentKeyIdBytes = Buffer.from(keyring.currentKeyId, 'utf8');
  }

  /** The id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.keyring.currentKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv(CIPHER, this.currentKey, nonce, { authTagLength: TAG_BYTES });
      const plain = PayloadProto.encode(payload).finish();
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING, 'utf8'),
          [METADATA_ENCRYPTION_KEY_ID]: this.currentKeyIdBytes,
        },
        data: Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const keyId = encryptionKeyId(payload);
      if (keyId === undefined) return payload;
      const key = this.keyring.keys.get(keyId);
      if (!key) throw new UnknownCodecKeyError(keyId, [...this.keyring.keys.keys()]);
      const data = payload.data ?? new Uint8Array();
      if (data.length < NONCE_BYTES + TAG_BYTES)
        throw new PayloadDecryptError(keyId, `${data.length} bytes is too short for nonce and tag`);
      let plain: Buffer;
      try {
        const decipher = createDecipheriv(CIPHER, key, data.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch (err) {
        throw new PayloadDecryptError(keyId, errorMessage(err));
      }
      return PayloadProto.decode(plain);
    });
  }
}
