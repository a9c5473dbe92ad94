/** The queue of messages sent to a working run: who may steer it, when it takes one, and what it drains. */
import { describe, expect, it } from 'vitest';
import { MAX_QUEUED_MESSAGES } from '../../src/schemas/run-message.js';
import {
  MESSAGE_HEADROOM_BYTES,
  RunMessageQueue,
  type MessageGate,
} from '../../src/workflows/run/run-message-queue.js';

const working: MessageGate = { runId: 'run-1', ended: false, waitingOn: [], roomBytes: 1024 * 1024 };
const from = (id: string, text = 'hi', tenant?: string) => ({
  messageId: id,
  text,
  principal: { id: 'mia', roles: ['member'], ...(tenant ? { tenant } : {}) },
});
const governed = () => {
  const queue = new RunMessageQueue();
  queue.govern({ start: ['role:member'], resourceId: 'acme', startedBy: { id: 'sam' } });
  return queue;
};

describe('RunMessageQueue', () => {
  it('queues in order, takes a message sent twice once, and drains', () => {
    const queue = governed();
    expect(queue.add(from('a', 'one'))).toEqual({ messageId: 'a', position: 1 });
    expect(queue.add(from('b', 'two'))).toEqual({ messageId: 'b', position: 2 });
    expect(queue.add(from('a', 'one'))).toEqual({ messageId: 'a', position: 1 });
    expect(queue.refusal(from('a'), { ...working, ended: true })).toBeUndefined();
    // A taken id is no pass: another sender who names it is refused as any message of theirs would be.
    expect(queue.refusal({ messageId: 'a', text: 'hi', principal: { id: 'eve' } }, working)?.type).toBe('NotAllowed');
    expect(queue.take().map((m) => m.text)).toEqual(['one', 'two']);
    expect(queue.waiting).toBe(false);
  });

  it('refuses before the spec is known, after the end, while a call waits, when closed or full, and others', () => {
    expect(new RunMessageQueue().refusal(from('a'), working)?.message).toBe(
      'run run-1 is starting: send it once it runs',
    );
    const queue = governed();
    expect(queue.refusal(from('a'), { ...working, ended: true })?.type).toBe('RunNotWorking');
    const waiting = { ...working, waitingOn: [{ toolName: 'refund', toolCallId: 'call-0-0' }] };
    expect(queue.refusal(from('a'), waiting)?.message).toMatch(/^run run-1 waits on refund call-0-0: decide the call/);
    expect(queue.refusal({ messageId: 'x', text: 'hi', principal: { id: 'eve' } }, working)?.type).toBe('NotAllowed');
    expect(queue.refusal({ messageId: 'x', text: 'hi', principal: { id: 'sam' } }, working)).toBeUndefined();
    expect(queue.refusal(from('a', 'hi', 'globex'), working)?.type).toBe('NotAllowed');
    for (let i = 0; i < MAX_QUEUED_MESSAGES; i++) queue.add(from(`m${i}`));
    expect(queue.refusal(from('one-more'), working)?.type).toBe('QueueFull');
    queue.take();
    // What would leave the run's conversation less than its headroom is refused, counted in bytes of JSON.
    const tight = { ...working, roomBytes: MESSAGE_HEADROOM_BYTES + 100 };
    expect(queue.refusal(from('fits', 'x'.repeat(90)), tight)).toBeUndefined();
    expect(queue.refusal(from('big', '\u0001'.repeat(20)), tight)?.message).toBe(
      "run run-1's conversation has room for 100 bytes more of messages, and this one (with those waiting) is " +
        '122 bytes: send less, or start a new run',
    );
    queue.close('LastStep', 'last step');
    expect(queue.refusal(from('late'), working)).toEqual({ type: 'LastStep', message: 'last step' });
  });
});
