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
} from '../../src/worker/activities/model/conversation-cache.js';
import type { Message } from '../../src/schemas/message.js';
import {
  ConversationDigest,
  deltaOf,
  digestOf,
  EMPTY_DIGEST,
  setupDigest,
  setupForCall,
  type CallSetup,
  type ConversationRef,
} from '../../src/workflows/run/conversation-ref.js';
import type { ConversationAnswer } from '../../src/protocol/run-messages.js';

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

  it('refuses a bound that is not a whole number of bytes', () => {
    expect(() => new ConversationCache(-1)).toThrow(
      'conversationCacheBytes must be a whole number of bytes >= 0, not -1',
    );
    expect(() => new ConversationCache(Number.NaN)).toThrow(/not NaN/);
    expect(new ConversationCache(0).maxBytes).toBe(0);
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
  const noFetch = (): Promise<ConversationAnswer> => Promise.reject(new Error('must not read the run'));
  const setup: CallSetup = {
    instructions: 'Be brief.',
    tools: [{ name: 'weather', description: 'd', inputSchema: {} }],
  };
  const sentSetup = { ...setup, digest: setupDigest(setup) };
  const fromRun =
    (messages: Message[], asked: number[] = []) =>
    (count: number) => {
      asked.push(count);
      return Promise.resolve(wired({ messages: messages.slice(0, count), setup: sentSetup }));
    };

  it("takes a run's first call as it is, and caches it", async () => {
    const cache = new ConversationCache();
    const delta = deltaOf([user], undefined, new ConversationDigest());
    const resolved = await resolveConversation(cache, 'r', delta, setup, noFetch);
    expect(resolved.from).toBe('call');
    expect(resolved.conversation).toMatchObject({ messages: [user], setup: sentSetup });
    expect(cache.prefix('r', { count: 1, digest: digestOf([user]) })?.setup).toEqual(sentSetup);
  });

  it('takes the referenced prefix and the repeated instructions and tools from the cache', async () => {
    const cache = new ConversationCache();
    cache.put('r', cachedConversation(wired([user, assistant]), undefined, sentSetup));
    const digest = new ConversationDigest();
    const delta = deltaOf(conversation.slice(0, 3), digest.refTo([user, assistant]), digest);
    const resolved = await resolveConversation(
      cache,
      'r',
      wired({ ...delta, sameSetup: sentSetup.digest }),
      undefined,
      noFetch,
    );
    expect(resolved).toMatchObject({ from: 'cache', conversation: { messages: conversation.slice(0, 3), setup } });
  });

  it('reads the prefix from the run on a miss, checks it, and caches it', async () => {
    const cache = new ConversationCache();
    const asked: number[] = [];
    const digest = new ConversationDigest();
    const delta = deltaOf(conversation.slice(0, 3), digest.refTo([user, assistant]), digest);
    const repeated = { ...delta, sameSetup: sentSetup.digest };
    const resolved = await resolveConversation(cache, 'r', repeated, undefined, fromRun(conversation, asked));
    expect(resolved).toMatchObject({ from: 'run', conversation: { messages: conversation.slice(0, 3), setup } });
    expect(asked).toEqual([2]);
    const again = deltaOf(conversation.slice(0, 3), { count: 3, digest: digestOf(conversation, 3) }, digest);
    expect(
      (await resolveConversation(cache, 'r', { ...again, sameSetup: sentSetup.digest }, undefined, noFetch)).from,
    ).toBe('cache');
  });

  it('reads the run when the cache holds the messages but other instructions and tools', async () => {
    const cache = new ConversationCache();
    const other = { ...setup, instructions: 'Be long.' };
    cache.put('r', cachedConversation([user, assistant], undefined, { ...other, digest: setupDigest(other) }));
    const asked: number[] = [];
    const delta = {
      base: { count: 2, digest: digestOf([user, assistant]) },
      added: [toolMessage],
      sameSetup: sentSetup.digest,
    };
    const resolved = await resolveConversation(cache, 'r', delta, undefined, fromRun(conversation, asked));
    expect(resolved).toMatchObject({ from: 'run', conversation: { setup } });
    expect(asked).toEqual([2]);
  });

  it('refuses messages, instructions or tools from the run that do not match the reference', async () => {
    const cache = new ConversationCache();
    const delta = { base: { count: 2, digest: digestOf([user, assistant]) }, added: [toolMessage] };
    const other = fromRun([user, answer]);
    await expect(resolveConversation(cache, 'r', delta, setup, other)).rejects.toThrow(ConversationMismatchError);
    await expect(resolveConversation(cache, 'r', delta, setup, other)).rejects.toThrow(
      /the run answered 2 messages \(.+\) that do not match the 2 this model call references/,
    );
    await expect(resolveConversation(cache, 'r', delta, setup, fromRun([user]))).rejects.toThrow(/answered 1 messages/);
    const repeats = { ...delta, sameSetup: setupDigest({ ...setup, tools: [] }) };
    await expect(resolveConversation(cache, 'r', repeats, undefined, fromRun(conversation))).rejects.toThrow(
      /instructions and tools \(digest .+\) that do not match those this model call repeats/,
    );
  });
});

describe('setupForCall', () => {
  const tools = [{ name: 'weather', description: 'd', inputSchema: {} }];

  it('sends the instructions and tools whole first, then by digest while they stay the same', () => {
    const first = setupForCall({ instructions: 'a', tools }, undefined);
    expect(first.carried).toEqual({ instructions: 'a', tools });
    expect(first.sent.digest).toBe(setupDigest({ instructions: 'a', tools: wired(tools) }));
    const second = setupForCall({ instructions: 'a', tools }, first.sent);
    expect(second).toEqual({ carried: { sameSetup: first.sent.digest }, sent: first.sent });
    // The working memory changed the instructions: whole again.
    const third = setupForCall({ instructions: 'a, with memory', tools }, second.sent);
    expect(third.carried).toEqual({ instructions: 'a, with memory', tools });
  });
});
