/**
 * One agent run, as one Temporal workflow: describe the agent, then call the model and run the
 * tools it asks for, step by step, until the model stops or the step limit is reached.
 *
 * Deterministic orchestration only: every model call and tool execution is an activity.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, ExecuteToolOutput, ModelToolCall } from '../activities/contracts.js';
import {
  DEFAULT_MAX_STEPS,
  RunInputSchema,
  type AgentSpec,
  type Message,
  type RunInput,
  type RunOptions,
  type RunResult,
  type StepRecord,
  type ToolSpec,
} from '../schemas.js';
import { AgentStatusKey, type AgentRunStatus } from './search-attributes.js';
import { offeredTools, runResult, stepRecord, toolResultMessage, type ToolOutcome } from './transcript.js';

/** Error types that no retry can fix; the activities throw them as non-retryable failures. */
export const NON_RETRYABLE_ERROR_TYPES = ['UnknownAgentError', 'UnknownModelError', 'ScriptExhaustedError'];

const { describeAgent } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

const { callModel } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

/**
 * Tools run at least once (an activity may be retried after a worker dies), so tools get an
 * idempotency key; the default retry gives up after 3 attempts so that a broken tool becomes an
 * error the model sees rather than a run that retries forever.
 */
const DEFAULT_TOOL_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

function toolActivityOptions(tool: ToolSpec | undefined): ActivityOptions {
  const custom = tool?.activity;
  if (!custom) return DEFAULT_TOOL_ACTIVITY;
  return {
    startToCloseTimeout: custom.startToCloseTimeout ?? DEFAULT_TOOL_ACTIVITY.startToCloseTimeout,
    retry: { ...DEFAULT_TOOL_ACTIVITY.retry, ...custom.retry },
  };
}

function setStatus(status: AgentRunStatus): void {
  upsertSearchAttributes([{ key: AgentStatusKey, value: status }]);
}

/** The run workflow. Its result is the run's result; a run that cannot go on fails with a reason. */
export async function agentRun(rawInput: RunInput): Promise<RunResult> {
  const parsed = RunInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    setStatus('failed');
    throw ApplicationFailure.nonRetryable(`Invalid run input: ${parsed.error.message}`, 'InvalidRunInput');
  }
  const input = parsed.data;
  try {
    const result = await run(input);
    setStatus('completed');
    return result;
  } catch (err) {
    setStatus('failed');
    throw runFailure(err);
  }
}

async function run(input: RunInput): Promise<RunResult> {
  const runId = workflowInfo().workflowId;
  const spec = await describeAgent({ agentId: input.agentId });
  const options: RunOptions = { ...spec.defaultOptions, ...input.options };
  const tools = offeredTools(spec, options.activeTools);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const messages: Message[] = [...input.messages];
  const steps: StepRecord[] = [];

  for (let stepNumber = 0; stepNumber < maxSteps; stepNumber++) {
    const model = await callModel({
      runId,
      agentId: spec.id,
      model: options.model ?? spec.model,
      script: options.script,
      instructions: options.instructions ?? spec.instructions,
      messages,
      tools,
      toolChoice: options.toolChoice,
      settings: options.modelSettings,
    });
    messages.push(...model.assistantMessages);

    const outcomes = await Promise.all(
      model.toolCalls.map(async (call): Promise<ToolOutcome> => ({ call, result: await runTool(spec, input, runId, call) })),
    );
    if (outcomes.length > 0) messages.push(toolResultMessage(outcomes));
    steps.push(stepRecord(stepNumber, model, outcomes));

    if (model.toolCalls.length === 0) break;
  }
  return runResult({ runId, agentId: spec.id, steps, messages });
}

/** Runs one tool call; every way it can go wrong becomes a tool error for the model. */
async function runTool(spec: AgentSpec, input: RunInput, runId: string, call: ModelToolCall): Promise<ExecuteToolOutput> {
  if (call.invalid) return { type: 'error', error: call.invalid };
  const tool = spec.tools.find((t) => t.name === call.toolName);
  if (!tool) {
    return {
      type: 'error',
      error: `Unknown tool "${call.toolName}". Available tools: ${spec.tools.map((t) => t.name).join(', ') || '(none)'}.`,
    };
  }
  const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(tool));
  try {
    return await executeTool({
      runId,
      agentId: spec.id,
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      args: call.args,
      threadId: input.options.threadId,
      resourceId: input.options.resourceId,
    });
  } catch (err) {
    if (err instanceof ActivityFailure) {
      return { type: 'error', error: `Tool "${call.toolName}" failed: ${failureMessage(err)}` };
    }
    throw err;
  }
}

function failureMessage(err: ActivityFailure): string {
  return err.cause?.message ?? err.message;
}

/** Turns whatever stopped the run into a workflow failure that names the cause. */
function runFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    return ApplicationFailure.nonRetryable(failureMessage(err), type ?? 'ActivityFailed');
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.nonRetryable(message, 'RunFailed');
}
