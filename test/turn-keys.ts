/**
 * A thread takes writes only with the turn key of an open turn (see src/workflows/thread-writers.ts).
 * Tests that drive a thread past its bounds write as a run that waits on the thread: its key is read
 * from the run's history, as anyone who can read (and decode) that history could.
 */
import type { AgentClient } from '../src/client/index.js';
import type { TurnWriter } from '../src/schemas/thread.js';
import { threadWorkflowId } from '../src/schemas/thread.js';
import { recordTurnSignal } from '../src/protocol/thread-messages.js';
import { waitFor } from './helpers.js';

/** The run and the turn key it began its turn with, from its `beginThreadTurn` activity's input. */
export async function turnWriterOf(client: AgentClient, runId: string): Promise<TurnWriter> {
  const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'beginThreadTurn') continue;
    const data = scheduled.input?.payloads?.[0]?.data;
    const input = JSON.parse(new TextDecoder().decode(data ?? undefined)) as { turnKey?: string };
    if (input.turnKey) return { runId, key: input.turnKey };
  }
  throw new Error(`run ${runId} began no turn with a key`);
}

/**
 * Makes the thread continue as new: 200 changes, each replacing the turn of the waiting run `writer`
 * names with one message `note <i>`. Resolves once the thread's workflow runs in a new history and shows
 * the last note.
 */
export async function continueThreadAsNew(
  client: AgentClient,
  thread: { threadId: string; resourceId: string },
  writer: TurnWriter,
  agentId: string,
): Promise<void> {
  const handle = client.temporal.workflow.getHandle(threadWorkflowId(thread.resourceId, thread.threadId));
  const firstRun = (await handle.describe()).runId;
  const turn = { runId: writer.runId, agentId, status: 'suspended' as const };
  for (let i = 0; i < 200; i++) {
    await handle.signal(recordTurnSignal, { ...turn, messages: [{ role: 'user', content: `note ${i}` }] }, writer);
  }
  await waitFor('the thread to continue as new', async () =>
    (await handle.describe()).runId !== firstRun ? true : undefined,
  );
  // The last signals may reach the new history a moment after it starts.
  await waitFor('the last note on the thread', async () => {
    const { messages } = await client.getThreadMessages(thread);
    return messages.some((m) => m.content === 'note 199') ? true : undefined;
  });
}
