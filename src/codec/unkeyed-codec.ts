/**
 * The codec of a process with no codec keys: it writes payloads in clear, and meets an encrypted
 * payload with an error that says which key it needs, where the SDK alone would say "Unknown
 * encoding: binary/encrypted".
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { encryptionKeyId } from './encryption-codec.js';
import { UnknownCodecKeyError } from './errors.js';

export class UnkeyedCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const keyId = encryptionKeyId(payload);
      if (keyId !== undefined) throw new UnknownCodecKeyError(keyId, []);
    }
    return payloads;
  }
}
