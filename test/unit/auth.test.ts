/**
 * The HTTP server's authenticators as an operator configures them and an attacker meets them: tenancy that
 * cannot fail open, JWTs that expire within a bound, and configuration errors that never print a token.
 */
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantCheck } from '../../src/approvals/access.js';
import { ALL_TENANTS, UnauthenticatedError, type Principal } from '../../src/index.js';
import {
  authenticatorFromEnv,
  bearerTokens,
  describeTenancy,
  jwtAuth,
  type Authenticator,
} from '../../src/server/index.js';

/** Any six characters in a row of the secret that the text quotes. */
function quotes(text: string, secret: string): string | undefined {
  for (let i = 0; i + 6 <= secret.length; i++) if (text.includes(secret.slice(i, i + 6))) return secret.slice(i, i + 6);
  return undefined;
}

const request = (token: string) => new Request('http://127.0.0.1/', { headers: { authorization: `Bearer ${token}` } });

/** What an authenticator makes of a token: the principal, nobody, or its refusal's reason. */
async function outcome(authenticate: Authenticator, token: string): Promise<Principal | undefined | string> {
  try {
    return await authenticate(request(token));
  } catch (err) {
    if (err instanceof UnauthenticatedError) return `refused: ${err.reason}`;
    throw err;
  }
}

describe('bearer tokens: tenancy', () => {
  it('refuses at start a token without a tenant where others name one, naming the entry and never the token', () => {
    const tokens = {
      'acme-token-000000000001': { id: 'ann', tenant: 'acme' },
      'loose-token-00000000002': { id: 'lou', roles: ['approver'] },
    };
    let message = '';
    try {
      bearerTokens(tokens);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      'bearerTokens: entry 2 of 2 (principal "lou") has no tenant, but this deployment has tenants (an entry ' +
        'names one): give it "tenant": "<its tenant>", or "tenant": "*" to make it an all-tenants operator',
    );
    expect(message).not.toContain('loose-token');
  });

  it('makes "tenant": "*" an all-tenants operator, and says the mode', async () => {
    const authenticate = bearerTokens({
      'acme-token-000000000001': { id: 'ann', tenant: 'acme' },
      'globex-token-0000000002': { id: 'bea', tenant: 'globex' },
      'ops-token-0000000000003': { id: 'ops', tenant: ALL_TENANTS },
    });
    expect(describeTenancy(authenticate)).toBe('tenancy: required (3 tokens, 1 all-tenants operator)');
    const ann = (await authenticate(request('acme-token-000000000001')))!;
    const ops = (await authenticate(request('ops-token-0000000000003')))!;
    expect(ops).toEqual({ id: 'ops', tenant: '*', via: 'http:bearer' });
    expect(tenantCheck(ops, 'acme').allowed).toBe(true);
    expect(tenantCheck(ops, 'globex').allowed).toBe(true);
    expect(tenantCheck(ann, 'acme').allowed).toBe(true);
    expect(tenantCheck(ann, 'globex')).toMatchObject({ allowed: false, type: 'NotAllowed' });
  });

  it('has no tenants where no entry names one, and holds an explicit mode to it', () => {
    expect(describeTenancy(bearerTokens({ 'dev-token-0000000000001': 'dev', 'dev-token-0000000000002': 'eve' }))).toBe(
      'tenancy: none (2 tokens)',
    );
    expect(describeTenancy(undefined)).toBe('tenancy: none (no authentication: loopback clients only)');
    expect(() =>
      bearerTokens({ 'acme-token-000000000001': { id: 'ann', tenant: 'acme' } }, { tenants: 'none' }),
    ).toThrow(
      'bearerTokens: entry 1 of 1 (principal "ann") names tenant "acme", but tenants: "none" says this deployment has none',
    );
    expect(() => bearerTokens({ 'dev-token-0000000000001': 'dev' }, { tenants: 'required' })).toThrow(
      /^bearerTokens: entry 1 of 1 \(principal "dev"\) has no tenant, but tenants are required/,
    );
    expect(() => bearerTokens({ 'dev-token-0000000000001': 'dev' }, { tennants: 'none' } as never)).toThrow(
      'bearerTokens: unknown option "tennants" (did you mean "tenants"?)',
    );
    const custom: Authenticator = async () => ({ id: 'x' });
    expect(describeTenancy(custom)).toBe(
      'tenancy: none (the authenticator declares no tenancy; a principal with a tenant is refused)',
    );
  });
});

describe('SERVER_TOKENS: a malformed value never prints a token', () => {
  const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
  const cases: Array<[string, string]> = [
    [`{"${SECRET}": {"id": "ann",}}`, 'SERVER_TOKENS is not JSON (at character 46)'],
    [`{"${SECRET}": x}`, 'SERVER_TOKENS is not JSON'],
    [`{"${SECRET}": {"id": ""}}`, 'SERVER_TOKENS entry 1 of 1: id: Too small: expected string to have >=1 characters'],
    [`{"a-token-of-sixteen-1": "ann", "${SECRET}": {"id": "bo", "tennant": "x"}}`, 'SERVER_TOKENS entry 2 of 2'],
    [`{"${SECRET}": 5}`, 'SERVER_TOKENS entry 1 of 1: give a principal id (a string) or a principal object'],
    [`["${SECRET}"]`, 'SERVER_TOKENS must be a JSON object of token to principal'],
    [`{"${SECRET.slice(0, 10)}": "ann"}`, 'SERVER_TOKENS entry 1 of 1: the token has 10 characters; a token needs'],
  ];
  it.each(cases)('%s', (value, expected) => {
    let message = '';
    try {
      authenticatorFromEnv({ SERVER_TOKENS: value });
    } catch (err) {
      message = `${(err as Error).message} ${String((err as Error).cause ?? '')}`;
    }
    expect(message).toContain(expected);
    expect(quotes(message, SECRET)).toBeUndefined();
  });

  it('takes a well-formed value, with its tenancy', () => {
    const authenticate = authenticatorFromEnv({
      SERVER_TOKENS: JSON.stringify({
        [SECRET]: { id: 'ann', tenant: 'acme' },
        'ops-token-0000000000003': { id: 'o', tenant: '*' },
      }),
    });
    expect(describeTenancy(authenticate)).toBe('tenancy: required (2 tokens, 1 all-tenants operator)');
  });
});

describe('JWTs', () => {
  const issuer = 'https://idp.example';
  const audience = 'durable-agents';
  let jwks: { keys: JWK[] };
  let sign: (
    claims: Record<string, unknown>,
    times?: { iat?: number | false; exp?: number | false },
  ) => Promise<string>;
  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
    sign = (claims, times = {}) => {
      const now = Math.floor(Date.now() / 1000);
      let jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject('jane');
      if (times.iat !== false) jwt = jwt.setIssuedAt(times.iat ?? now);
      if (times.exp !== false) jwt = jwt.setExpirationTime(times.exp ?? now + 300);
      return jwt.sign(privateKey);
    };
  });
  const auth = (options: Record<string, unknown> = {}) =>
    jwtAuth({ jwks, issuer, audience, tenants: 'required', ...options } as Parameters<typeof jwtAuth>[0]);
  const hours = (h: number) => Math.floor(Date.now() / 1000) + h * 3600;

  it('refuses a token without exp, or one that lives longer than the bound; takes a short-lived one', async () => {
    const authenticate = auth();
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }, { exp: false }))).toBe(
      'refused: the token has no "exp" claim: this server takes only tokens that expire',
    );
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }, { exp: hours(24 * 30) }))).toMatch(
      /^refused: the token is valid for 720 h \(exp - iat\), more than this server takes \(24 h\)/,
    );
    // Without iat, from now; with an iat in the future, from now too.
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }, { iat: false, exp: hours(48) }))).toMatch(
      /^refused: the token is valid for 48 h \(exp - now\)/,
    );
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }, { iat: hours(47), exp: hours(48) }))).toMatch(
      /^refused: the token is valid for 48 h \(exp - now\)/,
    );
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }))).toMatchObject({ id: 'jane', tenant: 'acme' });
    const week = auth({ maxTokenLifetime: 7 * 24 * 3600 });
    expect(await outcome(week, await sign({ tenant: 'acme' }, { exp: hours(48) }))).toMatchObject({ id: 'jane' });
    expect(describeTenancy(week)).toBe('tenancy: required (JWT claim "tenant"; no all-tenants operator role)');
  });

  it('in a deployment with tenants, refuses a token without exactly one tenant', async () => {
    const authenticate = auth();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /^refused: the token has no "tenant" claim, and this server requires a tenant/],
      [{ tenant: ['acme', 'globex'] }, /^refused: the token's "tenant" claim must name one tenant .*, not an array/],
      [{ tenant: '' }, /not an empty string/],
      [{ tenant: 7 }, /not a number/],
      [{ tenant: '*' }, /not "\*": an all-tenants operator is configured, by role/],
      [{ tenant: 'x'.repeat(300) }, /not a string of 300 characters/],
    ];
    for (const [claims, reason] of refusals) expect(await outcome(authenticate, await sign(claims))).toMatch(reason);
  });

  it('makes an all-tenants operator only of the configured role, and only without a tenant claim', async () => {
    const authenticate = auth({ allTenantsRole: 'ops' });
    expect(describeTenancy(authenticate)).toBe(
      'tenancy: required (JWT claim "tenant"; all-tenants operator role "ops")',
    );
    expect(await outcome(authenticate, await sign({ roles: ['ops'] }))).toMatchObject({ tenant: '*' });
    // A tenant's own "ops" is of that tenant: the claim confines, the role never widens it.
    expect(await outcome(authenticate, await sign({ roles: ['ops'], tenant: 'acme' }))).toMatchObject({
      tenant: 'acme',
    });
    expect(await outcome(authenticate, await sign({ roles: ['teller'] }))).toMatch(/no "tenant" claim/);
  });

  it('without tenants, refuses a token that names one', async () => {
    const authenticate = auth({ tenants: 'none' });
    expect(describeTenancy(authenticate)).toBe('tenancy: none (JWT claim "tenant" refused)');
    expect(await outcome(authenticate, await sign({}))).toMatchObject({ id: 'jane' });
    expect(await outcome(authenticate, await sign({ tenant: 'acme' }))).toMatch(
      /^refused: the token has a "tenant" claim, but this server has no tenants/,
    );
  });

  it('checks its options', () => {
    expect(() => jwtAuth({ jwks, issuer, audience } as never)).toThrow(
      'jwtAuth: say whether principals have tenants: tenants: "required" or "none" (not undefined)',
    );
    expect(() => auth({ maxTokenLifetime: 0 })).toThrow(/jwtAuth: maxTokenLifetime must be a whole number of seconds/);
    expect(() => auth({ tenants: 'none', allTenantsRole: 'ops' })).toThrow(
      /jwtAuth: allTenantsRole needs tenants: "required"/,
    );
    expect(() => auth({ maxTokenLifetme: 60 })).toThrow(
      /unknown option "maxTokenLifetme" \(did you mean "maxTokenLifetime"\?\)/,
    );
  });

  it('is configured by the environment, which must say the tenancy', async () => {
    const env = {
      SERVER_JWKS_URL: 'https://idp.example/jwks.json',
      SERVER_JWT_ISSUER: issuer,
      SERVER_JWT_AUDIENCE: audience,
    };
    expect(() => authenticatorFromEnv(env)).toThrow(/SERVER_JWT_TENANTS: say whether principals have tenants/);
    expect(() => authenticatorFromEnv({ ...env, SERVER_JWT_TENANTS: 'yes' })).toThrow(/SERVER_JWT_TENANTS/);
    expect(() =>
      authenticatorFromEnv({ ...env, SERVER_JWT_TENANTS: 'required', SERVER_JWT_MAX_LIFETIME: '1d' }),
    ).toThrow(/SERVER_JWT_MAX_LIFETIME: give seconds/);
    expect(() => authenticatorFromEnv({ ...env, SERVER_JWT_TENANTS: 'required', SERVER_JWT_TENANT: 'x' })).toThrow(
      /SERVER_JWT_TENANT is not a setting \(did you mean SERVER_JWT_TENANTS\?\)/,
    );
    expect(() =>
      authenticatorFromEnv({ ...env, SERVER_JWT_TENANTS: 'required', SERVER_DEV_TOKEN: 'dev-token-0000000000001' }),
    ).toThrow(
      /set one of SERVER_JWKS_URL, SERVER_TOKENS and SERVER_DEV_TOKEN, not SERVER_JWKS_URL and SERVER_DEV_TOKEN/,
    );
    expect(() =>
      authenticatorFromEnv({ SERVER_DEV_TOKEN: 'dev-token-0000000000001', SERVER_JWT_TENANTS: 'none' }),
    ).toThrow(/SERVER_JWT_TENANTS is set, but JWTs are not configured \(SERVER_JWKS_URL\)/);
    const authenticate = authenticatorFromEnv({
      ...env,
      SERVER_JWT_TENANTS: 'required',
      SERVER_JWT_ALL_TENANTS_ROLE: 'ops',
      SERVER_JWT_MAX_LIFETIME: '3600',
    });
    expect(describeTenancy(authenticate)).toBe(
      'tenancy: required (JWT claim "tenant"; all-tenants operator role "ops")',
    );
  });
});
