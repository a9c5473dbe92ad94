/**
 * JWTs verified against the issuer's JWKS (`jose`), turned into principals: a token must expire within
 * a bound, and where the deployment has tenants, name exactly one (or carry the role configured for
 * all-tenants operators).
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { z } from 'zod';
import { UnauthenticatedError } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import { ALL_TENANTS, PrincipalSchema, type Principal } from '../../schemas/access.js';
import { bearerToken, type Authenticator, type Tenancy, type TenancyMode } from './auth.js';

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
  /**
   * Whether principals have tenants; no default, since a token cannot tell. `required`: a token names
   * exactly one tenant in its tenant claim (a string, not `*`), or has {@link allTenantsRole} and no
   * tenant claim; any other token is refused. `none`: a token with a tenant claim is refused.
   */
  tenants: TenancyMode;
  /**
   * With `tenants: 'required'`, the role (in the roles claim) of all-tenants operators: a token with it
   * and without a tenant claim sees every tenant. With a tenant claim, the token is of that tenant: the
   * role never widens a tenant's own token. Default: no such role.
   */
  allTenantsRole?: string;
  /**
   * The longest a token may be valid, seconds: `exp - iat` (from now when `iat` is missing or ahead).
   * A token without `exp`, or valid for longer, is refused. Default 86400 (24 h); at most 30 days.
   */
  maxTokenLifetime?: number;
}

const JWT_OPTIONS = [
  'jwks',
  'issuer',
  'audience',
  'claims',
  'clockTolerance',
  'tenants',
  'allTenantsRole',
  'maxTokenLifetime',
] as const satisfies ReadonlyArray<keyof JwtAuthOptions>;

/** The default of {@link JwtAuthOptions.maxTokenLifetime}: 24 h. */
export const DEFAULT_MAX_TOKEN_LIFETIME = 24 * 3600;
/** The largest {@link JwtAuthOptions.maxTokenLifetime}: 30 days. */
export const MAX_TOKEN_LIFETIME = 30 * 24 * 3600;

const Strings = z.array(z.string()).catch([]);

/** A duration in seconds as people read it: whole hours where it is, else seconds. */
function duration(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`;
}

/** How a claim's value is named in a refusal, without quoting what may be long. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value !== 'string') return `a ${typeof value}`;
  if (value === '') return 'an empty string';
  if (value === ALL_TENANTS) return `"${ALL_TENANTS}": an all-tenants operator is configured, by role`;
  return `a string of ${value.length} characters`;
}

/** Why a token's lifetime is refused: no `exp`, or valid for longer than the bound. */
function lifetimeRefusal(payload: JWTPayload, max: number): string | undefined {
  if (typeof payload.exp !== 'number') return 'the token has no "exp" claim: this server takes only tokens that expire';
  const now = Math.floor(Date.now() / 1000);
  // An iat ahead of now would shorten the count: the token is valid from now on all the same.
  const fromIat = typeof payload.iat === 'number' && payload.iat <= now;
  const lifetime = payload.exp - (fromIat ? payload.iat! : now);
  if (lifetime <= max) return undefined;
  return (
    `the token is valid for ${duration(lifetime)} (exp - ${fromIat ? 'iat' : 'now'}), more than this server takes ` +
    `(${duration(max)}): get a shorter-lived token from the issuer`
  );
}

function checkOptions(options: JwtAuthOptions): number {
  rejectUnknownKeys('jwtAuth', options, JWT_OPTIONS);
  rejectUnknownKeys('jwtAuth claims', options.claims ?? {}, ['id', 'name', 'roles', 'groups', 'tenant']);
  if (!['required', 'none'].includes(options.tenants)) {
    throw new TypeError(
      'jwtAuth: say whether principals have tenants: tenants: "required" or "none" ' +
        `(not ${JSON.stringify(options.tenants) ?? 'undefined'})`,
    );
  }
  if (options.allTenantsRole !== undefined) {
    if (options.tenants !== 'required') throw new TypeError('jwtAuth: allTenantsRole needs tenants: "required"');
    const role: unknown = options.allTenantsRole;
    if (typeof role !== 'string' || role.length < 1 || role.length > 256) {
      throw new TypeError('jwtAuth: allTenantsRole is a role name of 1 to 256 characters');
    }
  }
  const max = options.maxTokenLifetime ?? DEFAULT_MAX_TOKEN_LIFETIME;
  if (!Number.isInteger(max) || max < 1 || max > MAX_TOKEN_LIFETIME) {
    throw new TypeError(
      `jwtAuth: maxTokenLifetime must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME} (30 days), ` +
        `not ${String(max)}`,
    );
  }
  return max;
}

/**
 * JWTs (RS256, ES256, EdDSA, ...) verified against the issuer's JWKS, with issuer and audience
 * checked, `exp` required and the lifetime bounded, and the tenant claim held to `tenants`.
 */
export function jwtAuth(options: JwtAuthOptions): Authenticator {
  const maxLifetime = checkOptions(options);
  const keys =
    typeof options.jwks === 'string' || options.jwks instanceof URL
      ? createRemoteJWKSet(new URL(options.jwks))
      : createLocalJWKSet(options.jwks);
  const names = { id: 'sub', name: 'name', roles: 'roles', groups: 'groups', tenant: 'tenant', ...options.claims };
  const { tenants, allTenantsRole } = options;

  /** The principal's tenant as the token and the mode say: a tenant, `*`, none; or the refusal. */
  const tenantOf = (payload: JWTPayload, roles: string[]): { tenant?: string } => {
    const claim = payload[names.tenant];
    if (tenants === 'none') {
      if (claim === undefined) return {};
      throw new UnauthenticatedError(
        `the token has a "${names.tenant}" claim, but this server has no tenants (tenancy: none)`,
      );
    }
    if (claim === undefined) {
      if (allTenantsRole !== undefined && roles.includes(allTenantsRole)) return { tenant: ALL_TENANTS };
      throw new UnauthenticatedError(`the token has no "${names.tenant}" claim, and this server requires a tenant`);
    }
    if (typeof claim === 'string' && claim !== '' && claim !== ALL_TENANTS && claim.length <= 256) {
      return { tenant: claim };
    }
    throw new UnauthenticatedError(
      `the token's "${names.tenant}" claim must name one tenant (a string of 1 to 256 characters, not ` +
        `"${ALL_TENANTS}"), not ${kindOf(claim)}`,
    );
  };

  const authenticate = async (request: Request): Promise<Principal | undefined> => {
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
    const tooLong = lifetimeRefusal(payload, maxLifetime);
    if (tooLong) throw new UnauthenticatedError(tooLong);
    const claim = (name: string): unknown => payload[name];
    const roles = Strings.parse(claim(names.roles));
    const parsed = PrincipalSchema.safeParse({
      id: claim(names.id),
      ...(typeof claim(names.name) === 'string' ? { name: claim(names.name) } : {}),
      roles,
      groups: Strings.parse(claim(names.groups)),
      ...tenantOf(payload, roles),
      via: 'http:jwt',
    });
    return parsed.success ? parsed.data : undefined;
  };
  const tenancy: Tenancy =
    tenants === 'none'
      ? { mode: 'none', detail: `JWT claim "${names.tenant}" refused` }
      : {
          mode: 'required',
          detail:
            `JWT claim "${names.tenant}"; ` +
            (allTenantsRole === undefined
              ? 'no all-tenants operator role'
              : `all-tenants operator role "${allTenantsRole}"`),
        };
  return Object.assign(authenticate, { tenancy });
}
