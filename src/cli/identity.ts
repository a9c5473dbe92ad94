/**
 * Who agentctl acts as. `--as` names an id and nothing more. Roles, groups and a tenant come only with
 * `--identity`: the approvers' keys file the workers trust (the `DECISION_PUBLIC_KEYS` format), whose
 * entry for the operator's signing key names the principal. Neither a flag nor an operator's own copy of
 * that file can grant a role: decisions go signed, and the workers check each one's principal against
 * their own binding of the key (`verifyDecision`), so only whoever configures the workers says who has
 * which role. A Temporal profile could not carry them as safely: whoever can type a flag can point
 * `--profile` (or `TEMPORAL_CONFIG_FILE`) at a file they wrote, and nothing on the worker would know.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { readDecisionKeys } from '../connection/decision-keys.js';
import { errorMessage, InvalidInputError, RequestRefusedError } from '../errors.js';
import { kib } from '../schemas/limits.js';
import type { GlobalOptions } from './common.js';
import { asOption } from './input.js';
import type { PrincipalInput } from '../client/identity.js';
import { signingKeyFromEnv, type SigningKey } from '../client/decisions/signing.js';

/** A keys file holds public keys and principals: this is far more than any needs. */
const MAX_IDENTITY_FILE_BYTES = 1024 * 1024;

/** Who the client acts as, and the key its decisions are signed with. */
export interface OperatorIdentity {
  principal?: PrincipalInput;
  signingKey?: SigningKey;
}

/** The operator's principal and signing key from agentctl's flags and environment, each checked. */
export async function operatorIdentity(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OperatorIdentity> {
  const as =
    g.as !== undefined ? asOption(g.as) : env.AGENTCTL_AS ? asOption(env.AGENTCTL_AS, 'AGENTCTL_AS') : undefined;
  const keyFile = g.signingKey ?? env.DECISION_SIGNING_KEY;
  const signingKey = g.signingKey ? await signingKeyOption(g.signingKey, g.keyId, env) : signingKeyFromEnv(env);
  const identityFile = g.identity ?? env.AGENTCTL_IDENTITY;
  if (!identityFile) return { ...(as ? { principal: as } : {}), ...(signingKey ? { signingKey } : {}) };
  if (!signingKey || !keyFile) {
    throw new InvalidInputError(
      '--identity',
      'names who you are by your signing key: give --signing-key FILE and --key-id ID ' +
        '(or DECISION_SIGNING_KEY and DECISION_SIGNING_KEY_ID)',
    );
  }
  const keys = await identityKeys(identityFile);
  const { keyId } = signingKey;
  const entry = Object.hasOwn(keys, keyId) ? keys[keyId] : undefined;
  if (entry === undefined || typeof entry === 'string') {
    throw new InvalidInputError(
      `--identity ${identityFile}`,
      `binds no principal to key "${keyId}" (${entry === undefined ? 'no such key' : 'a key for any principal'}); ` +
        'ask whoever configures the workers to bind it ({"publicKey": …, "principal": {"id": …}})',
    );
  }
  if (!sameKey(signingKey.privateKey, entry.publicKey)) {
    throw new InvalidInputError(`--signing-key ${keyFile}`, `is not the key "${keyId}" of ${identityFile}`);
  }
  if (as !== undefined && as !== entry.principal.id) {
    throw new InvalidInputError(
      g.as !== undefined ? '--as' : 'AGENTCTL_AS',
      `"${as}" is not who key "${keyId}" is: ${entry.principal.id}; leave --as out`,
    );
  }
  return { principal: entry.principal, signingKey };
}

/** `--signing-key FILE` with `--key-id` (or `DECISION_SIGNING_KEY_ID`). */
async function signingKeyOption(file: string, keyId: string | undefined, env: NodeJS.ProcessEnv): Promise<SigningKey> {
  const id = keyId ?? env.DECISION_SIGNING_KEY_ID;
  if (!id) throw new RequestRefusedError('IdentityRequired', '--signing-key needs --key-id, the id workers know it by');
  const privateKey = await readFile(file, 'utf8').catch((e: Error) => {
    throw new InvalidInputError(`--signing-key ${file}`, `cannot be read: ${errorMessage(e)}`);
  });
  return { keyId: id, privateKey };
}

async function identityKeys(file: string) {
  const where = `--identity ${file}`;
  const size = await stat(file).then(
    (s) => s.size,
    (e: Error) => {
      throw new InvalidInputError(where, `cannot be read: ${errorMessage(e)}`);
    },
  );
  if (size > MAX_IDENTITY_FILE_BYTES) {
    throw new InvalidInputError(
      where,
      `is ${kib(size)}; a keys file has at most ${kib(MAX_IDENTITY_FILE_BYTES)}`,
      true,
    );
  }
  const text = await readFile(file, 'utf8').catch((e: Error) => {
    throw new InvalidInputError(where, `cannot be read: ${errorMessage(e)}`);
  });
  const read = readDecisionKeys(text);
  if ('problem' in read) throw new InvalidInputError(where, `is not the approvers' keys file: ${read.problem}`);
  return read.keys;
}

/** Whether the private key is the one of this public key (a key that does not parse is not). */
function sameKey(privateKey: string | KeyObject, publicKey: string): boolean {
  try {
    const own = createPublicKey(typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey);
    const listed = createPublicKey(publicKey);
    return own.export({ type: 'spki', format: 'der' }).equals(listed.export({ type: 'spki', format: 'der' }));
  } catch {
    return false;
  }
}
