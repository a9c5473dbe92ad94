/**
 * The turn key of the run whose tool call runs, for the built-in tools that write the run's thread
 * (working memory, tasks). Kept beside the call's context, never on it: a tool's own code has no use
 * for it, and the context is handed to hooks and logged.
 */
import type { TurnWriter } from '../../schemas/thread.js';

const writers = new WeakMap<object, TurnWriter>();

/** `context` is the context of a call of a run that holds this turn key on its thread. */
export function grantTurnWriter(context: object, writer: TurnWriter): void {
  writers.set(context, writer);
}

/** What a write to the thread carries besides the write: the call's run and its turn key, when it has one. */
export function writerArgs(context: object): [TurnWriter] | [] {
  const writer = writers.get(context);
  return writer ? [writer] : [];
}
