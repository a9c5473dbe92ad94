/**
 * What a run's model calls carry of its conversation: whole for a run from before the conversation by
 * reference, else the messages after what the previous call held, and the set-up by digest when unchanged.
 */
import type { CallModelInput } from '../../protocol/activities.js';
import {
  ConversationRequestSchema,
  type ConversationAnswer,
  type ConversationRequest,
} from '../../protocol/run-messages.js';
import { safeParse } from '../../schemas/json.js';
import { clip } from '../../schemas/limits.js';
import type { Message } from '../../schemas/message.js';
import {
  ConversationDigest,
  deltaOf,
  setupForCall,
  type CallSetup,
  type ConversationRef,
  type SentSetup,
} from './conversation-ref.js';

export class ConversationWire {
  readonly digest = new ConversationDigest();
  /** The instructions and tools its model calls last carried whole (a continued run's first call sends them). */
  sentSetup: SentSetup | undefined;

  constructor(
    /** Whether its model calls carry the conversation by reference (patch `conversationByReference`). */
    readonly byReference: boolean,
    /** What the last model call held with its answer. */
    public sent: ConversationRef | undefined,
  ) {}

  /** The model activity holds the conversation with its answer now: the next call references it. */
  answered(messages: readonly Message[]): void {
    if (this.byReference) this.sent = this.digest.refTo(messages);
  }

  /** The conversation, instructions and tools as the next model call carries them. */
  forCall(
    messages: Message[],
    setup: CallSetup,
  ): Pick<CallModelInput, 'messages' | 'conversation' | 'instructions' | 'tools'> {
    if (!this.byReference) return { messages, ...setup };
    const delta = deltaOf(messages, this.sent, this.digest);
    const { carried, sent } = setupForCall(setup, this.sentSetup);
    this.sentSetup = sent;
    if ('sameSetup' in carried) return { conversation: { ...delta, sameSetup: carried.sameSetup } };
    return { conversation: delta, ...carried };
  }

  /**
   * What a model call references of the conversation, for the activity whose worker does not hold it: a
   * count past the conversation is refused with a reason (it names no messages this run has).
   */
  prefix(messages: Message[], request: ConversationRequest): ConversationAnswer {
    const checked = safeParse(ConversationRequestSchema, request);
    if (!checked.success)
      throw new Error(`conversation takes { count: number >= 0 }: ${clip(String(checked.error), 300)}`);
    const { count } = checked.data;
    if (count > messages.length) throw new Error(`the conversation has ${messages.length} messages, not ${count}`);
    return { messages: messages.slice(0, count), ...(this.sentSetup ? { setup: this.sentSetup } : {}) };
  }
}
