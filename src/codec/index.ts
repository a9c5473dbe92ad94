/**
 * `durable-agents/codec`: payload encryption (AES-256-GCM with key ids) and the payload store, the same
 * for worker, client, agentctl and servers.
 */
export { createPayloadCodec, describeCodec, failureConverterPath, loadPayloadCodec } from './payload-codec.js';
export type { CodecKeysOptions } from './payload-codec.js';
export {
  createExternalStorage,
  DEFAULT_PAYLOAD_STORE_THRESHOLD,
  describeExternalStorage,
  FILE_DRIVER_NAME,
  FileStorageDriver,
  loadExternalStorage,
  payloadStoreFromEnv,
} from './external-storage.js';
export type { PayloadStoreSettings } from './external-storage.js';
export { EncryptionCodec } from './encryption-codec.js';
export { UnkeyedCodec } from './unkeyed-codec.js';
export { CODEC_CURRENT_KEY_ENV, CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from './keyring.js';
export type { CodecKey, Keyring } from './keyring.js';
export { CodecConfigError, PayloadDecryptError, UnknownCodecKeyError } from './errors.js';
export { INLINE_PAYLOAD_LIMITS, STORED_PAYLOAD_LIMITS } from '../schemas/limits.js';
export type { PayloadLimits } from '../schemas/limits.js';
