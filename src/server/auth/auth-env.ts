/**
 * The authenticator the environment configures: one of JWTs (`SERVER_JWKS_URL` and its `SERVER_JWT_*`
 * settings), `SERVER_TOKENS` or `SERVER_DEV_TOKEN`. Every error names the variable and what is wrong
 * with it, and never quotes a token: configuration errors end up in logs.
 */
import { errorMessage } from '../../errors.js';
import { nearestKey } from '../../options.js';
import { tokensAuthenticator, type Authenticator, type TenancyMode } from './auth.js';
import { DEFAULT_MAX_TOKEN_LIFETIME, jwtAuth, MAX_TOKEN_LIFETIME } from './jwt-auth.js';

const SOURCES = ['SERVER_JWKS_URL', 'SERVER_TOKENS', 'SERVER_DEV_TOKEN'] as const;
const JWT_SETTINGS = [
  'SERVER_JWT_ISSUER',
  'SERVER_JWT_AUDIENCE',
  'SERVER_JWT_TENANTS',
  'SERVER_JWT_ALL_TENANTS_ROLE',
  'SERVER_JWT_MAX_LIFETIME',
];

/** `SERVER_TOKENS`: a JSON object of token to principal (or principal id). */
function tokensFromEnv(text: string): Authenticator {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the error, which may be a token: only the position is told.
    const at = /at position (\d+)/.exec(errorMessage(err))?.[1];
    // eslint-disable-next-line preserve-caught-error -- the cause's message quotes the text: a token, maybe
    throw new TypeError(
      `SERVER_TOKENS is not JSON${at ? ` (at character ${at})` : ''}; give ` +
        '{"<token>": {"id": "alice", "tenant": "acme"}, ...}',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw new TypeError(
      `SERVER_TOKENS must be a JSON object of token to principal, like {"<token>": {"id": "alice"}}, not ${kind}`,
    );
  }
  const n = Object.keys(value).length;
  return tokensAuthenticator(value as Record<string, unknown>, {}, (i) => `SERVER_TOKENS entry ${i + 1} of ${n}`);
}

/** `SERVER_JWKS_URL` and its settings. */
function jwtFromEnv(jwks: string, setting: (name: string) => string | undefined): Authenticator {
  const issuer = setting('SERVER_JWT_ISSUER');
  const audience = setting('SERVER_JWT_AUDIENCE');
  if (!issuer || !audience) throw new TypeError('SERVER_JWKS_URL needs SERVER_JWT_ISSUER and SERVER_JWT_AUDIENCE');
  const tenants = setting('SERVER_JWT_TENANTS');
  if (tenants !== 'required' && tenants !== 'none') {
    throw new TypeError(
      'SERVER_JWT_TENANTS: say whether principals have tenants: "required" (every token names one in its ' +
        '"tenant" claim, or has the role SERVER_JWT_ALL_TENANTS_ROLE) or "none" (a token with a "tenant" claim is ' +
        `refused)${tenants === undefined ? '' : `, not "${tenants}"`}`,
    );
  }
  const lifetime = setting('SERVER_JWT_MAX_LIFETIME');
  if (lifetime !== undefined && (!/^\d{1,10}$/.test(lifetime) || +lifetime < 1 || +lifetime > MAX_TOKEN_LIFETIME)) {
    throw new TypeError(
      `SERVER_JWT_MAX_LIFETIME: give seconds, a whole number from 1 to ${MAX_TOKEN_LIFETIME} (30 days; the ` +
        `default is ${DEFAULT_MAX_TOKEN_LIFETIME}, 24 h), not "${lifetime}"`,
    );
  }
  const role = setting('SERVER_JWT_ALL_TENANTS_ROLE');
  if (role !== undefined && tenants !== 'required') {
    throw new TypeError('SERVER_JWT_ALL_TENANTS_ROLE needs SERVER_JWT_TENANTS=required');
  }
  return jwtAuth({
    jwks,
    issuer,
    audience,
    tenants: tenants satisfies TenancyMode,
    ...(role !== undefined ? { allTenantsRole: role } : {}),
    ...(lifetime !== undefined ? { maxTokenLifetime: Number(lifetime) } : {}),
  });
}

/**
 * The authenticator the environment configures, if any: exactly one of `SERVER_JWKS_URL` (JWTs, with
 * `SERVER_JWT_ISSUER`, `SERVER_JWT_AUDIENCE` and `SERVER_JWT_TENANTS` = `required` or `none`; optionally
 * `SERVER_JWT_ALL_TENANTS_ROLE` and `SERVER_JWT_MAX_LIFETIME`, seconds), `SERVER_TOKENS` (JSON: token to
 * principal; tenants required where an entry names one) or `SERVER_DEV_TOKEN` (one token for a
 * principal `dev`). An empty variable counts as unset; a `SERVER_JWT_*` variable we do not know, or one
 * without `SERVER_JWKS_URL`, is an error.
 */
export function authenticatorFromEnv(env: NodeJS.ProcessEnv = process.env): Authenticator | undefined {
  const setting = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const jwtSettings = Object.keys(env).filter((k) => k.startsWith('SERVER_JWT_') && setting(k) !== undefined);
  for (const name of jwtSettings) {
    if (JWT_SETTINGS.includes(name)) continue;
    const near = nearestKey(name, JWT_SETTINGS);
    throw new TypeError(
      `${name} is not a setting (${near ? `did you mean ${near}?` : `known: ${JWT_SETTINGS.join(', ')}`})`,
    );
  }
  const sources = SOURCES.filter((name) => setting(name) !== undefined);
  if (sources.length > 1) {
    throw new TypeError(
      `set one of ${SOURCES.slice(0, -1).join(', ')} and ${SOURCES.at(-1)}, not ${sources.join(' and ')}`,
    );
  }
  const jwks = setting('SERVER_JWKS_URL');
  if (jwks !== undefined) return jwtFromEnv(jwks, setting);
  if (jwtSettings.length > 0) {
    const are = jwtSettings.length === 1 ? 'is' : 'are';
    throw new TypeError(`${jwtSettings.join(', ')} ${are} set, but JWTs are not configured (SERVER_JWKS_URL)`);
  }
  const tokens = setting('SERVER_TOKENS');
  if (tokens !== undefined) return tokensFromEnv(tokens);
  const devToken = setting('SERVER_DEV_TOKEN');
  if (devToken === undefined) return undefined;
  return tokensAuthenticator({ [devToken]: { id: 'dev', name: 'development token' } }, {}, () => 'SERVER_DEV_TOKEN');
}
