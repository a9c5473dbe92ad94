/**
 * A remote codec endpoint for the Temporal Web UI and CLI: Temporal's codec server protocol
 * (`POST /encode`, `POST /decode`, a body of `{ payloads }` in protobuf JSON, the `X-Namespace`
 * header) over the payload codec, so that people who may see a run's payloads see them decoded. A
 * Hono app of its own, to serve alone (examples/codec-server.ts) or mount under another app.
 */
import { isIP } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { Hono, type Context } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { PayloadDecryptError, UnknownCodecKeyError } from '../../codec/errors.js';
import { errorMessage } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import { hostGuard, LOOPBACK_HOSTS, postGuard } from '../auth/guards.js';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const PayloadProto = proto.temporal.api.common.v1.Payload;

/** How a codec endpoint serves. */
export interface CodecEndpointOptions {
  codec: PayloadCodec;
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`). `undefined` serves
   * without one, which only a loopback listener may do: see {@link assertCodecEndpointExposure}.
   */
  token: string | undefined;
  /** Browser origins allowed to call it (CORS), e.g. the Web UI's `http://localhost:8233`. */
  corsOrigins: string[];
  /** The namespaces whose payloads it serves; a request whose `X-Namespace` names another is refused. */
  namespaces: string[];
  /**
   * Host names (or `host:port`) it answers to, as the HTTP server does; default `localhost`, `127.0.0.1`,
   * `::1`. A DNS-rebinding page's requests carry its own Host, and are refused.
   */
  allowedHosts?: string[];
}

const CODEC_ENDPOINT_OPTIONS = [
  'codec',
  'token',
  'corsOrigins',
  'namespaces',
  'allowedHosts',
] as const satisfies ReadonlyArray<keyof CodecEndpointOptions>;

/** The codec server protocol's payload: protobuf JSON, so bytes are base64. */
const JsonPayloadsSchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), z.string()).nullish(),
      data: z.string().nullish(),
    }),
  ),
});

/** Room for a page of large payloads (Temporal's own limit is 2 MiB a payload), base64 included. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const errorBody = (type: string, message: string) => ({ error: { type, message } });

/** Refuses, with the reason, to serve payloads without a token anywhere but on a loopback address. */
export function assertCodecEndpointExposure(host: string, token: string | undefined): void {
  if (token !== undefined || isLoopback(host)) return;
  throw new Error(
    `The codec endpoint decrypts payloads for whoever calls it, so on ${host} (not a loopback address) it needs ` +
      'a bearer token: set DURABLE_AGENTS_CODEC_SERVER_TOKEN (e.g. `openssl rand -hex 32`), or listen on 127.0.0.1.',
  );
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * The codec endpoint as a Hono app: `POST /encode` and `POST /decode`, with CORS, the bearer token, and
 * the HTTP server's guards: a Host it answers to, and JSON posts from no foreign origin.
 */
export function createCodecEndpoint(options: CodecEndpointOptions): Hono {
  rejectUnknownKeys('createCodecEndpoint', options, CODEC_ENDPOINT_OPTIONS);
  const app = new Hono();
  // CORS first: a browser's preflight carries no Authorization header.
  app.use(
    cors({
      origin: options.corsOrigins,
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Authorization', 'X-Namespace'],
      credentials: true,
      maxAge: 600,
    }),
  );
  app.use(hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS));
  if (options.token !== undefined) {
    const refusal = (message: string) => errorBody('Unauthorized', message);
    app.use(
      bearerAuth({
        token: options.token,
        noAuthenticationHeader: {
          message: refusal('send the codec endpoint token as "Authorization: Bearer <token>"'),
        },
        invalidAuthenticationHeader: { message: refusal('the Authorization header is not "Bearer <token>"') },
        invalidToken: { message: refusal('the bearer token is not the codec endpoint token') },
      }),
    );
  }
  // Without a token, a cross-site form or text/plain post (no CORS preflight) would otherwise be served.
  app.use(postGuard(options.corsOrigins, MAX_BODY_BYTES));
  app.use(async (c, next) => {
    const namespace = c.req.header('x-namespace');
    if (namespace !== undefined && !options.namespaces.includes(namespace))
      return c.json(
        errorBody(
          'WrongNamespace',
          `this codec endpoint serves ${options.namespaces.map((n) => `"${n}"`).join(', ')}, not "${namespace}"`,
        ),
        403,
      );
    await next();
  });

  const transform = async (c: Context, direction: 'encode' | 'decode') => {
    const payloads = await requestPayloads(c);
    if (payloads instanceof Response) return payloads;
    try {
      const out = await options.codec[direction](payloads);
      return c.json({ payloads: out.map(toJsonPayload) });
    } catch (err) {
      if (err instanceof UnknownCodecKeyError || err instanceof PayloadDecryptError)
        return c.json(errorBody(err.name, err.message), 422);
      throw err;
    }
  };
  app.post('/encode', (c) => transform(c, 'encode'));
  app.post('/decode', (c) => transform(c, 'decode'));
  app.notFound((c) => c.json(errorBody('NotFound', `no route ${c.req.method} ${c.req.path}`), 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse(); // the bearer token's refusals
    console.error('codec endpoint: unexpected error', err);
    return c.json(errorBody('InternalError', 'the codec failed; see the codec endpoint log'), 500);
  });
  return app;
}

/** A payload in protobuf JSON (bytes in base64), as the protocol answers. */
function toJsonPayload(payload: proto.temporal.api.common.v1.IPayload): Record<string, unknown> {
  return PayloadProto.toObject(PayloadProto.fromObject(payload), { bytes: String });
}

/** The request's payloads, or the 400 response that says what is wrong with them. */
async function requestPayloads(c: Context): Promise<proto.temporal.api.common.v1.IPayload[] | Response> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch (err) {
    return c.json(errorBody('InvalidJson', `the request body is not JSON: ${errorMessage(err)}`), 400);
  }
  const parsed = JsonPayloadsSchema.safeParse(raw);
  if (!parsed.success) return c.json(errorBody('InvalidRequest', z.prettifyError(parsed.error)), 400);
  try {
    return parsed.data.payloads.map((p) => PayloadProto.fromObject(p));
  } catch (err) {
    return c.json(errorBody('InvalidRequest', `payloads: ${errorMessage(err)} (bytes are base64)`), 400);
  }
}
