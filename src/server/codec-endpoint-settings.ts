/**
 * The codec endpoint's settings from the environment, checked with zod: where it listens, its
 * bearer token, and the browser origins (the Web UI's) it answers.
 */
import { z } from 'zod';
import { assertCodecEndpointExposure } from './codec-endpoint.js';

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
});

export interface CodecEndpointSettings {
  host: string;
  port: number;
  token: string | undefined;
  corsOrigins: string[];
}

/**
 * Reads `DURABLE_AGENTS_CODEC_SERVER_HOST` (default 127.0.0.1), `..._PORT` (8888), `..._TOKEN` and
 * `..._ORIGINS` (comma-separated; default the dev server's UI). Throws when a setting is invalid, or
 * when the host is not a loopback address and no token is set.
 */
export function codecEndpointSettings(env: NodeJS.ProcessEnv = process.env): CodecEndpointSettings {
  // An empty variable counts as unset, as in a shell's `VAR= cmd`.
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) throw new Error(`codec endpoint settings: ${z.prettifyError(parsed.error)}`);
  const s = parsed.data;
  assertCodecEndpointExposure(s.DURABLE_AGENTS_CODEC_SERVER_HOST, s.DURABLE_AGENTS_CODEC_SERVER_TOKEN);
  return {
    host: s.DURABLE_AGENTS_CODEC_SERVER_HOST,
    port: s.DURABLE_AGENTS_CODEC_SERVER_PORT,
    token: s.DURABLE_AGENTS_CODEC_SERVER_TOKEN,
    corsOrigins: s.DURABLE_AGENTS_CODEC_SERVER_ORIGINS,
  };
}
