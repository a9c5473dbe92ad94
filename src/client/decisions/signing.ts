/** Signing decisions with an approver's Ed25519 private key, for workers that take signed decisions only. */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signedMessageText, signedText } from '../../approvals/signed-decision.js';
import type { DecisionKind, DecisionSignal } from '../../schemas/decisions.js';
import type { RunMessageRequest } from '../../schemas/run-message.js';

/** An approver's key: its id (as the worker knows the public key) and the private key (PEM or key object). */
export interface SigningKey {
  keyId: string;
  privateKey: string | KeyObject;
  /** How long a signature holds, ms (default 5 minutes): a captured decision is useless after. */
  ttlMs?: number;
}

/** The key the environment names: `DECISION_SIGNING_KEY` (a PEM file) and `DECISION_SIGNING_KEY_ID`. */
export function signingKeyFromEnv(env: NodeJS.ProcessEnv = process.env): SigningKey | undefined {
  const file = env.DECISION_SIGNING_KEY;
  if (!file) return undefined;
  const keyId = env.DECISION_SIGNING_KEY_ID;
  if (!keyId) throw new TypeError('DECISION_SIGNING_KEY needs DECISION_SIGNING_KEY_ID, the id the workers know it by');
  return { keyId, privateKey: readFileSync(file, 'utf8') };
}

/** The decision with its signature, bound to this run and call. */
export function signDecision(
  key: SigningKey,
  kind: DecisionKind,
  decision: DecisionSignal,
  binding: { runId: string; toolCallId: string },
  now = Date.now(),
): DecisionSignal {
  const privateKey = typeof key.privateKey === 'string' ? createPrivateKey(key.privateKey) : key.privateKey;
  const expiresAt = new Date(now + (key.ttlMs ?? 5 * 60_000)).toISOString();
  const value = sign(null, Buffer.from(signedText(kind, decision, binding, expiresAt)), privateKey).toString('base64');
  return { ...decision, signature: { keyId: key.keyId, ...binding, expiresAt, value } };
}

/** A message to a working run with its signature, bound to that run (see `signedMessageText`). */
export function signMessage(
  key: SigningKey,
  message: RunMessageRequest,
  runId: string,
  now = Date.now(),
): RunMessageRequest {
  const privateKey = typeof key.privateKey === 'string' ? createPrivateKey(key.privateKey) : key.privateKey;
  const expiresAt = new Date(now + (key.ttlMs ?? 5 * 60_000)).toISOString();
  const value = sign(null, Buffer.from(signedMessageText(message, runId, expiresAt)), privateKey).toString('base64');
  return { ...message, signature: { keyId: key.keyId, runId, expiresAt, value } };
}
