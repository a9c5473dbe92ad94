/**
 * A run's link to its thread: where its turn is recorded, and how many of its messages came from the
 * thread. A sub-agent's link is read-only: its supervisor's turn holds the delegation and its result.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { Message } from '../../schemas/message.js';
import type { ShownCalls, TurnStatus, TurnWriter } from '../../schemas/thread.js';
import { recordTurnSignal } from '../../protocol/thread-messages.js';

export class ThreadLink {
  /**
   * The thread's working memory as this run knows it (for an agent that keeps one): as the thread had
   * it when the run's turn began, then as the run's own `updateWorkingMemory` calls stored it.
   */
  workingMemory: string | undefined;

  constructor(
    readonly workflowId: string,
    readonly runId: string,
    readonly agentId: string,
    /** The first `prefix` messages of the run's conversation are the thread's earlier ones. */
    readonly prefix: number,
    /** The run records its turn on the thread (a top-level run); a sub-agent only reads it. */
    readonly records: boolean,
    workingMemory?: string,
    /**
     * The key the run began its turn with: the thread takes the run's writes (its records, its tools'
     * working memory and task changes) only with it. None for a run that joined before the keys.
     */
    readonly key?: string,
  ) {
    this.workingMemory = workingMemory;
  }

  /** What the run's writes to its thread carry besides the write: the run and its turn key, when it has one. */
  writer(): [TurnWriter] | [] {
    return this.records && this.key ? [{ runId: this.runId, key: this.key }] : [];
  }

  /**
   * Records the run's messages (those it started with and its own) as its turn: a signal, which the
   * server takes whether or not a worker runs the thread. A thread that is gone (terminated by hand)
   * does not fail the run.
   */
  async record(conversation: Message[], status: TurnStatus, shown?: (messages: Message[]) => ShownCalls | undefined) {
    if (!this.records) return;
    const messages = conversation.slice(this.prefix);
    const displayed = shown?.(messages);
    const turn = {
      runId: this.runId,
      agentId: this.agentId,
      status,
      messages,
      ...(displayed ? { shown: displayed } : {}),
    };
    await getExternalWorkflowHandle(this.workflowId)
      .signal(recordTurnSignal, turn, ...this.writer())
      .catch(() => undefined);
  }
}
