/**
 * The one place a process gets its payload codec: explicit keys, or the environment. Worker,
 * client, agentctl and the servers all come through here, so they encrypt and decrypt alike.
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec.js';
import { createKeyring, keyringFromEnvironment, type CodecKey } from './keyring.js';
import { UnkeyedCodec } from './unkeyed-codec.js';

/** Keys for {@link createPayloadCodec}: the current one is `currentKeyId`, else the first. */
export interface CodecKeysOptions {
  keys: CodecKey[];
  currentKeyId?: string;
}

/** An AES-256-GCM codec over these keys. */
export function createPayloadCodec(options: CodecKeysOptions): EncryptionCodec {
  return new EncryptionCodec(createKeyring(options.keys, options.currentKeyId));
}

/**
 * The codec configured in the environment (`DURABLE_AGENTS_CODEC_KEYS`, or a keys file given here or
 * in `DURABLE_AGENTS_CODEC_KEYS_FILE`; `DURABLE_AGENTS_CODEC_CURRENT_KEY` picks the current key). With
 * no keys configured, payloads stay in clear and an encrypted one is a clear error, not garbage.
 */
export async function loadPayloadCodec(
  options: { keysFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<PayloadCodec> {
  const keyring = await keyringFromEnvironment(options);
  return keyring ? new EncryptionCodec(keyring) : new UnkeyedCodec();
}

/**
 * The failure converter that puts failure messages and stack traces into an encoded payload: pass
 * it to `bundleWorkflowCode({ failureConverterPath })` when you bundle workflow code yourself.
 */
export const failureConverterPath = fileURLToPath(
  new URL(`./failure-converter${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * A worker's `dataConverter` with `codec` last, so that it encrypts what any other codec (compression)
 * produced, and, unless payloads stay in clear, failure messages in an encoded payload too.
 */
export function withPayloadCodec(dataConverter: DataConverter | undefined, codec: PayloadCodec): DataConverter {
  return {
    ...(codec instanceof UnkeyedCodec ? {} : { failureConverterPath }),
    ...dataConverter,
    payloadCodecs: [...(dataConverter?.payloadCodecs ?? []), codec],
  };
}

/** One line for a process's start-up log: whether payloads are encrypted, and with which key. */
export function describeCodec(codec: PayloadCodec): string {
  if (codec instanceof EncryptionCodec) return `payloads encrypted with codec key "${codec.currentKeyId}"`;
  if (codec instanceof UnkeyedCodec) return 'payloads in clear (no codec keys configured)';
  return 'payloads through a custom codec';
}
