/**
 * The conversation by reference: what a model call carries (the delta), the digest the workflow and
 * the activity agree on, and the worker's cache (bounded by bytes, least recently used out).
 */
import { describe, expect, it } from 'vitest';
import {
  bytesOf,
  cachedConversation,
  ConversationCache,
  ConversationMismatchError,
  resolveConversation,
} from '../../src/activities/conversation-cache.js';
import type { Message } from '../../src/schemas/message.js';
import {
  ConversationDigest,
  deltaOf,
  digestOf,
  EMPTY_DIGEST,
  type ConversationRef,
} from '../../src/workflows/conversation-ref.js';

const user: Message = { role: 'user', content: 'Weather in Lyon?' };
const assistant: Message = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Lyon' } }],
};
const toolMessage: Message = {
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'json', value: 21 } }],
};
const answer: Message = { role: 'assistant', content: 'Sunny, 21 °C.' };
const conversation = [user, assistant, toolMessage, answer];

/** As the payload converter carries a value: JSON there and back. */
const wired = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('digest', () => {
  it('names a prefix by its messages, in order', () => {
    expect(digestOf([])).toBe(EMPTY_DIGEST);
    expect(digestOf(conversation, 2)).toBe(digestOf([user, assistant]));
    expect(digestOf([assistant, user])).not.toBe(digestOf([user, assistant]));
    expect(digestOf([user, { ...assistant, content: 'other' }])).not.toBe(digestOf([user, assistant]));
  });

  it('is the same on both sides of the wire (undefined fields dropped, key order kept)', () => {
    const withUndefined = { ...toolMessage, providerOptions: undefined } as Message;
    expect(digestOf([user, withUndefined])).toBe(digestOf(wired([user, withUndefined])));
    expect(digestOf([withUndefined])).toBe(digestOf([toolMessage]));
  });

  it('grows with the conversation as computed whole', () => {
    const digest = new ConversationDigest();
    const messages = [user];
    expect(digest.refTo(messages)).toEqual({ count: 1, digest: digestOf([user]) });
    messages.push(assistant, toolMessage);
    expect(digest.refTo(messages)).toEqual({ count: 3, digest: digestOf(messages) });
    // An earlier prefix is digested anew.
    expect(digest.refTo(messages, 1)).toEqual({ count: 1, digest: digestOf([user]) });
  });
});

describe('deltaOf', () => {
  it("carries everything on a run's first call", () => {
    const delta = deltaOf([user], undefined, new ConversationDigest());
    expect(delta).toEqual({ base: { count: 0, digest: EMPTY_DIGEST }, added: [user] });
  });

  it('carries only the messages after what the previous call held with its answer', () => {
    const digest = new ConversationDigest();
    const sent = digest.refTo([user, assistant]);
    const delta = deltaOf(conversation.slice(0, 3), sent, digest);
    expect(delta).toEqual({ base: { count: 2, digest: digestOf([user, assistant]) }, added: [toolMessage] });
  });

  it('carries everything when what was sent is not a prefix of the conversation', () => {
    const sent: ConversationRef = { count: 2, digest: digestOf([user, answer]) };
    expect(deltaOf(conversation, sent, new ConversationDigest()).added).toEqual(conversation);
    const longer: ConversationRef = { count: 9, digest: 'x' };
    expect(deltaOf(conversation, longer, new ConversationDigest()).base.count).toBe(0);
  });
});

describe('ConversationCache', () => {
  it('answers a prefix it holds, by count and digest only', () => {
    const cache = new ConversationCache();
    cache.put('run-1', cachedConversation(conversation));
    expect(cache.prefix('run-1', { count: 2, digest: digestOf(conversation, 2) })?.messages).toEqual([user, assistant]);
    expect(cache.prefix('run-1', { count: 4, digest: digestOf(conversation) })?.messages).toEqual(conversation);
    expect(cache.prefix('run-1', { count: 2, digest: digestOf([user, answer]) })).toBeUndefined();
    expect(cache.prefix('run-1', { count: 5, digest: digestOf(conversation) })).toBeUndefined();
    expect(cache.prefix('run-2', { count: 1, digest: digestOf([user]) })).toBeUndefined();
  });

  it('extends a cached prefix with the digests it has, the same as computed whole', () => {
    const prefix = cachedConversation([user, assistant]);
    expect(cachedConversation(conversation, prefix)).toEqual(cachedConversation(conversation));
    expect(bytesOf(cachedConversation(conversation))).toBe(
      conversation.reduce((n, m) => n + JSON.stringify(m).length, 0),
    );
  });

  it('keeps at most its bound, the least recently used out first', () => {
    const one = cachedConversation(conversation);
    const size = bytesOf(one);
    const cache = new ConversationCache(size * 2);
    cache.put('a', one);
    cache.put('b', one);
    expect(cache.prefix('a', { count: 1, digest: digestOf([user]) })).toBeDefined(); // a is now the most recent
    cache.put('c', one);
    expect([...['a', 'b', 'c']].filter((k) => cache.prefix(k, { count: 0, digest: EMPTY_DIGEST }))).toEqual(['a', 'c']);
    expect(cache.bytes).toBe(size * 2);
    expect(cache.size).toBe(2);
  });

  it("replaces a run's entry, and keeps nothing larger than itself", () => {
    const cache = new ConversationCache(bytesOf(cachedConversation(conversation)) - 1);
    cache.put('a', cachedConversation([user]));
    cache.put('a', cachedConversation([user, assistant]));
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(bytesOf(cachedConversation([user, assistant])));
    cache.put('b', cachedConversation(conversation));
    expect(cache.prefix('b', { count: 0, digest: EMPTY_DIGEST })).toBeUndefined();
  });
});

describe('resolveConversation', () => {
  const noFetch = (): Promise<Message[]> => Promise.reject(new Error('must not read the run'));

  it("takes a run's first call as it is, and caches it", async () => {
    const cache = new ConversationCache();
    const delta = deltaOf([user], undefined, new ConversationDigest());
    const resolved = await resolveConversation(cache, 'r', delta, noFetch);
    expect(resolved.from).toBe('call');
    expect(resolved.conversation.messages).toEqual([user]);
    expect(cache.prefix('r', { count: 1, digest: digestOf([user]) })).toBeDefined();
  });

  it('takes the referenced prefix from the cache', async () => {
    const cache = new ConversationCache();
    cache.put('r', cachedConversation(wired([user, assistant])));
    const digest = new ConversationDigest();
    const delta = deltaOf(conversation.slice(0, 3), digest.refTo([user, assistant]), digest);
    const resolved = await resolveConversation(cache, 'r', wired(delta), noFetch);
    expect(resolved).toMatchObject({ from: 'cache', conversation: { messages: conversation.slice(0, 3) } });
  });

  it('reads the prefix from the run on a miss, checks it, and caches it', async () => {
    const cache = new ConversationCache();
    const asked: number[] = [];
    const fetch = (count: number) => {
      asked.push(count);
      return Promise.resolve(wired(conversation.slice(0, count)));
    };
    const digest = new ConversationDigest();
    const delta = deltaOf(conversation.slice(0, 3), digest.refTo([user, assistant]), digest);
    const resolved = await resolveConversation(cache, 'r', delta, fetch);
    expect(resolved).toMatchObject({ from: 'run', conversation: { messages: conversation.slice(0, 3) } });
    expect(asked).toEqual([2]);
    const again = deltaOf(conversation.slice(0, 3), { count: 3, digest: digestOf(conversation, 3) }, digest);
    expect((await resolveConversation(cache, 'r', again, noFetch)).from).toBe('cache');
  });

  it('refuses messages from the run that do not match the reference', async () => {
    const cache = new ConversationCache();
    const delta = { base: { count: 2, digest: digestOf([user, assistant]) }, added: [toolMessage] };
    const other = () => Promise.resolve([user, answer]);
    await expect(resolveConversation(cache, 'r', delta, other)).rejects.toThrow(ConversationMismatchError);
    await expect(resolveConversation(cache, 'r', delta, other)).rejects.toThrow(
      /the run answered 2 messages \(.+\) that do not match the 2 this model call references/,
    );
    const short = () => Promise.resolve([user]);
    await expect(resolveConversation(cache, 'r', delta, short)).rejects.toThrow(/answered 1 messages/);
  });
});
