import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Agent } from '../../../agent.js';
import { errorMessage, McpServerUnavailableError } from '../../../errors.js';
import type { AgentRegistry } from '../../registry.js';
import { MAX_DATA_BYTES } from '../../../schemas/limits.js';
import type { AnyTool } from '../../../tools/create-tool.js';
import type { ToolExecutionContext, ToolHookContext } from '../../../tools/tool-context.js';
import { isProviderTool } from '../../../tools/builtin/web-search.js';
import { RequestContext } from '../../../tools/request-context.js';
import { checkWith } from '../../../tools/schema.js';
import type { ExecuteToolInput, ExecuteToolOutput } from '../../../protocol/activities.js';
import { ToolWriter } from './tool-writer.js';
import type { McpConnections } from './mcp-connections.js';
import { ownTool } from './transform-payload.js';
import { grantTurnWriter } from '../../../tools/builtin/turn-writers.js';
import { resultOf } from './tool-result.js';
import { checkResume, suspended } from './tool-suspension.js';
import { previewChanged } from './preview-tool.js';
import { untilStoreTakesWrites, type PayloadStoreProbe } from './store-ready.js';

/** Thrown by `context.suspend()` to unwind `execute`; never seen outside this file. */
class ToolSuspension {
  constructor(readonly payload: unknown) {}
}

/**
 * Runs one tool call on the worker, by name. Input the tool's schema refuses, and output that fails
 * its output schema, come back as tool errors for the model. A tool that throws fails the activity,
 * so Temporal retries it by the tool's retry policy; the workflow turns the last failure into a tool
 * error. A tool that calls `suspend()` comes back as `suspended` (with the call's own resume schema,
 * when the tool makes one); resume data that fails its `resumeSchema`, or the call's own, comes back as
 * `resume-rejected`, and the tool does not run. What the tool writes (`context.writer`) is in the run's
 * stream before the activity returns, so before the call's result.
 */
export async function executeTool(
  registry: AgentRegistry,
  input: ExecuteToolInput,
  mcp?: McpConnections,
  /** A tool's output, bytes of JSON: more where the worker has a payload store. */
  maxOutputBytes = MAX_DATA_BYTES,
  /** The worker's payload store, which a large output waits for (see store-ready.ts). */
  store?: PayloadStoreProbe,
): Promise<ExecuteToolOutput> {
  const writer = new ToolWriter(input);
  let output: ExecuteToolOutput;
  try {
    output = await execution(registry, input, writer, maxOutputBytes, mcp);
  } catch (err) {
    // What the tool wrote before it threw reaches the run too, as a model's text does before it fails.
    await writer.close();
    throw err;
  }
  const progressBytes = await writer.close();
  await untilStoreTakesWrites(store, output);
  return progressBytes > 0 ? { ...output, progressBytes } : output;
}

async function execution(
  registry: AgentRegistry,
  input: ExecuteToolInput,
  writer: ToolWriter,
  maxOutputBytes: number,
  mcp?: McpConnections,
): Promise<ExecuteToolOutput> {
  const agent = registry.get(input.agentId);
  const tool: AnyTool | undefined = ownTool(agent, input.toolName);
  if (!tool) {
    if (isProviderTool(agent.tools[input.toolName])) {
      return { type: 'error', error: `Tool "${input.toolName}" is run by the model's provider, never on the worker.` };
    }
    const called = mcp && (await callMcpTool(mcp, agent, input));
    if (called) return called;
    return { type: 'error', error: `Agent "${agent.id}" has no tool "${input.toolName}" on this worker.` };
  }
  const parsedInput = await checkWith(tool.inputSchema, input.args);
  if (!parsedInput.ok) {
    return { type: 'error', error: `Invalid arguments for tool "${input.toolName}": ${parsedInput.pretty}` };
  }
  // Before every execution of an approved call, a resumed one too: it runs only on the preview approved.
  const changed = input.preview ? await previewChanged(tool, parsedInput.value, input, input.preview.hash) : undefined;
  if (changed) return changed;
  let resumeData: unknown;
  if (input.resume) {
    const checked = await checkResume(tool, input.toolName, parsedInput.value, input.resume.data);
    if (!checked.ok) return checked.output;
    resumeData = checked.data;
  }

  const activity = Context.current();
  // The first suspend() wins. It rejects, to unwind `execute`; a tool that does not await it must not
  // leave an unhandled rejection behind (that would kill the worker process), so the rejection is
  // marked handled here, and the suspension is taken when `execute` settles.
  let suspension: { payload: unknown } | undefined;
  const suspend = (payload: unknown): Promise<never> => {
    suspension ??= { payload };
    const unwind = Promise.reject(new ToolSuspension(payload));
    unwind.catch(() => undefined);
    return unwind;
  };
  const requestContext = new RequestContext(input.requestContext);
  const context: ToolExecutionContext<unknown, unknown> = {
    runId: input.runId,
    agentId: input.agentId,
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    threadId: input.threadId,
    resourceId: input.resourceId,
    idempotencyKey: `${input.runId}:${input.toolCallId}`,
    attempt: activity.info.attempt,
    abortSignal: activity.cancellationSignal,
    logger: activity.log,
    suspend,
    resumeData,
    requestContext,
    writer,
    // Mastra's tools read these from `context.agent`.
    agent: { toolCallId: input.toolCallId, suspend, resumeData },
  };
  if (input.turnKey) grantTurnWriter(context, { runId: input.runId, key: input.turnKey });
  const execute = tool.execute as (input: unknown, context: ToolExecutionContext<unknown, unknown>) => unknown;

  let output: unknown;
  // With a heartbeat timeout, a worker that dies mid-tool is noticed that soon, not at the start-to-close timeout.
  const heartbeats = activity.info.heartbeatTimeoutMs
    ? setInterval(() => activity.heartbeat(), activity.info.heartbeatTimeoutMs / 3)
    : undefined;
  try {
    output = await execute(parsedInput.value, context);
  } catch (err) {
    if (err instanceof ToolSuspension) return suspended(tool, input.toolName, parsedInput.value, err.payload);
    throw err;
  } finally {
    clearInterval(heartbeats);
  }
  // suspend() called without await: what `execute` returned after it does not count.
  if (suspension) return suspended(tool, input.toolName, parsedInput.value, suspension.payload);

  if (tool.outputSchema) {
    const parsedOutput = await checkWith(tool.outputSchema, output);
    if (!parsedOutput.ok) {
      const problem =
        `Tool "${input.toolName}" returned output that does not match its outputSchema: ` + parsedOutput.pretty;
      if (tool.outputValidation !== 'warn') return { type: 'error', error: problem };
      activity.log.warn(problem, { toolCallId: input.toolCallId });
    } else {
      output = parsedOutput.value;
    }
  }

  if (tool.onOutput) {
    const onOutput = tool.onOutput as (context: ToolHookContext & { output: unknown }) => void | Promise<void>;
    try {
      await onOutput({
        runId: input.runId,
        agentId: input.agentId,
        toolCallId: input.toolCallId,
        toolName: input.toolName,
        output,
      });
    } catch (err) {
      activity.log.warn(`tool hook onOutput of "${input.toolName}" threw; ignored`, {
        error: errorMessage(err),
      });
    }
  }

  return resultOf(agent, input, requestContext, output, maxOutputBytes);
}

/** How many attempts a call its MCP server broke off gets, as any tool's call (see tool-activity.ts). */
const MCP_CALL_ATTEMPTS = 3;

/**
 * A call of one of the agent's MCP tools, through the worker's connection to its server; undefined
 * when the name is not one of them. The worker heartbeats while the server works; a server that cannot
 * be reached fails the attempt (Temporal retries it), and what the server answers is bounded as any
 * tool's output.
 */
async function callMcpTool(
  mcp: McpConnections,
  agent: Agent,
  input: ExecuteToolInput,
): Promise<ExecuteToolOutput | undefined> {
  const activity = Context.current();
  const heartbeats = activity.info.heartbeatTimeoutMs
    ? setInterval(() => activity.heartbeat(), activity.info.heartbeatTimeoutMs / 3)
    : undefined;
  let called;
  try {
    called = await mcp.call(agent, input.toolName, input.args, {
      signal: activity.cancellationSignal,
      idempotencyKey: `${input.runId}:${input.toolCallId}`,
    });
  } catch (err) {
    // The run retries a call whose server cannot be reached for its whole window; one that broke off
    // during the call may have run, so it gets the attempts any tool gets, then the model hears why.
    if (err instanceof McpServerUnavailableError && err.reached && activity.info.attempt >= MCP_CALL_ATTEMPTS) {
      throw ApplicationFailure.create({ type: 'McpCallBrokenOff', message: err.message, nonRetryable: true });
    }
    throw err;
  } finally {
    clearInterval(heartbeats);
  }
  if (!called) return undefined;
  if ('error' in called) return { type: 'error', error: called.error };
  return resultOf(agent, input, new RequestContext(input.requestContext), called.output);
}
