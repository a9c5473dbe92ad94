/**
 * `npm run server` (examples/server.ts) as an operator starts it: it says at start which tenancy it
 * enforces, and a malformed `SERVER_TOKENS` stops it with one line that names the problem and never a token.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { temporalAddress } from '../helpers.js';

/** Any six characters in a row of the secret that the text quotes. */
function quotes(text: string, secret: string): string | undefined {
  for (let i = 0; i + 6 <= secret.length; i++) if (text.includes(secret.slice(i, i + 6))) return secret.slice(i, i + 6);
  return undefined;
}

/** Starts examples/server.ts; resolves with its output once it listens (and kills it), or when it exits. */
function startServerProcess(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server.ts'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: 'default',
      PORT: '0',
      SERVER_DEV_TOKEN: '',
      SERVER_TOKENS: '',
      SERVER_JWKS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const onData = (d: Buffer): void => {
      output += d.toString();
      if (/server: listening on/.test(output)) {
        child.kill('SIGKILL');
        resolve({ code: null, output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('npm run server', () => {
  const SECRET = 'sk-live-0a1b2c3d4e5f60718293';

  it('stops on a malformed SERVER_TOKENS with one line that names the entry, never the token', async () => {
    for (const [value, reason] of [
      [`{"${SECRET}": {"id": "ann", "tennant": "acme"}}`, /^server: SERVER_TOKENS entry 1 of 1: .*"tennant"/],
      [`{"${SECRET}": x}`, /^server: SERVER_TOKENS is not JSON/],
      [
        `{"${SECRET}": {"id": "ann", "tenant": "acme"}, "a-second-token-0001": "bo"}`,
        /entry 2 of 2 \(principal "bo"\)/,
      ],
    ] as const) {
      const { code, output } = await startServerProcess({ SERVER_TOKENS: value });
      expect(code).toBe(1);
      expect(output).toMatch(reason);
      expect(output.trim().split('\n')).toHaveLength(1);
      expect(quotes(output, SECRET)).toBeUndefined();
    }
  });

  it('says at start which tenancy it enforces', async () => {
    const tokens = {
      [SECRET]: { id: 'ann', tenant: 'acme' },
      'globex-token-0000000002': { id: 'bea', tenant: 'globex' },
      'ops-token-0000000000003': { id: 'ops', tenant: '*' },
    };
    const withTenants = await startServerProcess({ SERVER_TOKENS: JSON.stringify(tokens) });
    expect(withTenants.output).toContain('server: tenancy: required (3 tokens, 1 all-tenants operator)\n');
    expect(withTenants.output).not.toContain(SECRET);
    const dev = await startServerProcess({ SERVER_DEV_TOKEN: SECRET });
    expect(dev.output).toContain('server: tenancy: none (1 token)\n');
  });
});
