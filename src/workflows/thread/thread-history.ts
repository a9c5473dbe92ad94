/**
 * What a thread keeps and what a run's model is shown of it. Pure, sandbox-safe: the thread workflow
 * and the unit tests use it.
 */
import { jsonBytes } from '../../schemas/limits.js';
import type { Message } from '../../schemas/message.js';
import { MAX_SHOWN_BYTES, type ShownCalls, type ThreadTurn } from '../../schemas/thread.js';

type Part = Record<string, unknown>;

function parts(message: Message): Part[] | undefined {
  return Array.isArray(message.content) ? message.content : undefined;
}

function idsOf(messages: Message[], type: string): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) {
    for (const p of parts(m) ?? []) if (p.type === type && typeof p.toolCallId === 'string') ids.add(p.toolCallId);
  }
  return ids;
}

/**
 * The messages with every tool call answered by its result and every result following its call: a
 * turn that paused or failed with calls unanswered keeps its text, not the calls (a provider refuses a
 * call without its result). A message left with nothing is dropped.
 */
export function answeredOnly(messages: Message[]): Message[] {
  const calls = idsOf(messages, 'tool-call');
  const results = idsOf(messages, 'tool-result');
  const kept: Message[] = [];
  for (const m of messages) {
    const content = parts(m);
    if (!content) {
      kept.push(m);
      continue;
    }
    const left = content.filter((p) => {
      if (p.type === 'tool-call') return results.has(p.toolCallId as string);
      if (p.type === 'tool-result') return calls.has(p.toolCallId as string);
      return true;
    });
    if (left.length === content.length) kept.push(m);
    else if (left.length > 0) kept.push({ ...m, content: left });
  }
  return kept;
}

/**
 * The earlier messages a run's model is shown: the turns' messages (each turn's calls and results kept
 * consistent), the last `lastMessages` of them within `maxBytes`, starting at a user message so that a
 * call is never cut from its result and the provider takes them.
 */
export function historyForModel(turns: ThreadTurn[], lastMessages: number, maxBytes: number): Message[] {
  if (lastMessages <= 0) return [];
  const all = turns.flatMap((t) => answeredOnly(t.messages));
  let start = Math.max(0, all.length - lastMessages);
  let bytes = jsonBytes(all.slice(start));
  for (;;) {
    while (start < all.length && all[start]!.role !== 'user') bytes -= jsonBytes(all[start++]) + 1;
    if (bytes <= maxBytes || start >= all.length) break;
    bytes -= jsonBytes(all[start++]) + 1;
  }
  return all.slice(start);
}

/**
 * The turns within the thread's bounds: the oldest whole turns go first, the newest always stays (a
 * run's own messages are bounded by its conversation budget).
 */
export function boundTurns(
  turns: ThreadTurn[],
  maxMessages: number,
  maxBytes: number,
): { turns: ThreadTurn[]; dropped: number } {
  let messages = turns.reduce((n, t) => n + t.messages.length, 0);
  let bytes = turns.reduce((n, t) => n + jsonBytes(t), 0);
  let dropped = 0;
  while (dropped < turns.length - 1 && (messages > maxMessages || bytes > maxBytes)) {
    const turn = turns[dropped++]!;
    messages -= turn.messages.length;
    bytes -= jsonBytes(turn);
  }
  return { turns: turns.slice(dropped), dropped };
}

/** The most recent messages, at most `max` of them within `maxBytes`, and how many older ones are left out. */
export function recentPage(
  messages: Message[],
  max: number,
  maxBytes: number,
): { messages: Message[]; omitted: number } {
  let start = Math.max(0, messages.length - max);
  let bytes = jsonBytes(messages.slice(start));
  while (start < messages.length && bytes > maxBytes) bytes -= jsonBytes(messages[start++]) + 1;
  return { messages: messages.slice(start), omitted: start };
}

/**
 * The display forms the turns recorded for the calls in `messages` (what the memo's page shows), within
 * {@link MAX_SHOWN_BYTES}: past it, a call is `null` (shown as not shown), never its raw values.
 */
export function shownIn(turns: ThreadTurn[], messages: Message[]): { shown?: ShownCalls } {
  const ids = idsOf(messages, 'tool-call');
  const shown: ShownCalls = {};
  let bytes = 2;
  for (const turn of turns) {
    for (const [id, call] of Object.entries(turn.shown ?? {})) {
      if (!ids.has(id)) continue;
      const size = jsonBytes(call) + jsonBytes(id) + 2;
      shown[id] = bytes + size <= MAX_SHOWN_BYTES ? call : null;
      if (shown[id]) bytes += size;
    }
  }
  return Object.keys(shown).length > 0 ? { shown } : {};
}
