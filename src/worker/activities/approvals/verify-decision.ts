/**
 * Checks a decision's Ed25519 signature where the worker has decision keys: a local activity, since
 * the workflow sandbox has no crypto. Its verdict is recorded in the history like any activity's.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { acceptedBindings, signedMessageText, signedText } from '../../../approvals/signed-decision.js';
import { errorMessage } from '../../../errors.js';
import { PrincipalSchema, type Principal } from '../../../schemas/access.js';
import { oneLine } from '../../../schemas/json.js';
import type {
  VerifyDecisionInput,
  VerifyDecisionOutput,
  VerifyMessageInput,
} from '../../../protocol/approval-activities.js';

/** Who a key belongs to, as the worker knows it (`via` is how a decision came, never the key's). */
export type KeyPrincipal = Omit<Principal, 'via'>;

/**
 * An approver's key bound to who the approver is: a decision signed with it must name that principal,
 * with no role, group or tenant it does not have. This is how an operator's roles reach a run from
 * `agentctl` (`--identity`): the workers' configuration says them, not a flag or a file the operator holds.
 */
export interface BoundDecisionKey {
  publicKey: string | KeyObject;
  principal: KeyPrincipal;
}

/**
 * Public keys of the approvers, by key id: PEM text or key objects, or bound to a principal. An unbound
 * key signs for any principal (a server's, which signs for the principals it authenticated).
 */
export type DecisionKeys = Record<string, string | KeyObject | BoundDecisionKey>;

/** A key as the worker checks with it. */
export interface TrustedKey {
  key: KeyObject;
  principal?: KeyPrincipal;
}

const KeyPrincipalSchema = PrincipalSchema.omit({ via: true });

/** The keys as Node key objects; a key that is not an Ed25519 public key, or a bad principal, is refused at start. */
export function decisionKeyObjects(keys: DecisionKeys): Map<string, TrustedKey> {
  return new Map(
    Object.entries(keys).map(([keyId, entry]) => {
      const bound = typeof entry === 'object' && 'publicKey' in entry ? entry : undefined;
      const given = bound ? bound.publicKey : (entry as string | KeyObject);
      const key = typeof given === 'string' ? createPublicKey(given) : given;
      if (key.asymmetricKeyType !== 'ed25519') {
        throw new TypeError(`decision key "${keyId}" is ${key.asymmetricKeyType ?? 'not a public key'}, not Ed25519`);
      }
      if (!bound) return [keyId, { key }];
      const principal = KeyPrincipalSchema.safeParse(bound.principal);
      if (!principal.success) {
        throw new TypeError(`decision key "${keyId}": principal: ${oneLine(principal.error.issues)}`);
      }
      return [keyId, { key, principal: principal.data }];
    }),
  );
}

/**
 * Why a decision signed with a key bound to `bound` may not name `claimed`, if it may not: another id, a
 * role or group the key's principal does not have, or another tenant (none included).
 */
export function boundPrincipalProblem(
  keyId: string,
  bound: KeyPrincipal,
  claimed: Principal | undefined,
): string | undefined {
  const whose = `key "${keyId}" is ${bound.id}'s`;
  if (!claimed) return `${whose}; a decision signed with it names no principal`;
  if (claimed.id !== bound.id) return `${whose}, not ${claimed.id}'s`;
  for (const [what, have, claims] of [
    ['role', bound.roles ?? [], claimed.roles ?? []],
    ['group', bound.groups ?? [], claimed.groups ?? []],
  ] as const) {
    const extra = claims.filter((c) => !have.includes(c));
    if (extra.length > 0) return `${whose}, who has no ${what} ${extra.join(', ')}`;
  }
  if (claimed.tenant !== bound.tenant) {
    const tenant = (t: string | undefined) => (t ? `of tenant ${t}` : 'of no tenant');
    return `${whose}, ${tenant(bound.tenant)}, not ${tenant(claimed.tenant)}`;
  }
  return undefined;
}

export function verifyDecision(keys: Map<string, TrustedKey>, input: VerifyDecisionInput): VerifyDecisionOutput {
  const { decision, kind, runId, at } = input;
  const signature = decision.signature;
  if (!signature) return { ok: false, reason: 'the decision is not signed; this worker takes signed decisions only' };
  const binding = { runId: signature.runId, toolCallId: signature.toolCallId };
  const genuine = acceptedBindings(runId, decision.toolCallId ?? '').some(
    (b) => b.runId === binding.runId && b.toolCallId === binding.toolCallId,
  );
  if (!genuine) {
    return {
      ok: false,
      reason: `the signature is for tool call ${binding.toolCallId} of run ${binding.runId}, not this one`,
    };
  }
  return checkSignature(keys, signature, at, decision.principal, () =>
    signedText(kind, decision, binding, signature.expiresAt),
  );
}

/** A message to a working run, where the run takes signed decisions only: signed for this run, by whom it names. */
export function verifyMessage(keys: Map<string, TrustedKey>, input: VerifyMessageInput): VerifyDecisionOutput {
  const { message, runId, at } = input;
  const signature = message.signature;
  if (!signature) return { ok: false, reason: 'the message is not signed; this run takes signed messages only' };
  if (signature.runId !== runId)
    return { ok: false, reason: `the signature is for run ${signature.runId}, not this one` };
  return checkSignature(keys, signature, at, message.principal, () =>
    signedMessageText(message, runId, signature.expiresAt),
  );
}

/** The checks every signature gets: a key this worker knows, not expired, genuine, and for whom its key is bound to. */
function checkSignature(
  keys: Map<string, TrustedKey>,
  signature: { keyId: string; expiresAt: string; value: string },
  at: string,
  claimed: Principal | undefined,
  text: () => string,
): VerifyDecisionOutput {
  const trusted = keys.get(signature.keyId);
  if (!trusted) return { ok: false, reason: `no approver key "${signature.keyId}" on this worker` };
  const { key, principal } = trusted;
  if (Date.parse(signature.expiresAt) <= Date.parse(at)) {
    return { ok: false, reason: `the signature expired at ${signature.expiresAt}` };
  }
  let valid: boolean;
  try {
    valid = verify(null, Buffer.from(text()), key, Buffer.from(signature.value, 'base64'));
  } catch (err) {
    return { ok: false, reason: `the signature could not be checked: ${errorMessage(err)}` };
  }
  if (!valid) return { ok: false, reason: `the signature does not match what it signs (key "${signature.keyId}")` };
  // The signature covers the principal's id; what it claims beside (roles, groups, tenant) is the binding's to say.
  const problem = principal && boundPrincipalProblem(signature.keyId, principal, claimed);
  return problem ? { ok: false, reason: problem } : { ok: true };
}
