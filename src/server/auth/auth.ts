/**
 * Who is calling the HTTP server. An authenticator turns a request into a principal, says nobody
 * (401), or refuses with a reason (`UnauthenticatedError`, 401). Built in: static bearer tokens, and
 * JWTs verified against a JWKS (`jwt-auth.ts`). Each knows whether the deployment has tenants (its
 * {@link Tenancy}): the server refuses a principal that does not fit it, and says it at start.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { rejectUnknownKeys } from '../../options.js';
import { ALL_TENANTS, PrincipalSchema, type Principal } from '../../schemas/access.js';

/**
 * Whether a deployment has tenants. `required`: every principal has exactly one tenant, or is an
 * all-tenants operator (tenant `*`, `ALL_TENANTS`) that the configuration names; `none`: no principal
 * has a tenant, and each may act on the runs of anyone (as the agents' access policies allow).
 */
export type TenancyMode = 'required' | 'none';

/** What an authenticator says of tenants. */
export interface Tenancy {
  mode: TenancyMode;
  /** What the mode rests on, for the start log line, e.g. `3 tokens, 1 all-tenants operator`. */
  detail?: string;
}

/**
 * Turns a request into the principal making it, `undefined` when it carries no valid credentials, or
 * throws `UnauthenticatedError` with the reason it refuses them.
 */
export interface Authenticator {
  (request: Request): Promise<Principal | undefined>;
  /**
   * Whether its principals have tenants. An authenticator of your own without it counts as `none`: a
   * principal it gives a tenant is refused rather than confined while others are not. Set it with
   * `Object.assign(fn, { tenancy: { mode: 'required' } })`.
   */
  tenancy?: Tenancy;
}

const MODES: readonly TenancyMode[] = ['required', 'none'];

/** The server's start log line about tenancy, e.g. `tenancy: required (3 tokens, 1 all-tenants operator)`. */
export function describeTenancy(authenticate: Authenticator | undefined): string {
  if (!authenticate) return 'tenancy: none (no authentication: loopback clients only)';
  if (!authenticate.tenancy) {
    return 'tenancy: none (the authenticator declares no tenancy; a principal with a tenant is refused)';
  }
  const { mode, detail } = authenticate.tenancy;
  return `tenancy: ${mode}${detail ? ` (${detail})` : ''}`;
}

/** Why the server refuses this principal under the authenticator's tenancy (a 401's reason), if it does. */
export function tenancyRefusal(authenticate: Authenticator, principal: Principal): string | undefined {
  const tenancy = authenticate.tenancy;
  if (tenancy?.mode === 'required') {
    if (principal.tenant) return undefined;
    return `principal "${principal.id}" has no tenant, and this server requires one (tenancy: required)`;
  }
  if (principal.tenant === undefined) return undefined;
  return (
    `principal "${principal.id}" has tenant "${principal.tenant}", but this server has no tenants (tenancy: none)` +
    (tenancy
      ? ''
      : ': an authenticator of your own that has tenants declares tenancy: { mode: "required" }, and gives ' +
        'every principal a tenant (or "*" for an all-tenants operator)')
  );
}

/** The token of an `Authorization: Bearer <token>` header, if the request has one. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer +([A-Za-z0-9._~+/=-]{1,8192})$/.exec(header);
  return match?.[1];
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A zod error on one line, each issue with its path inside the principal (never a token: it is a key above). */
export function issuesLine(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
}

const MIN_TOKEN = 16;

/**
 * Each token's principal, checked; `at(i)` names entry i in errors, which never quote a token (an error
 * of configuration ends up in logs).
 */
export function tokenPrincipals(
  tokens: Record<string, unknown>,
  at: (index: number) => string,
): Array<{ token: string; principal: Principal }> {
  return Object.entries(tokens).map(([token, p], i) => {
    if (token.length < MIN_TOKEN) {
      throw new TypeError(
        `${at(i)}: the token has ${token.length} characters; a token needs at least ${MIN_TOKEN} ` +
          '(make one with `openssl rand -hex 32`)',
      );
    }
    if (typeof p !== 'string' && (typeof p !== 'object' || p === null || Array.isArray(p))) {
      throw new TypeError(`${at(i)}: give a principal id (a string) or a principal object, like {"id": "alice"}`);
    }
    const parsed = PrincipalSchema.safeParse({ ...(typeof p === 'string' ? { id: p } : p), via: 'http:bearer' });
    if (!parsed.success) throw new TypeError(`${at(i)}: ${issuesLine(parsed.error)}`);
    return { token, principal: parsed.data };
  });
}

/** The options of {@link bearerTokens}. */
export interface BearerTokensOptions {
  /**
   * Whether principals have tenants. Default: `required` when any entry names a tenant (then every
   * entry must: its tenant, or `*` for an all-tenants operator), else `none`.
   */
  tenants?: TenancyMode;
}

/** The tenancy of these principals, or the error of the first entry that does not fit it. */
function tokensTenancy(principals: Principal[], given: TenancyMode | undefined, at: (i: number) => string): Tenancy {
  const named = principals.filter((p) => p.tenant !== undefined).length;
  const mode = given ?? (named > 0 ? 'required' : 'none');
  principals.forEach((p, i) => {
    if (mode === 'required' && p.tenant === undefined) {
      const why = given ? 'tenants are required' : 'this deployment has tenants (an entry names one)';
      throw new TypeError(
        `${at(i)} (principal "${p.id}") has no tenant, but ${why}: give it "tenant": "<its tenant>", or ` +
          `"tenant": "${ALL_TENANTS}" to make it an all-tenants operator`,
      );
    }
    if (mode === 'none' && p.tenant !== undefined) {
      throw new TypeError(
        `${at(i)} (principal "${p.id}") names tenant "${p.tenant}", but tenants: "none" says this deployment ` +
          'has none: remove it, or use tenants: "required"',
      );
    }
  });
  const count = `${principals.length} token${principals.length === 1 ? '' : 's'}`;
  const operators = principals.filter((p) => p.tenant === ALL_TENANTS).length;
  if (mode === 'none' || operators === 0) return { mode, detail: count };
  return { mode, detail: `${count}, ${operators} all-tenants operator${operators === 1 ? '' : 's'}` };
}

/** {@link bearerTokens} with entries named as the caller names them (`SERVER_TOKENS entry 2 of 3`). */
export function tokensAuthenticator(
  tokens: Record<string, unknown>,
  options: BearerTokensOptions,
  at: (index: number) => string,
): Authenticator {
  if (options.tenants !== undefined && !MODES.includes(options.tenants)) {
    throw new TypeError(`bearerTokens: tenants is "required" or "none", not ${JSON.stringify(options.tenants)}`);
  }
  const entries = tokenPrincipals(tokens, at);
  const tenancy = tokensTenancy(
    entries.map((e) => e.principal),
    options.tenants,
    at,
  );
  const authenticate = async (request: Request) => {
    const token = bearerToken(request);
    if (!token) return undefined;
    return entries.find((e) => sameSecret(e.token, token))?.principal;
  };
  return Object.assign(authenticate, { tenancy });
}

/**
 * Static bearer tokens, each standing for a principal (or a principal id). For development and small
 * deployments; use JWTs where people sign in. Where any entry names a tenant, every entry must (`*`
 * for an all-tenants operator): checked here, so that a token left without one cannot see every tenant.
 */
export function bearerTokens(
  tokens: Record<string, Principal | string>,
  options: BearerTokensOptions = {},
): Authenticator {
  rejectUnknownKeys('bearerTokens', options, ['tenants']);
  const n = Object.keys(tokens).length;
  return tokensAuthenticator(tokens, options, (i) => `bearerTokens: entry ${i + 1} of ${n}`);
}
