import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { EncryptionCodec } from '../../src/codec/encryption-codec.js';
import { CodecConfigError, PayloadDecryptError, UnknownCodecKeyError } from '../../src/codec/errors.js';
import { createKeyring, keyringFromEnvironment, parseKeyList } from '../../src/codec/keyring.js';
import { createPayloadCodec, loadPayloadCodec } from '../../src/codec/payload-codec.js';
import { UnkeyedCodec } from '../../src/codec/unkeyed-codec.js';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const SECRET = 'the launch code is 0000';
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const text = (p: Payload) => Buffer.from(p.data ?? []).toString('latin1');
const meta = (p: Payload, key: string) => Buffer.from(p.metadata?.[key] ?? []).toString();

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('EncryptionCodec', () => {
  const codecA = createPayloadCodec({ keys: [{ id: 'a', key: keyA }] });

  it('encrypts in the samples format and decrypts back to the same payload', async () => {
    const original = plain({ prompt: SECRET });
    const [encrypted] = await codecA.encode([original]);
    expect(meta(encrypted!, 'encoding')).toBe('binary/encrypted');
    expect(meta(encrypted!, 'encryption-key-id')).toBe('a');
    expect(Object.keys(encrypted!.metadata!)).toEqual(['encoding', 'encryption-key-id']);
    expect(text(encrypted!)).not.toContain('launch code');
    expect(text(encrypted!)).not.toContain('json/plain');

    // nonce | ciphertext | tag of the plain protobuf: what Temporal's Go, Python and .NET samples read
    const data = Buffer.from(encrypted!.data!);
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyA, 'base64'), data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const bytes = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
    expect(defaultPayloadConverter.fromPayload(temporal.api.common.v1.Payload.decode(bytes))).toEqual({
      prompt: SECRET,
    });

    const [decoded] = await codecA.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: SECRET });
    expect(meta(decoded!, 'encoding')).toBe('json/plain');
  });

  it('uses a fresh nonce for every payload', async () => {
    const [one, two] = await codecA.encode([plain(SECRET), plain(SECRET)]);
    expect(Buffer.from(one!.data!).equals(Buffer.from(two!.data!))).toBe(false);
  });

  it('passes payloads that are not encrypted through decode (history from before the codec)', async () => {
    const clear = plain({ old: true });
    expect(await codecA.decode([clear])).toEqual([clear]);
  });

  it('rotates: encrypts with the current key and decrypts with any key in the ring', async () => {
    const [underA] = await codecA.encode([plain(SECRET)]);
    const rotated = createPayloadCodec({
      keys: [
        { id: 'b', key: keyB },
        { id: 'a', key: keyA },
      ],
    });
    expect(rotated.currentKeyId).toBe('b');
    const [underB] = await rotated.encode([plain(SECRET)]);
    expect(meta(underB!, 'encryption-key-id')).toBe('b');
    const decoded = await rotated.decode([underA!, underB!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([SECRET, SECRET]);
  });

  it('names the missing key when the keyring lacks it', async () => {
    const [underA] = await codecA.encode([plain(SECRET)]);
    const onlyB = createPayloadCodec({ keys: [{ id: 'b', key: keyB }] });
    const error = await onlyB.decode([underA!]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownCodecKeyError);
    expect((error as Error).message).toBe(
      'A payload is encrypted with codec key "a", which this process\'s keyring ("b") does not have. ' +
        'Keep old keys in the keyring after a rotation: add "a" after the current key.',
    );
  });

  it('refuses a different key under the same id, and altered bytes, instead of returning garbage', async () => {
    const [underA] = await codecA.encode([plain(SECRET)]);
    const impostor = createPayloadCodec({ keys: [{ id: 'a', key: keyB }] });
    await expect(impostor.decode([underA!])).rejects.toThrow(PayloadDecryptError);
    await expect(impostor.decode([underA!])).rejects.toThrow(
      /^A payload encrypted with codec key "a" does not decrypt \(Unsupported state or unable to authenticate data\)/,
    );

    const altered = Buffer.from(underA!.data!);
    altered[20]! ^= 1;
    await expect(codecA.decode([{ ...underA!, data: altered }])).rejects.toThrow(PayloadDecryptError);
    await expect(codecA.decode([{ ...underA!, data: altered.subarray(0, 10) }])).rejects.toThrow(
      /10 bytes is too short for nonce and tag/,
    );
  });
});

describe('UnkeyedCodec (no keys configured)', () => {
  it('writes payloads in clear and refuses encrypted ones with the key they need', async () => {
    const codec = new UnkeyedCodec();
    const clear = plain(SECRET);
    expect(await codec.encode([clear])).toEqual([clear]);
    expect(await codec.decode([clear])).toEqual([clear]);
    const [encrypted] = await new EncryptionCodec(createKeyring([{ id: 'a', key: keyA }])).encode([clear]);
    await expect(codec.decode([encrypted!])).rejects.toThrow(
      'A payload is encrypted with codec key "a", but this process has no codec keys. ' +
        'Set DURABLE_AGENTS_CODEC_KEYS (or DURABLE_AGENTS_CODEC_KEYS_FILE), or pass { codec }.',
    );
  });
});

describe('keyring configuration', () => {
  it('reads DURABLE_AGENTS_CODEC_KEYS: the first key is current unless one is named', async () => {
    const env = { DURABLE_AGENTS_CODEC_KEYS: `b:${keyB}, a:${keyA}` };
    const ring = await keyringFromEnvironment({ env });
    expect(ring?.currentKeyId).toBe('b');
    expect([...ring!.keys.keys()]).toEqual(['b', 'a']);
    const named = await keyringFromEnvironment({ env: { ...env, DURABLE_AGENTS_CODEC_CURRENT_KEY: 'a' } });
    expect(named?.currentKeyId).toBe('a');
  });

  it('reads a keys file with comments, from the environment or given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codec-keys-'));
    dirs.push(dir);
    const file = join(dir, 'keys');
    await writeFile(file, `# rotated 2026-01\nb:${keyB}\n\n# old\na:${keyA}\n`);
    expect((await keyringFromEnvironment({ env: { DURABLE_AGENTS_CODEC_KEYS_FILE: file } }))?.currentKeyId).toBe('b');
    expect((await keyringFromEnvironment({ keysFile: file, env: {} }))?.currentKeyId).toBe('b');
    await expect(
      keyringFromEnvironment({ env: { DURABLE_AGENTS_CODEC_KEYS_FILE: join(dir, 'nope') } }),
    ).rejects.toThrow(/^codec keys file .*nope: cannot read it \(ENOENT/);
  });

  it('without keys, payloads stay in clear', async () => {
    expect(await keyringFromEnvironment({ env: {} })).toBeUndefined();
    expect(await loadPayloadCodec({ env: {} })).toBeInstanceOf(UnkeyedCodec);
    expect(await loadPayloadCodec({ env: { DURABLE_AGENTS_CODEC_KEYS: `a:${keyA}` } })).toBeInstanceOf(EncryptionCodec);
  });

  it('refuses bad keys with the reason and never the key', async () => {
    const refusal = async (env: Record<string, string>) => {
      const error = await keyringFromEnvironment({ env }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CodecConfigError);
      const message = (error as Error).message;
      for (const key of [keyA, keyB]) expect(message).not.toContain(key);
      return message.slice(0, message.indexOf('. Codec keys are'));
    };
    const short = randomBytes(16).toString('base64');
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:${short}` })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: key "a": the key has 16 bytes, not 32',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:not base64!` })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: entry 2 is not "<keyId>:<base64 key>"',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:${keyA.slice(1)}` })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: key "a": the key is not base64',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: keyA })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: entry 1 is not "<keyId>:<base64 key>"',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:${keyA},a:${keyB}` })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: key id "a" appears twice',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a/1:${keyA}` })).toMatch(/key 1: a key id is 1 to 64 letters/);
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:${keyA}`, DURABLE_AGENTS_CODEC_CURRENT_KEY: 'c' })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS: the current key "c" is not among the keys (a)',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_KEYS: `a:${keyA}`, DURABLE_AGENTS_CODEC_KEYS_FILE: '/k' })).toBe(
      'DURABLE_AGENTS_CODEC_KEYS and DURABLE_AGENTS_CODEC_KEYS_FILE: both are set; configure the keys in one place',
    );
    expect(await refusal({ DURABLE_AGENTS_CODEC_CURRENT_KEY: 'a' })).toBe(
      'DURABLE_AGENTS_CODEC_CURRENT_KEY: names key "a", but no keys are set',
    );
    expect(() => parseKeyList(' , ', 'x')).not.toThrow();
    expect(() => createKeyring([], undefined, 'x')).toThrow(/^x: no keys/);
  });
});
