/** A Temporal workflow as an agent's tool (`workflow-<key>`): the definition, checked. */
import type { z } from 'zod';
import { rejectUnknownKeys } from '../options.js';

/** A Temporal workflow an agent can call as a tool; see {@link defineWorkflowTool}. */
export interface WorkflowTool {
  readonly kind: 'workflow-tool';
  /** The workflow type to start (registered on some worker). */
  workflowType: string;
  description: string;
  /** The workflow's single argument. */
  inputSchema: z.ZodType;
  /** Checked against the workflow's result; a mismatch is a tool error. */
  outputSchema?: z.ZodType;
  /** Where the workflow runs (default: the run's own task queue). */
  taskQueue?: string;
}

/**
 * Makes a Temporal workflow available to agents as a tool (`workflows: { research: ... }` gives the
 * tool `workflow-research`). Each call starts it as a child workflow with the call's input.
 */
export function defineWorkflowTool(config: Omit<WorkflowTool, 'kind'>): WorkflowTool {
  if (!config.workflowType) throw new TypeError('defineWorkflowTool: `workflowType` is required');
  rejectUnknownKeys(`defineWorkflowTool("${config.workflowType}")`, config, WORKFLOW_TOOL_OPTIONS);
  return { ...config, kind: 'workflow-tool' };
}

const WORKFLOW_TOOL_OPTIONS = ['workflowType', 'description', 'inputSchema', 'outputSchema', 'taskQueue'] as const;
