import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/schemas/message.js';
import type { ThreadTurn } from '../../src/schemas/thread.js';
import { answeredOnly, boundTurns, historyForModel, recentPage } from '../../src/workflows/thread/thread-history.js';

const user = (text: string): Message => ({ role: 'user', content: text });
const say = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string, text?: string): Message => ({
  role: 'assistant',
  content: [
    ...(text ? [{ type: 'text', text }] : []),
    { type: 'tool-call', toolCallId: id, toolName: 'add', input: {} },
  ],
});
const result = (id: string): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'add', output: { type: 'json', value: 3 } }],
});
const turn = (runId: string, messages: Message[]): ThreadTurn => ({
  runId,
  agentId: 'a',
  status: 'completed',
  messages,
  at: '2026-01-01T00:00:00Z',
});

describe('what a run is shown of its thread', () => {
  it('keeps answered calls, and drops a call left unanswered (a paused or failed turn) but keeps its text', () => {
    const paused = [user('q'), call('c1', 'Let me ask.')];
    expect(answeredOnly(paused)).toEqual([user('q'), say('Let me ask.')]);
    const done = [user('q'), call('c1'), result('c1'), say('3')];
    expect(answeredOnly(done)).toEqual(done);
    expect(answeredOnly([user('q'), call('c1')])).toEqual([user('q')]);
  });

  it('takes the last N messages, starting at a user message so that no result loses its call', () => {
    const turns = [turn('r1', [user('one'), say('1')]), turn('r2', [user('two'), call('c'), result('c'), say('2')])];
    expect(historyForModel(turns, 6, 1e6)).toHaveLength(6);
    expect(historyForModel(turns, 5, 1e6)).toEqual(turns[1]!.messages);
    // The last three start at the call's result: nothing before the next user message can be shown.
    expect(historyForModel(turns, 3, 1e6)).toEqual([]);
    expect(historyForModel(turns, 0, 1e6)).toEqual([]);
  });

  it('keeps the history within its bytes, dropping the oldest turns first', () => {
    const big = 'x'.repeat(1000);
    const turns = [turn('r1', [user(big), say(big)]), turn('r2', [user('small'), say('ok')])];
    expect(historyForModel(turns, 100, 500)).toEqual([user('small'), say('ok')]);
  });
});

describe('what a thread keeps', () => {
  it('drops the oldest whole turns past its bounds, never the newest', () => {
    const turns = [1, 2, 3].map((n) => turn(`r${n}`, [user(`${n}`), say(`${n}`)]));
    expect(boundTurns(turns, 4, 1e6)).toEqual({ turns: turns.slice(1), dropped: 1 });
    expect(boundTurns(turns, 1, 1e6)).toEqual({ turns: turns.slice(2), dropped: 2 });
    expect(boundTurns(turns, 100, 1e6)).toEqual({ turns, dropped: 0 });
  });

  it('shows the most recent page in its memo', () => {
    const messages = [1, 2, 3, 4].map((n) => user(`${n}`));
    expect(recentPage(messages, 2, 1e6)).toEqual({ messages: messages.slice(2), omitted: 2 });
    expect(recentPage(messages, 10, 70)).toEqual({ messages: messages.slice(2), omitted: 2 });
  });
});
