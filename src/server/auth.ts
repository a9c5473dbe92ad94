/**
 * Who is calling the HTTP server. An authenticator turns a request into a principal, or says nobody
 * (401). Built in: static bearer tokens for development, and JWTs verified against a JWKS (`jose`).
 */
import { timingSafeEqual } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { PrincipalSchema, type Principal } from '../schemas/access.js';

/** Turns a request into the principal making it, or `undefined` when it carries no valid credentials. */
export type Authenticator = (request: Request) => Promise<Principal | undefined>;

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer +([A-Za-z0-9._~+/=-]{1,8192})$/.exec(header);
  return match?.[1];
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Static bearer tokens, each standing for a principal (or a principal id). For development and small
 * deployments; use JWTs where people sign in.
 */
export function bearerTokens(tokens: Record<string, Principal | string>): Authenticator {
  const entries = Object.entries(tokens).map(([token, p]) => {
    if (token.length < 16) throw new TypeError('bearerTokens: a token needs at least 16 characters');
    const principal = PrincipalSchema.parse({ ...(typeof p === 'string' ? { id: p } : p), via: 'http:bearer' });
    return { token, principal };
  });
  return async (request) => {
    const token = bearerToken(request);
    if (!token) return undefined;
    return entries.find((e) => sameSecret(e.token, token))?.principal;
  };
}

/** Where a JWT's claims put the parts of a principal (defaults: `sub`, `name`, `roles`, `groups`, `tenant`). */
export interface JwtClaimNames {
  id?: string;
  name?: string;
  roles?: string;
  groups?: string;
  tenant?: string;
}

export interface JwtAuthOptions {
  /** The issuer's JWKS, by URL (fetched and cached by `jose`) or as a key set. */
  jwks: URL | string | JSONWebKeySet;
  issuer: string;
  audience: string;
  claims?: JwtClaimNames;
  /** Accepted clock skew, seconds (default 30). */
  clockTolerance?: number;
}

const Strings = z.array(z.string()).catch([]);

/** JWTs (RS256, ES256, EdDSA, ...) verified against the issuer's JWKS, with issuer and audience checked. */
export function jwtAuth(options: JwtAuthOptions): Authenticator {
  const keys =
    typeof options.jwks === 'string' || options.jwks instanceof URL
      ? createRemoteJWKSet(new URL(options.jwks))
      : createLocalJWKSet(options.jwks);
  const names = { id: 'sub', name: 'name', roles: 'roles', groups: 'groups', tenant: 'tenant', ...options.claims };
  return async (request) => {
    const token = bearerToken(request);
    if (!token) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: options.clockTolerance ?? 30,
      }));
    } catch {
      return undefined;
    }
    const claim = (name: string): unknown => payload[name];
    const parsed = PrincipalSchema.safeParse({
      id: claim(names.id),
      ...(typeof claim(names.name) === 'string' ? { name: claim(names.name) } : {}),
      roles: Strings.parse(claim(names.roles)),
      groups: Strings.parse(claim(names.groups)),
      ...(typeof claim(names.tenant) === 'string' ? { tenant: claim(names.tenant) } : {}),
      via: 'http:jwt',
    });
    return parsed.success ? parsed.data : undefined;
  };
}

/**
 * The authenticator the environment configures, if any: `SERVER_JWKS_URL` with `SERVER_JWT_ISSUER` and
 * `SERVER_JWT_AUDIENCE`; or `SERVER_TOKENS` (JSON: token to principal); or `SERVER_DEV_TOKEN` (one
 * token for a principal `dev`).
 */
export function authenticatorFromEnv(env: NodeJS.ProcessEnv = process.env): Authenticator | undefined {
  if (env.SERVER_JWKS_URL) {
    const { SERVER_JWT_ISSUER: issuer, SERVER_JWT_AUDIENCE: audience } = env;
    if (!issuer || !audience) throw new TypeError('SERVER_JWKS_URL needs SERVER_JWT_ISSUER and SERVER_JWT_AUDIENCE');
    return jwtAuth({ jwks: env.SERVER_JWKS_URL, issuer, audience });
  }
  if (env.SERVER_TOKENS) {
    let tokens: unknown;
    try {
      tokens = JSON.parse(env.SERVER_TOKENS);
    } catch (err) {
      const message = `SERVER_TOKENS is not JSON (${errorMessage(err)}); give {"<token>": {"id": "alice"}, ...}`;
      throw new TypeError(message, { cause: err });
    }
    const parsed = z.record(z.string(), z.union([z.string(), PrincipalSchema])).safeParse(tokens);
    if (!parsed.success) throw new TypeError(`SERVER_TOKENS: ${z.prettifyError(parsed.error)}`);
    return bearerTokens(parsed.data);
  }
  if (env.SERVER_DEV_TOKEN) return bearerTokens({ [env.SERVER_DEV_TOKEN]: { id: 'dev', name: 'development token' } });
  return undefined;
}
