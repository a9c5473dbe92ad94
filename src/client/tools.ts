/**
 * The tools the workers serve, learned from a worker (only a worker has the registry), and tool runs:
 * one call of one tool, made by the caller, as a run of its agent under the agent's policy.
 */
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import { z } from 'zod';
import { InvalidRunOptionsError, NoWorkerError, RequestRefusedError } from '../errors.js';
import { unknownKeyMessage } from '../options.js';
import { oneLine, zodFromJsonSchema, type JsonValue } from '../schemas/json.js';
import { boundedJson, IdSchema } from '../schemas/limits.js';
import type { RequestContextValues } from '../schemas/run-options.js';
import { findTool, toolOwner, ToolInfoSchema, type ToolInfo } from '../schemas/tool-info.js';
import type { listAgentTools } from '../workflows/list-tools.js';
import { checkInput } from './checks.js';
import type { ClientContext } from './context.js';
import type { PrincipalInput } from './identity.js';
import { startRun } from './runs/start-run.js';

/** How long a caller waits for a worker to list its tools. */
export const DEFAULT_TOOLS_TIMEOUT_MS = 10_000;

/** How long to wait where no worker has polled the task queue lately: one that just started still answers. */
const NO_POLLER_WAIT_MS = 2_000;

/**
 * The tools the workers of the client's task queue serve, from one of them: a short workflow
 * (`listAgentTools`) whose one activity returns the worker's registry. Throws {@link NoWorkerError}
 * when no worker answers within `timeoutMs` (2 s where none polls the task queue at all).
 */
export async function listTools(ctx: ClientContext, timeoutMs = DEFAULT_TOOLS_TIMEOUT_MS): Promise<ToolInfo[]> {
  const pollers = await workflowPollers(ctx);
  const wait = pollers?.length === 0 ? Math.min(timeoutMs, NO_POLLER_WAIT_MS) : timeoutMs;
  const handle = await ctx.temporal.workflow.start<typeof listAgentTools>('listAgentTools', {
    workflowId: `list-tools-${randomUUID()}`,
    taskQueue: ctx.taskQueue,
    args: [],
    // A request no worker took ends on its own too.
    workflowExecutionTimeout: '1 minute',
  });
  const result = handle.result();
  // Given up on below, its rejection (terminated) is expected: it must not surface as unhandled.
  result.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), wait)));
  let answer: unknown;
  try {
    answer = await Promise.race([result, timedOut]);
  } finally {
    clearTimeout(timer);
  }
  if (answer === 'timed out') {
    await handle.terminate('no worker listed its tools in time').catch(() => undefined);
    throw new NoWorkerError(
      ctx.taskQueue,
      pollers?.length === 0
        ? `no worker polls it in namespace "${ctx.namespace}"`
        : `${pollers ? `its workers (${pollers.join(', ')})` : 'no worker'} did not list the tools within ` +
            `${wait / 1000} s (a worker of a version before tool listing does not serve listAgentTools)`,
    );
  }
  const parsed = z.array(ToolInfoSchema).safeParse(answer);
  if (!parsed.success) {
    const problem = oneLine(parsed.error.issues).slice(0, 300);
    throw new Error(`the worker's list of tools does not fit its schema: ${problem}`);
  }
  return parsed.data;
}

/** Who polled the task queue for workflows lately (worker identities); undefined if it cannot be told. */
async function workflowPollers(ctx: ClientContext): Promise<string[] | undefined> {
  // @temporalio/proto is CommonJS: its namespaces come through the default export under Node's ESM.
  const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;
  try {
    const described = await ctx.temporal.workflowService.describeTaskQueue({
      namespace: ctx.namespace,
      taskQueue: { name: ctx.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (described.pollers ?? []).map((p) => p.identity ?? '?');
  } catch {
    // Not allowed to describe task queues, say: the listing itself tells.
    return undefined;
  }
}

/** The options of a tool run. */
export interface ToolRunOptions {
  /** The agent whose run makes the call (and whose policy applies); needed where several agents have the tool. */
  agentId?: string;
  /** The run id; default `run-<uuid>`. */
  runId?: string;
  /** Who runs the tool (default: the client's principal). */
  principal?: PrincipalInput;
  /** Pause the call for approval where the policy does not (a run may tighten the policy, never loosen it). */
  requireToolApproval?: boolean;
  threadId?: string;
  resourceId?: string;
  /** Values for the tool, hooks and transforms, within the agent's `requestContextSchema`. */
  requestContext?: RequestContextValues;
  /** How long to wait for a worker to tell the tool's schema (default 10 s). */
  timeoutMs?: number;
}

const TOOL_RUN_OPTIONS = [
  'agentId',
  'runId',
  'principal',
  'requireToolApproval',
  'threadId',
  'resourceId',
  'requestContext',
  'timeoutMs',
] as const satisfies ReadonlyArray<keyof ToolRunOptions>;

/** A tool run that was started: its run, and the agent and name the call goes by. */
export interface ToolRunStarted {
  runId: string;
  agentId: string;
  toolName: string;
  /** The tool as the worker described it. */
  tool: ToolInfo;
}

/**
 * Starts a tool run. Before anything starts, the tool is looked up on a worker, and refused when it
 * cannot run (a client tool; one its agent does not offer) or the input does not fit its input schema
 * (`InvalidInputError` naming the field). The run then goes as any run of the agent: its approval
 * policy, hooks, transforms and idempotency key apply to the call.
 */
export async function startToolRun(
  ctx: ClientContext,
  start: {
    toolId: string;
    input: JsonValue;
    options: ToolRunOptions;
    principal: PrincipalInput | undefined;
    warn: (message: string) => void;
  },
): Promise<ToolRunStarted> {
  const { toolId, input, options } = start;
  const unknown = Object.keys(options).filter((key) => !(TOOL_RUN_OPTIONS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new InvalidRunOptionsError(unknown.map((k) => unknownKeyMessage(k, TOOL_RUN_OPTIONS)).join('; '));
  }
  checkInput('tool id', IdSchema, toolId);
  if (options.agentId !== undefined) checkInput('agentId', IdSchema, options.agentId);
  checkInput('the tool input', boundedJson(), input);
  const { agentId, timeoutMs, ...runOptions } = options;
  const tool = findTool(await listTools(ctx, timeoutMs), toolId, agentId);
  const owner = toolOwner(tool);
  if (tool.kind === 'client') {
    throw new RequestRefusedError(
      'ToolNotRunnable',
      `tool "${tool.id}" is a client tool (it has no execute): its result comes from the caller, so there is ` +
        'nothing to run',
    );
  }
  if (!owner.offered) {
    throw new RequestRefusedError(
      'ToolNotRunnable',
      `agent "${owner.agentId}" does not offer tool "${owner.toolName}" to its runs (its defaultOptions.activeTools)`,
    );
  }
  checkToolInput(tool, input);
  const { runId } = await startRun(ctx, {
    agentId: owner.agentId,
    // The user message names the tool only: its input may be what a transcript transform hides.
    prompt: `Run the tool "${owner.toolName}".`,
    options: runOptions,
    toolCall: { toolName: owner.toolName, args: input },
    principal: start.principal,
    warn: start.warn,
  });
  return { runId, agentId: owner.agentId, toolName: owner.toolName, tool };
}

/**
 * The input, checked against the tool's input schema as the worker described it; a schema zod cannot
 * rebuild from JSON is left to the worker, which checks the input with the tool's own zod schema.
 */
export function checkToolInput(tool: ToolInfo, input: JsonValue): void {
  let schema;
  try {
    schema = zodFromJsonSchema(tool.inputSchema);
  } catch {
    return;
  }
  checkInput(`the input of tool "${tool.id}"`, schema, input);
}

export { toolRunOutcome } from './tool-outcome.js';
