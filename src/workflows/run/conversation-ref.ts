/**
 * The conversation by reference: a model call carries the messages that are new since the run's
 * previous call answered, and a reference to the rest, which the model activity finds in its worker's
 * cache or reads from the run by the `conversation` query. Pure and sandbox-safe: the workflow and the
 * activity compute the same digests.
 *
 * A reference names a prefix of the run's messages by its length and its digest: a SHA-256 chain over
 * the messages' JSON as the payload converter writes it (`JSON.stringify`, which drops undefined fields
 * and keeps key order), so the digest of a message is the same before and after it crossed the wire.
 */
import { sha256Hex } from '../../approvals/fingerprint.js';
import type { CallSetup, ConversationDelta, ConversationRef, SentSetup } from '../../protocol/activities.js';

export type { CallSetup, ConversationDelta, ConversationRef, SentSetup } from '../../protocol/activities.js';
import type { Message } from '../../schemas/message.js';

/** The digest of no messages. */
export const EMPTY_DIGEST = '';

/**
 * The digest of the messages so far followed by one more, given as its JSON: SHA-256 cut to 128 bits
 * (32 hex digits, sent with every call), which tells a stale cache entry from the run's messages.
 */
export function nextDigest(digest: string, messageJson: string): string {
  return sha256Hex(`${digest}\n${messageJson}`).slice(0, 32);
}

/** The digest of the first `count` messages. */
export function digestOf(messages: readonly Message[], count = messages.length): string {
  let digest = EMPTY_DIGEST;
  for (const message of messages.slice(0, count)) digest = nextDigest(digest, JSON.stringify(message) ?? 'null');
  return digest;
}

/**
 * The digest of a growing conversation, computed once per message: the workflow asks for it at every
 * model call. Messages are only added at the end once the first model call was made (a thread's earlier
 * messages come before it); a shorter prefix than the last one asked for is digested anew.
 */
export class ConversationDigest {
  private count = 0;
  private digest = EMPTY_DIGEST;

  /** The reference to the first `count` of `messages` (all of them by default). */
  refTo(messages: readonly Message[], count = messages.length): ConversationRef {
    if (count < this.count) return { count, digest: digestOf(messages, count) };
    for (let i = this.count; i < count; i++)
      this.digest = nextDigest(this.digest, JSON.stringify(messages[i]) ?? 'null');
    this.count = count;
    return { count, digest: this.digest };
  }
}

/** The digest of a call's instructions and tools, as JSON on the wire. */
export function setupDigest(setup: CallSetup): string {
  return nextDigest(EMPTY_DIGEST, JSON.stringify({ instructions: setup.instructions, tools: setup.tools }));
}

/**
 * The setup as a call carries it: whole when it differs from what the run sent last (the working memory
 * changed the instructions, or this is the run's first call), else by digest. Also what was sent whole.
 */
export function setupForCall(
  setup: CallSetup,
  sent: SentSetup | undefined,
): { carried: CallSetup | { sameSetup: string }; sent: SentSetup } {
  if (sent && sent.instructions === setup.instructions && sent.tools === setup.tools) {
    return { carried: { sameSetup: sent.digest }, sent };
  }
  return { carried: setup, sent: { ...setup, digest: setupDigest(setup) } };
}

/**
 * The conversation as a model call carries it: the messages after `sent` (what the run's previous call
 * held with its answer), or all of them when there is no such call (a run's first, or a base that is
 * not a prefix of the conversation any more).
 */
export function deltaOf(
  messages: readonly Message[],
  sent: ConversationRef | undefined,
  digest: ConversationDigest,
): ConversationDelta {
  const base =
    sent && sent.count <= messages.length && digest.refTo(messages, sent.count).digest === sent.digest
      ? sent
      : { count: 0, digest: EMPTY_DIGEST };
  return { base, added: messages.slice(base.count) };
}
