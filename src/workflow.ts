/**
 * `durable-agents/workflow`: what Temporal workflow code may import. The workflow bundle runs in
 * Temporal's deterministic sandbox, with no Node APIs; the main entry (`durable-agents`) loads the worker,
 * the client and Node modules, and a workflow file that imports it fails to bundle.
 *
 * - `executeAgent` and `startAgent`: an agent run as a child of your workflow (docs/guides/existing-temporal-app.md).
 * - `suspendWorkflowTool`: a workflow of yours that an agent calls as a tool waits for a person
 *   (docs/guides/tools.md, "A workflow tool that asks a person").
 * - The run's workflows, to serve them from a bundle of your own beside your workflows: prefer the
 *   `DurableAgentsPlugin` (from `durable-agents/worker`), which adds them to your worker's.
 * - A run's signals, queries and updates, for a workflow of yours that decides or watches an agent run
 *   (`getExternalWorkflowHandle(runId).signal(approveToolCallSignal, decision)`; see
 *   docs/guides/approvals.md, "Signals and updates, for other clients", for each one's argument).
 */
export { agentGrants, agentRun, agentThread, listAgentTools } from './workflows/index.js';
export { executeAgent, startAgent } from './workflows/agent-child.js';
export { suspendWorkflowTool } from './workflows/workflow-tool-suspend.js';
export type { WorkflowToolResumed, WorkflowToolSuspension } from './protocol/workflow-tool.js';
export type { AgentChildOptions } from './workflows/agent-child.js';
export {
  approveToolCallSignal,
  autoResumeUpdate,
  declineToolCallSignal,
  nextPauseUpdate,
  resolveToolCallSignal,
  resumeToolCallSignal,
  runStateQuery,
  submitToolResultSignal,
} from './protocol/run-messages.js';
export type { NextPauseRequest, RunSnapshot } from './protocol/run-messages.js';
export type { DecisionSignal } from './schemas/decisions.js';
export type { AutoResumeOutcome, AutoResumeRequest } from './schemas/auto-resume.js';
export type { RunStatus, StoredRunResult } from './schemas/run-result.js';
