/**
 * A run that continues as new: what it hands over to a fresh history, and the hand-over itself.
 */
import { allHandlersFinished, condition, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { StoredRunResult } from '../../schemas/run-result.js';
import { MEMO_DECISIONS } from './run-mirror.js';
import type { HandOver, RunState } from './run-state.js';

/**
 * Hands the run over to a fresh history: waiters return (and ask the new run), stream subscribers
 * follow the chain, and the conversation, steps, trail and stream go on in the new run.
 */
export async function continueRun(state: RunState, input: RunInput, spec: AgentSpec): Promise<never> {
  state.continuing = true;
  state.stream.log.draining = true;
  await state.notices.delivered();
  await condition(allHandlersFinished);
  // The continuation starts with the memo and search attributes as they stand.
  state.writes.flush();
  const info = workflowInfo();
  const continueAsNewWithAttributes = makeContinueAsNewFunc<(input: RunInput) => Promise<StoredRunResult>>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  });
  const progress = state.stream.progress?.carried();
  return continueAsNewWithAttributes({
    ...input,
    messages: state.conversation.messages,
    ...(progress ? { progress } : {}),
    carry: { spec, ...handOver(state) },
  });
}

/** What a continuation of this run needs besides the conversation; call it once nothing waits. */
export function handOver(state: RunState): HandOver {
  const { conversation, ledger, thread, threadKey, wire } = state;
  const messageIds = state.messages.carried();
  const receipts = ledger.trail.receipts.carried();
  return {
    steps: [...conversation.steps],
    decisions: ledger.trail.all().slice(-MEMO_DECISIONS),
    refusals: ledger.trail.refused(),
    version: state.version,
    stream: state.stream.carry(),
    ...(thread ? { threadMessages: thread.prefix } : {}),
    ...(thread?.workingMemory !== undefined ? { workingMemory: thread.workingMemory } : {}),
    ...(threadKey ? { threadKey } : {}),
    ...(wire.sent ? { sent: wire.sent } : {}),
    ...(messageIds.length > 0 ? { messageIds } : {}),
    // Only where there are some: a continuation with none is one any earlier release can take too.
    ...(receipts.next > 0 ? { receipts } : {}),
  };
}
