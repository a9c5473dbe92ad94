/**
 * Checks a decision's Ed25519 signature where the worker has decision keys: a local activity, since
 * the workflow sandbox has no crypto. Its verdict is recorded in the history like any activity's.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { acceptedBindings, signedText } from '../approvals/signed-decision.js';
import { errorMessage } from '../errors.js';
import type { VerifyDecisionInput, VerifyDecisionOutput } from './contracts.js';

/** Public keys of the approvers, by key id: PEM text or key objects. */
export type DecisionKeys = Record<string, string | KeyObject>;

/** The keys as Node key objects; a key that is not an Ed25519 public key is refused at start. */
export function decisionKeyObjects(keys: DecisionKeys): Map<string, KeyObject> {
  return new Map(
    Object.entries(keys).map(([keyId, key]) => {
      const object = typeof key === 'string' ? createPublicKey(key) : key;
      if (object.asymmetricKeyType !== 'ed25519') {
        throw new TypeError(
          `decision key "${keyId}" is ${object.asymmetricKeyType ?? 'not a public key'}, not Ed25519`,
        );
      }
      return [keyId, object];
    }),
  );
}

export function verifyDecision(keys: Map<string, KeyObject>, input: VerifyDecisionInput): VerifyDecisionOutput {
  const { decision, kind, runId, at } = input;
  const signature = decision.signature;
  if (!signature) return { ok: false, reason: 'the decision is not signed; this worker takes signed decisions only' };
  const key = keys.get(signature.keyId);
  if (!key) return { ok: false, reason: `no approver key "${signature.keyId}" on this worker` };
  if (Date.parse(signature.expiresAt) <= Date.parse(at)) {
    return { ok: false, reason: `the signature expired at ${signature.expiresAt}` };
  }
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
  let valid: boolean;
  try {
    const text = signedText(kind, decision, binding, signature.expiresAt);
    valid = verify(null, Buffer.from(text), key, Buffer.from(signature.value, 'base64'));
  } catch (err) {
    return { ok: false, reason: `the signature could not be checked: ${errorMessage(err)}` };
  }
  return valid
    ? { ok: true }
    : { ok: false, reason: `the signature does not match the decision (key "${signature.keyId}")` };
}
