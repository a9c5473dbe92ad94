/**
 * The approvers' public keys, as workers and `agentctl --identity` read them. Apart from config.ts, which
 * the client's entry loads: checking the file takes zod, which the client loads only when a call needs it.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PrincipalSchema } from '../schemas/access.js';

/** A key bound to who holds it, as the keys file gives it (see `BoundDecisionKey`). */
const BoundKeyEntrySchema = z
  .object({ publicKey: z.string(), principal: PrincipalSchema.omit({ via: true }) })
  .strict();

/**
 * The approvers' keys file: key id to Ed25519 public key (PEM), or to `{ publicKey, principal }` for a
 * key bound to who holds it. Workers read it from `DECISION_PUBLIC_KEYS`; `agentctl --identity` reads
 * the same file.
 */
export type DecisionKeysFile = Record<string, string | z.infer<typeof BoundKeyEntrySchema>>;

/** The keys file's text, checked: the keys, or what is wrong with it (naming fields, never quoting a key). */
export function readDecisionKeys(text: string): { keys: DecisionKeysFile } | { problem: string } {
  const shape = 'give {"<key id>": "<PEM>" or {"publicKey": "<PEM>", "principal": {"id": …, "roles"?: […]}}}';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: `not JSON; ${shape}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { problem: shape };
  // No prototype: a key id "__proto__" is a key id like any other.
  const keys: DecisionKeysFile = Object.create(null) as DecisionKeysFile;
  const problems: string[] = [];
  for (const [keyId, entry] of Object.entries(json)) {
    if (keyId.length === 0 || keyId.length > 256) problems.push(`a key id of ${keyId.length} characters (1 to 256)`);
    if (typeof entry === 'string') {
      keys[keyId] = entry;
      continue;
    }
    const parsed = BoundKeyEntrySchema.safeParse(entry);
    if (parsed.success) keys[keyId] = parsed.data;
    // zod's messages name what was expected, never the value given (a key, say).
    else problems.push(...parsed.error.issues.map((i) => `${[keyId, ...i.path].join('.')}: ${i.message}`));
  }
  return problems.length > 0 ? { problem: `${shape}: ${problems.join('; ')}` } : { keys };
}

/** The approvers' public keys the environment names: `DECISION_PUBLIC_KEYS`, a JSON file or the JSON itself. */
export function decisionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): DecisionKeysFile | undefined {
  const source = env.DECISION_PUBLIC_KEYS;
  if (!source) return undefined;
  const text = source.trimStart().startsWith('{') ? source : readFileSync(source, 'utf8');
  const read = readDecisionKeys(text);
  if ('problem' in read) throw new TypeError(`DECISION_PUBLIC_KEYS: ${read.problem}`);
  return read.keys;
}
