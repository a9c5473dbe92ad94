/**
 * What every request must pass before a route sees it: a Host this server answers to (no DNS
 * rebinding), for POSTs a JSON body from an allowed origin (no cross-site form or `text/plain` posts)
 * within the size limit, and authentication (or, with none configured, a loopback client).
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { UnauthenticatedError } from '../../errors.js';
import type { Principal } from '../../schemas/access.js';
import { tenancyRefusal, type Authenticator } from './auth.js';

/** What the guards put on the request's context for the routes. */
export type ServerEnv = { Variables: { principal: Principal | undefined } };

export function errorBody(type: string, message: string) {
  return { error: { type, message } };
}

function refuse(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json(errorBody(type, message), { status, headers });
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Whether an address (of a client, or one to listen on) is loopback. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.replace(/^\[|\]$/g, '').replace(/^::ffff:/, '');
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The host name of a Host header, without the port (IPv6 in brackets comes out bare). */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d+$/, '').toLowerCase();
}

/** Refuses a request whose Host the server does not answer to: a DNS-rebinding page's requests carry its own. */
export function hostGuard(allowedHosts: string[]): MiddlewareHandler<ServerEnv> {
  const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  return async (c, next) => {
    const host = c.req.header('host');
    if (!host || !(allowed.has(host.toLowerCase()) || allowed.has(hostName(host)))) {
      return refuse(403, 'HostNotAllowed', `this server does not answer to Host "${host ?? ''}"`);
    }
    await next();
  };
}

/**
 * POSTs must be JSON (a form or `text/plain` post needs no CORS preflight, so any page could send one)
 * and come from this server's own origin or an allowed one.
 */
export function postGuard(allowedOrigins: string[], maxBodyBytes: number): MiddlewareHandler<ServerEnv> {
  const limit = bodyLimit({
    maxSize: maxBodyBytes,
    // The rest of the body is not read: the connection cannot carry another request.
    onError: (c) =>
      c.json(errorBody('PayloadTooLarge', `the request body is over ${maxBodyBytes} bytes`), 413, {
        connection: 'close',
      }),
  });
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const origin = c.req.header('origin');
    const sameOrigin = origin !== undefined && origin.replace(/^https?:\/\//, '') === c.req.header('host');
    const allowedOrigin = origin !== undefined && (sameOrigin || allowedOrigins.includes(origin));
    if (origin !== undefined && !allowedOrigin) {
      return refuse(403, 'OriginNotAllowed', `requests from origin ${origin} are not allowed`);
    }
    if (c.req.header('sec-fetch-site') === 'cross-site' && !allowedOrigin) {
      return refuse(403, 'OriginNotAllowed', 'cross-site requests are not allowed');
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return refuse(415, 'UnsupportedMediaType', `send the body as application/json, not "${type || 'none'}"`);
    }
    return limit(c, next);
  };
}

function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Authenticates every request, and refuses a principal that does not fit the authenticator's tenancy;
 * with no authenticator, serves only loopback clients, as nobody in particular (development).
 */
export function authGuard(authenticate: Authenticator | undefined): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (!authenticate) {
      if (!isLoopback(remoteAddress(c))) {
        return refuse(403, 'AuthenticationRequired', 'this server has no authentication and serves loopback only');
      }
      c.set('principal', undefined);
      return next();
    }
    const unauthenticated = (reason: string) =>
      refuse(401, 'Unauthenticated', reason, { 'www-authenticate': 'Bearer realm="durable-agents"' });
    let principal: Principal | undefined;
    try {
      principal = await authenticate(c.req.raw);
    } catch (err) {
      if (err instanceof UnauthenticatedError) return unauthenticated(err.reason);
      throw err;
    }
    if (!principal) return unauthenticated('send a valid bearer token (Authorization: Bearer <token>)');
    // A principal that does not fit the deployment's tenancy would see every tenant, or be half confined.
    const misfit = tenancyRefusal(authenticate, principal);
    if (misfit) return unauthenticated(misfit);
    c.set('principal', principal);
    return next();
  };
}
