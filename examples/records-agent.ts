import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../src/index.js';
import { readRecords, writeRecords } from './records-store.js';

export const listRecordsTool = createTool({
  id: 'list-records',
  description: 'Lists the stored records',
  inputSchema: z.object({}),
  execute: async () => (await readRecords()).records,
});

/**
 * Deletes a record; needs approval. It keys the deletion by `idempotencyKey`, so running it twice
 * for one call does no harm (a retry after a worker crash returns the first result and deletes nothing
 * more): it says so with `idempotent: true`, and is retried like any tool.
 */
export const deleteRecordTool = createTool({
  id: 'delete-record',
  description: 'Deletes a record by id',
  inputSchema: z.object({ id: z.string().describe('Record id, e.g. "r2"') }),
  outputSchema: z.object({ deleted: z.string(), title: z.string() }),
  requireApproval: true,
  idempotent: true,
  activity: { startToCloseTimeout: '1 minute', heartbeatTimeout: '2 seconds' },
  execute: async ({ id }, { idempotencyKey, logger }) => {
    const data = await readRecords();
    const earlier = data.applied[idempotencyKey];
    if (earlier) {
      logger.info('deletion already applied; returning its result', { idempotencyKey });
      return earlier;
    }
    const record = data.records.find((r) => r.id === id);
    if (!record) throw new Error(`no record "${id}"; ids: ${data.records.map((r) => r.id).join(', ')}`);
    const result = { deleted: id, title: record.title };
    data.records = data.records.filter((r) => r.id !== id);
    data.deletions.push({ id, idempotencyKey, at: new Date().toISOString() });
    data.applied[idempotencyKey] = result;
    await writeRecords(data);
    // Stands for slow storage acknowledging the write; the crash test kills the worker here.
    const slowMs = Number(process.env.RECORDS_SLOW_MS ?? 0);
    if (slowMs > 0) await sleep(slowMs);
    return result;
  },
});

/**
 * Sends a record's owner a notice; needs approval. Sending is not idempotent (a second send is a
 * second notice), so an approved call runs at most once: if its worker dies while it sends, the run
 * waits for someone to say whether the notice went out (`agentctl resolve --skip`, `--retry`, `--fail`).
 */
export const notifyOwnerTool = createTool({
  id: 'notify-owner',
  description: "Sends a notice to a record's owner",
  inputSchema: z.object({ id: z.string(), message: z.string().min(1).max(500) }),
  requireApproval: true,
  activity: { startToCloseTimeout: '1 minute', heartbeatTimeout: '2 seconds' },
  execute: async ({ id, message }) => {
    const data = await readRecords();
    data.notices.push({ recordId: id, message, at: new Date().toISOString() });
    await writeRecords(data);
    const slowMs = Number(process.env.RECORDS_SLOW_MS ?? 0);
    if (slowMs > 0) await sleep(slowMs);
    return { notified: id };
  },
});

export const recordsAgent = defineAgent({
  id: 'records-agent',
  name: 'Records agent',
  description: 'Manages stored records; deletions need approval',
  instructions: 'You manage records. List them to find ids; deleting one needs a human approval.',
  model: 'scripted',
  // The demo runs it on the scripted model, or with DEMO_MODEL on another one.
  overridable: ['model'],
  tools: { listRecords: listRecordsTool, deleteRecord: deleteRecordTool, notifyOwner: notifyOwnerTool },
});

/** The scripted conversation of the demo: list, delete r2 (pauses for approval), confirm. */
export const deleteRecordScript: Script = [
  { text: 'Let me look at the records.', toolCalls: [{ toolName: 'listRecords', args: {} }] },
  { text: 'Deleting "Old customer list".', toolCalls: [{ toolName: 'deleteRecord', args: { id: 'r2' } }] },
  { text: 'Done: record r2 is deleted.' },
];
