/**
 * The codec endpoint's settings from the environment, checked with zod: where it listens, its
 * bearer token, the Host names and the browser origins (the Web UI's) it answers.
 */
import { z } from 'zod';
import { assertCodecEndpointExposure, isLoopback } from './codec-endpoint.js';
import { LOOPBACK_HOSTS } from '../auth/guards.js';

/** The dev server's Web UI (`temporal server start-dev`, UI on port 8233). */
const DEFAULT_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233';

const EnvSchema = z.object({
  DURABLE_AGENTS_CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
  // 8888 is the port of Temporal's codec server samples.
  DURABLE_AGENTS_CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8888),
  DURABLE_AGENTS_CODEC_SERVER_TOKEN: z
    .string()
    .min(16, 'the token needs at least 16 characters; make one with `openssl rand -hex 32`')
    .optional(),
  DURABLE_AGENTS_CODEC_SERVER_ORIGINS: z
    .string()
    .default(DEFAULT_ORIGINS)
    .transform((list) =>
      list
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ error: (i) => `"${String(i.input)}" is not an origin like http://localhost:8233` }))),
  DURABLE_AGENTS_CODEC_SERVER_ALLOWED_HOSTS: z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().max(256)).min(1, 'name at least one host, e.g. codec.internal:8888'))
    .optional(),
});

export interface CodecEndpointSettings {
  host: string;
  port: number;
  token: string | undefined;
  corsOrigins: string[];
  /** The Host names (or `host:port`) it answers to: the loopback names unless the environment says. */
  allowedHosts: string[];
}

/**
 * Reads `DURABLE_AGENTS_CODEC_SERVER_HOST` (default 127.0.0.1), `..._PORT` (8888), `..._TOKEN`,
 * `..._ORIGINS` (comma-separated; default the dev server's UI) and `..._ALLOWED_HOSTS` (comma-separated;
 * default the loopback names). Throws when a setting is invalid, or when the host is not a loopback
 * address and no token or no allowed Host names are set.
 */
export function codecEndpointSettings(env: NodeJS.ProcessEnv = process.env): CodecEndpointSettings {
  // An empty variable counts as unset, as in a shell's `VAR= cmd`.
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) throw new Error(`codec endpoint settings: ${z.prettifyError(parsed.error)}`);
  const s = parsed.data;
  assertCodecEndpointExposure(s.DURABLE_AGENTS_CODEC_SERVER_HOST, s.DURABLE_AGENTS_CODEC_SERVER_TOKEN);
  if (!isLoopback(s.DURABLE_AGENTS_CODEC_SERVER_HOST) && !s.DURABLE_AGENTS_CODEC_SERVER_ALLOWED_HOSTS) {
    throw new Error(
      `the codec endpoint on ${s.DURABLE_AGENTS_CODEC_SERVER_HOST}: say which Host names clients reach it by ` +
        '(DURABLE_AGENTS_CODEC_SERVER_ALLOWED_HOSTS, e.g. codec.internal:8888); requests with any other Host are ' +
        'refused, so that a DNS-rebinding page cannot use it',
    );
  }
  return {
    host: s.DURABLE_AGENTS_CODEC_SERVER_HOST,
    port: s.DURABLE_AGENTS_CODEC_SERVER_PORT,
    token: s.DURABLE_AGENTS_CODEC_SERVER_TOKEN,
    corsOrigins: s.DURABLE_AGENTS_CODEC_SERVER_ORIGINS,
    allowedHosts: s.DURABLE_AGENTS_CODEC_SERVER_ALLOWED_HOSTS ?? [...LOOPBACK_HOSTS],
  };
}
