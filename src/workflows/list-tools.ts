/**
 * The tools the workers of a task queue serve, for callers without their code: a workflow of one
 * activity, because only a worker knows its registry and a workflow is how a caller reaches one.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../protocol/activities.js';
import type { ToolInfo } from '../schemas/tool-info.js';

const { listTools } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** Returns what `AgentRegistry.listTools` returns on the worker that takes the activity. */
export async function listAgentTools(): Promise<ToolInfo[]> {
  return listTools();
}
