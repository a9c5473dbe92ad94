/**
 * How a model call carries its conversation by reference: the messages a run's previous call held,
 * named by digest, and its setup (instructions and tools) when unchanged. Plain serialisable data.
 */
import type { Message } from '../schemas/message.js';
import type { ModelToolDefinition } from './activities.js';

/** The first `count` messages of a run's conversation, named by their digest. */
export interface ConversationRef {
  count: number;
  digest: string;
}

/** What a model call carries of the conversation: the reference and the messages after it. */
export interface ConversationDelta {
  base: ConversationRef;
  added: Message[];
  /**
   * Set when the call's instructions and tools are those the run's previous call carried, by their
   * {@link setupDigest}: the call then carries neither (they are most of a call's fixed bytes).
   */
  sameSetup?: string;
}

/** What a model call is told besides the conversation, and its digest. */
export interface CallSetup {
  instructions: string;
  tools: ModelToolDefinition[];
}

/** A call's setup as the run last sent it whole, with its digest. */
export type SentSetup = CallSetup & { digest: string };
