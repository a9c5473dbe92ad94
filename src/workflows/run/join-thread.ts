/**
 * A run's link to its thread, made when the run starts: the turn it begins there, the thread's earlier
 * messages it is shown, and the key it writes the thread with.
 */
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { AgentActivities } from '../../protocol/activities.js';
import { turnKeyQuery } from '../../protocol/thread-messages.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { DEFAULT_LAST_MESSAGES, threadWorkflowId } from '../../schemas/thread.js';
import { ThreadLink } from '../thread/thread-link.js';
import { taskListMessage } from '../thread/thread-tasks.js';
import { turnKeyOf, turnKeyProof } from '../thread/thread-writers.js';
import { workingMemoryOf } from '../thread/working-memory.js';
import type { RunState } from './run-state.js';
import { takes } from '../patches.js';

/**
 * The thread's workflow starts on the run's task queue if need be, and answers with the earlier
 * messages; a sub-agent sharing its supervisor's thread reads them.
 */
const { beginThreadTurn, readThreadHistory } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

/** Whether the run begins a turn on its thread: a caller's run on a thread, not continued, not a tool run. */
export function beginsThreadTurn(input: RunInput): boolean {
  return input.options?.threadId !== undefined && !input.toolCall && !input.parent && !input.carry;
}

/**
 * A run started on a thread (not a sub-agent's, not a tool run) begins its turn there and is shown the
 * thread's earlier messages, and its task list when it has one, before its own. A sub-agent's run whose
 * supervisor shares the thread (`parent.threadContext`) is shown its recent messages and adds nothing to
 * it. A continued run keeps the link it had. Every run on a thread, tool runs included, holds a key to
 * write it with (see thread-writers.ts).
 */
export async function joinThread(
  input: RunInput,
  options: RunOptions,
  state: RunState,
  spec: AgentSpec,
  threadMemory: boolean | undefined,
): Promise<void> {
  const { threadId, resourceId } = options;
  if (!threadId) return;
  const workflowId = threadWorkflowId(resourceId, threadId);
  // Every run on a thread writes it with a key of its own (its turn, its tools: working memory, tasks),
  // which the thread asks it about (a query: no command). A continued run keeps the key it had.
  const key = input.carry?.threadKey ?? turnKeyOf(state.stream.publishToken!);
  state.threadKey = key;
  setHandler(turnKeyQuery, () => turnKeyProof(workflowId, key));
  if (input.toolCall || (input.parent && !input.parent.threadContext)) return;
  const records = !input.parent;
  const lastMessages = spec.memory?.lastMessages ?? DEFAULT_LAST_MESSAGES;
  if (input.carry) {
    const prefix = input.carry.threadMessages;
    const { workingMemory } = input.carry;
    if (prefix !== undefined) {
      state.thread = new ThreadLink(workflowId, state.runId, spec.id, prefix, records, workingMemory, key);
    }
    return;
  }
  if (!records) {
    const { history } = await readThreadHistory({ threadId, resourceId, lastMessages });
    state.conversation.prependHistory(history);
    state.thread = new ThreadLink(workflowId, state.runId, spec.id, history.length, false);
    return;
  }
  // Runs on a thread started before threads kept their conversation replay without it.
  // A lean run was started by code newer than the thread memory: it asks no patch here, after the
  // local description (a run on its agent's default thread gets here without having asked one first).
  if (!(threadMemory ?? (state.lean || takes('threadMemory')))) return;
  const keepsMemory = workingMemoryOf(spec) !== undefined;
  const { history, workingMemory, tasks } = await beginThreadTurn({
    threadId,
    resourceId,
    runId: state.runId,
    agentId: spec.id,
    ...(state.setup.access.startedBy ? { startedBy: state.setup.access.startedBy.id } : {}),
    messages: state.conversation.messages,
    lastMessages,
    ...(keepsMemory ? { workingMemory: true as const } : {}),
    turnKey: key,
  });
  // The task list is not in the thread's messages: it is shown whole, however few of them are.
  const shown = tasks ? [...history, taskListMessage(tasks)] : history;
  state.conversation.prependHistory(shown);
  state.thread = new ThreadLink(workflowId, state.runId, spec.id, shown.length, true, workingMemory, key);
}
