/**
 * An agent run started from a team's own workflow, as a child workflow: the same run a client starts
 * (listed, approved and resumed from any process), with the team's workflow waiting on its result.
 */
import {
  ApplicationFailure,
  executeChild,
  startChild,
  uuid4,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
} from '@temporalio/workflow';
import type { AgentRunWorkflow } from '../protocol/run-messages.js';
import { startSearchAttributes } from '../protocol/search-attributes.js';
import { RunIdSchema } from '../schemas/limits.js';
import type { Message } from '../schemas/message.js';
import { RunInputSchema, type RunInput } from '../schemas/run-input.js';
import type { RunOptions } from '../schemas/run-options.js';
import type { StoredRunResult } from '../schemas/run-result.js';

/** How a team's workflow starts an agent run. */
export interface AgentChildOptions {
  /** The run's id (its workflow id). Default: `agent-` and a random id from the workflow's seeded random. */
  runId?: string;
  /** The run's options, as `AgentClient.start` takes them (stored data only: no functions). */
  options?: RunOptions;
  /** What happens to the run when the team's workflow closes first. Default: `REQUEST_CANCEL`. */
  parentClosePolicy?: ChildWorkflowOptions['parentClosePolicy'];
  /** The task queue of the workers that serve the agent. Default: the team's workflow's own. */
  taskQueue?: string;
}

/**
 * Runs an agent from a workflow and waits for its result. While the run waits on an approval, it is a
 * waiting run like any other: `agentctl runs list --status suspended`, the inbox and
 * `AgentClient.decide` find and decide it. A bad agent id, prompt or option fails the team's workflow
 * with a non-retryable `InvalidAgentRun` failure that names the problem.
 */
export async function executeAgent(
  agentId: string,
  prompt: string | Message[],
  options: AgentChildOptions = {},
): Promise<StoredRunResult> {
  return executeChild<AgentRunWorkflow>('agentRun', childOptions(agentId, prompt, options));
}

/** Starts an agent run from a workflow; its handle's `result()` is the run's result. See {@link executeAgent}. */
export async function startAgent(
  agentId: string,
  prompt: string | Message[],
  options: AgentChildOptions = {},
): Promise<ChildWorkflowHandle<AgentRunWorkflow>> {
  return startChild<AgentRunWorkflow>('agentRun', childOptions(agentId, prompt, options));
}

function childOptions(
  agentId: string,
  prompt: string | Message[],
  options: AgentChildOptions,
): ChildWorkflowOptions & { args: [RunInput] } {
  const known = ['runId', 'options', 'parentClosePolicy', 'taskQueue'];
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw invalid(`unknown option ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${known}`);
  const runId = RunIdSchema.safeParse(options.runId ?? `agent-${uuid4()}`);
  if (!runId.success) throw invalid(`runId ${JSON.stringify(options.runId)}: ${runId.error.issues[0]?.message}`);
  const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
  const input = RunInputSchema.safeParse({
    agentId,
    messages,
    options: options.options ?? {},
  });
  if (!input.success) {
    const issue = input.error.issues[0];
    throw invalid(`${issue?.path.join('.') || 'input'}: ${issue?.message}`);
  }
  return {
    workflowId: runId.data,
    args: [input.data],
    typedSearchAttributes: startSearchAttributes(agentId, input.data.options),
    parentClosePolicy: options.parentClosePolicy ?? 'REQUEST_CANCEL',
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
  };
}

function invalid(problem: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`executeAgent: ${problem}`, 'InvalidAgentRun');
}
