// A user's own workflow file: the run workflows beside a workflow of the user's, which decides a run.
// It may import durable-agents/workflow only; the main entry does not bundle.
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { approveToolCallSignal } from 'durable-agents/workflow';

export { agentRun, agentThread, listAgentTools } from 'durable-agents/workflow';

export async function approveFromWorkflow(runId: string, toolCallId: string, fingerprint: string): Promise<void> {
  await getExternalWorkflowHandle(runId).signal(approveToolCallSignal, {
    decisionId: `approve-${toolCallId}`,
    toolCallId,
    fingerprint,
  });
}
