/** What a run's history holds, summed over its continue-as-new chain: read from the server. */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

// @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;

export interface ChainHistory {
  events: number;
  bytes: number;
  runs: number;
  workflowTasks: number;
  activities: number;
  localActivities: number;
  upserts: number;
}

/**
 * The history of a whole continue-as-new chain, summed over its runs (the last run alone hides how
 * much each run carried over): events, bytes, runs, and the workflow tasks and activities (local
 * ones included: each is a marker) the chain took.
 */
export async function chainHistory(client: Client, workflowId: string): Promise<ChainHistory> {
  const sum = { events: 0, bytes: 0, runs: 0, workflowTasks: 0, activities: 0, localActivities: 0, upserts: 0 };
  let runId: string | undefined;
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    sum.runs++;
    sum.events += events.length;
    sum.bytes += temporal.api.history.v1.History.encode(history).finish().length;
    for (const e of events) {
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) sum.workflowTasks++;
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) sum.activities++;
      if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') sum.localActivities++;
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED) sum.upserts++;
    }
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return sum;
}

/** The event types of one history, in order: what a run records beyond another's. */
export async function eventTypes(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => {
    const name = EventType[e.eventType ?? 0] ?? String(e.eventType);
    const marker = e.markerRecordedEventAttributes?.markerName;
    return name.replace(/^EVENT_TYPE_/, '') + (marker ? ` (${marker})` : '');
  });
}
