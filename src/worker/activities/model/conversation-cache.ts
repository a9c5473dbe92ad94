/**
 * The worker's cache of run conversations, for model calls that carry the conversation by reference
 * (see workflows/conversation-ref.ts): bounded by bytes, least recently used first out.
 */
import type { Message } from '../../../schemas/message.js';
import { kib } from '../../../schemas/limits.js';
import type { ConversationAnswer } from '../../../protocol/run-messages.js';
import {
  EMPTY_DIGEST,
  nextDigest,
  setupDigest,
  type CallSetup,
  type SentSetup,
  type ConversationDelta,
  type ConversationRef,
} from '../../../workflows/run/conversation-ref.js';

/** What the worker keeps of run conversations by default: 64 MiB of JSON. */
export const DEFAULT_CONVERSATION_CACHE_BYTES = 64 * 1024 * 1024;

/** A run's conversation as the cache holds it: the digest and bytes of JSON of every prefix. */
export interface CachedConversation {
  messages: Message[];
  /** `digests[k]` names the first k messages (`digests[0]` is the empty digest). */
  digests: string[];
  /** `sizes[k]`: the bytes of JSON of the first k messages. */
  sizes: number[];
  /** The instructions and tools of the run's last model call that carried them. */
  setup?: SentSetup;
}

/** Bytes of JSON of a cached conversation. */
export function bytesOf(conversation: CachedConversation): number {
  const { setup } = conversation;
  const setupBytes = setup ? setup.instructions.length + JSON.stringify(setup.tools).length : 0;
  return conversation.sizes[conversation.messages.length]! + setupBytes;
}

/** `messages` as the cache holds them; `after` is a cached prefix of them, whose digests are not computed again. */
export function cachedConversation(
  messages: Message[],
  after?: CachedConversation,
  setup = after?.setup,
): CachedConversation {
  const digests = after ? after.digests.slice(0, after.messages.length + 1) : [EMPTY_DIGEST];
  const sizes = after ? after.sizes.slice(0, after.messages.length + 1) : [0];
  for (let i = digests.length - 1; i < messages.length; i++) {
    const json = JSON.stringify(messages[i]) ?? 'null';
    digests.push(nextDigest(digests[i]!, json));
    sizes.push(sizes[i]! + json.length);
  }
  return { messages, digests, sizes, ...(setup ? { setup } : {}) };
}

/** The first `count` messages of a cached conversation. */
function prefixOf(conversation: CachedConversation, count: number): CachedConversation {
  if (count === conversation.messages.length) return conversation;
  return {
    messages: conversation.messages.slice(0, count),
    digests: conversation.digests.slice(0, count + 1),
    sizes: conversation.sizes.slice(0, count + 1),
    ...(conversation.setup ? { setup: conversation.setup } : {}),
  };
}

/** Why `conversationCacheBytes` cannot be a cache's size, if it cannot. */
export function conversationCacheProblem(maxBytes: unknown): string | undefined {
  if (typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 0) return undefined;
  return `conversationCacheBytes must be a whole number of bytes >= 0, not ${String(maxBytes)}`;
}

export class ConversationCache {
  private readonly entries = new Map<string, CachedConversation>();
  private total = 0;

  constructor(readonly maxBytes = DEFAULT_CONVERSATION_CACHE_BYTES) {
    const problem = conversationCacheProblem(maxBytes);
    if (problem) throw new RangeError(problem);
  }

  /** Bytes of JSON held. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached prefix `ref` names, when the run's entry holds it (it is then the most recently used). */
  prefix(key: string, ref: ConversationRef): CachedConversation | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.digests[ref.count] !== ref.digest) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return prefixOf(entry, ref.count);
  }

  /**
   * Keeps `conversation` as the run's, in place of what it held; the least recently used runs go when
   * the cache is over its bound. A conversation larger than the whole cache is not kept.
   */
  put(key: string, conversation: CachedConversation): void {
    this.drop(key);
    const bytes = bytesOf(conversation);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, conversation);
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= bytesOf(entry);
    }
  }

  drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= bytesOf(entry);
  }
}

/** Why the messages a model call references could not be had. */
export class ConversationMismatchError extends Error {
  override readonly name = 'ConversationMismatchError';
}

/**
 * The whole conversation of a model call that carries it by reference, and its instructions and tools:
 * the referenced prefix (and the setup the call repeats) from the cache, or read from the run by `fetch`
 * (a query) and checked against the digests, then the messages the call added. `given` is the setup the
 * call carried whole. Also says where the prefix came from.
 */
export async function resolveConversation(
  cache: ConversationCache,
  key: string,
  delta: ConversationDelta,
  given: CallSetup | undefined,
  fetch: (count: number) => Promise<ConversationAnswer>,
): Promise<{ conversation: CachedConversation & { setup: SentSetup }; from: 'call' | 'cache' | 'run' }> {
  const { base, added, sameSetup } = delta;
  const cached = base.count === 0 ? cachedConversation([]) : cache.prefix(key, base);
  const setupHere = given ? { ...given, digest: setupDigest(given) } : cached?.setup;
  const setupOk = setupHere !== undefined && (sameSetup === undefined || setupHere.digest === sameSetup);
  let prefix = cached;
  let setup = setupOk ? setupHere : undefined;
  const from = cached && setup ? (base.count === 0 ? 'call' : 'cache') : 'run';
  if (!prefix || !setup) {
    const fetched = await fetch(base.count);
    const checked = cachedConversation(fetched.messages);
    if (fetched.messages.length !== base.count || checked.digests[base.count] !== base.digest) {
      throw new ConversationMismatchError(
        `the run answered ${fetched.messages.length} messages (${kib(bytesOf(checked))}) that do not match ` +
          `the ${base.count} this model call references (digest ${base.digest.slice(0, 12)}…)`,
      );
    }
    prefix = checked;
    if (!setup) {
      const answered = fetched.setup && { ...fetched.setup, digest: setupDigest(fetched.setup) };
      if (!answered || answered.digest !== sameSetup) {
        throw new ConversationMismatchError(
          `the run answered instructions and tools (digest ${answered?.digest.slice(0, 12) ?? 'none'}…) that ` +
            `do not match those this model call repeats (digest ${sameSetup?.slice(0, 12) ?? 'none'}…)`,
        );
      }
      setup = answered;
    }
  }
  const conversation = { ...cachedConversation([...prefix.messages, ...added], prefix, setup), setup };
  cache.put(key, conversation);
  return { conversation, from };
}
