/**
 * A model call's whole conversation, instructions and tools: carried by the call itself, or referenced
 * and read from the worker's cache or, on a miss, from the run.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CallModelInput } from '../../../protocol/activities.js';
import { conversationQuery } from '../../../protocol/run-messages.js';
import {
  ConversationMismatchError,
  resolveConversation,
  type CachedConversation,
  type ConversationCache,
} from './conversation-cache.js';

/** A model call with its whole conversation, instructions and tools. */
export type ResolvedCall = CallModelInput & Required<Pick<CallModelInput, 'messages' | 'instructions' | 'tools'>>;

/** The cache key of the run's conversation: the workflow id, which a continued run keeps. */
export function conversationKey(): string {
  return runOf().workflowId;
}

/** The run whose model call this is. */
function runOf(): { workflowId: string; runId: string } {
  const run = Context.current().info.workflowExecution;
  if (!run) throw ApplicationFailure.nonRetryable('callModel runs only as an activity of a run', 'BadCall');
  return run;
}

/**
 * The call with its whole conversation. One that carries it by reference gets the messages it references
 * from the worker's cache, or, on a miss (a new worker, an evicted run, a retry elsewhere), from the run by
 * the `conversation` query, whose answer is not recorded in the history.
 */
export async function withConversation(
  called: CallModelInput,
  cache: ConversationCache,
): Promise<{ input: ResolvedCall; conversation?: CachedConversation }> {
  const { conversation: delta, instructions, tools, ...rest } = called;
  if (!delta) {
    if (!called.messages || tools === undefined || instructions === undefined) {
      throw ApplicationFailure.nonRetryable(
        'callModel: the call carries no conversation, tools or instructions',
        'BadCall',
      );
    }
    return { input: { ...rest, instructions, tools, messages: called.messages } };
  }
  const given = tools !== undefined && instructions !== undefined ? { instructions, tools } : undefined;
  const activity = Context.current();
  const { workflowId, runId } = runOf();
  const fetch = (count: number) =>
    activity.client.withAbortSignal(activity.cancellationSignal, () =>
      activity.client.workflow.getHandle(workflowId, runId).query(conversationQuery, { count }),
    );
  try {
    const { conversation, from } = await resolveConversation(cache, conversationKey(), delta, given, fetch);
    if (from === 'run') activity.log.info('callModel: conversation read from the run', { messages: delta.base.count });
    const { setup } = conversation;
    return {
      input: { ...rest, messages: conversation.messages, instructions: setup.instructions, tools: setup.tools },
      conversation,
    };
  } catch (err) {
    // No retry makes the run's messages match a digest they do not match.
    if (err instanceof ConversationMismatchError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}
