/**
 * A tool that runs on the worker, as an activity: how it is retried, how it suspends and resumes, and
 * what happens when an approved call that may run only once is cut off.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import { decidedBy } from '../../approvals/decision-messages.js';
import type { Resolution } from '../../approvals/ledger-effects.js';
import type { AgentSpec, ToolSpecOf } from '../../schemas/agent-spec.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { clip } from '../../schemas/limits.js';
import { modelActivityRetry } from '../../schemas/model-retry.js';
import { takes } from '../patches.js';
import { runCancelled } from './delegation.js';
import { displayed, refOf, waitingDisplay } from './payload-views.js';
import type { RunState } from './run-state.js';
import { operatorOutput } from './transcript.js';

/**
 * Tools that may run more than once (not approved, or idempotent) are retried after a worker dies,
 * with an idempotency key; the default retry gives up after 3 attempts so that a broken tool becomes
 * an error the model sees rather than a run that retries forever. The worker heartbeats while a tool
 * runs, so a dead worker is noticed within the heartbeat timeout rather than the start-to-close one.
 */
const DEFAULT_TOOL_ACTIVITY = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
} satisfies ActivityOptions;

/** Errors of the runner's own making that no retry of the tool can fix: a chunk the writer refused. */
const NON_RETRYABLE_TOOL_ERRORS = ['StreamWriteError'];

/**
 * `serverWindow`: an MCP tool's call (patch `mcpServerWaits`) is retried while its server is down for the
 * agent's retry window, as a model step is while its provider fails, rather than three times.
 */
function toolActivityOptions(
  tool: ToolSpecOf<'tool'>,
  atMostOnce: boolean,
  serverWindow: AgentSpec['modelRetry'] | false,
): ActivityOptions {
  const custom = tool.activity ?? {};
  const nonRetryableErrorTypes = [...(custom.retry?.nonRetryableErrorTypes ?? []), ...NON_RETRYABLE_TOOL_ERRORS];
  const retry = { ...DEFAULT_TOOL_ACTIVITY.retry, ...custom.retry, nonRetryableErrorTypes };
  const timeouts = {
    startToCloseTimeout: custom.startToCloseTimeout ?? DEFAULT_TOOL_ACTIVITY.startToCloseTimeout,
    heartbeatTimeout: custom.heartbeatTimeout ?? DEFAULT_TOOL_ACTIVITY.heartbeatTimeout,
  };
  if (atMostOnce) return { ...timeouts, retry: { ...retry, maximumAttempts: 1 } };
  if (serverWindow !== false) return { ...timeouts, ...modelActivityRetry(serverWindow, nonRetryableErrorTypes) };
  return { ...timeouts, retry };
}

/**
 * Runs the tool as an activity; a tool that suspends waits for resume data, and runs again with it.
 * An approved tool that is not idempotent runs at most once: if its execution is cut off (its worker
 * died, it timed out), whether the side effect happened is not known, and the call waits for someone
 * to resolve it (retry, skip with an output, or fail) rather than being retried blindly.
 */
export async function executeOnWorker(
  tool: ToolSpecOf<'tool'>,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  atMostOnce: boolean,
  /** The hash of the preview the call was approved on: every execution (a resumed one too) runs only while it holds. */
  previewHash?: string,
): Promise<ToolCallOutcome> {
  // A retry policy is not part of what a replay compares: runs from before take the window too. What
  // the run does once the activity gave up is (below, patch mcpServerWaits).
  const serverWindow = tool.mcpServer !== undefined ? spec.modelRetry : false;
  const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(tool, atMostOnce, serverWindow));
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  let resumed: Resolution | undefined;
  let resumeRecorded = false;
  let suspendPayload: JsonValue | undefined;
  let resumeSchema = tool.resumeSchema;
  for (;;) {
    let output;
    const progress = state.stream.progress?.slice();
    try {
      output = await executeTool({
        runId: state.runId,
        agentId: spec.id,
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        args: call.args,
        ...runContext(options),
        ...(resumed ? { resume: { data: resumed.decision.resumeData ?? null } } : {}),
        ...(state.stream.publishToken ? { publishToken: state.stream.publishToken } : {}),
        ...(progress ? { progress } : {}),
        // The built-in thread tools (working memory, tasks) write the run's thread with its key.
        ...(state.threadKey ? { turnKey: state.threadKey } : {}),
        ...(previewHash ? { preview: { hash: previewHash } } : {}),
      });
    } catch (err) {
      state.stream.progress?.settle(progress, undefined);
      if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
      // The data was accepted (a refusal is a result, not a failure); the tool failed after.
      if (resumed && !resumeRecorded) state.recordResume(resumed, undefined);
      resumeRecorded = resumed !== undefined;
      // Asked here, after a (regular) activity failed: never in the activation of a local activity's
      // result, where a patch recorded later would read as absent on replay (see run-start.ts).
      const down = tool.mcpServer !== undefined ? serverUnavailable(err) : undefined;
      // Runs from before this release told the model the call failed; their histories replay that way.
      const serverDown = down !== undefined && takes('mcpServerWaits') ? down : undefined;
      if (serverDown === undefined && (!atMostOnce || !cutOff(err))) {
        return { type: 'error', error: `Tool "${call.toolName}" failed: ${activityFailureMessage(err)}` };
      }
      const uncertainty = serverDown ?? `${activityFailureMessage(err)}: its worker died or it hung after it started`;
      const display = await waitingDisplay(tool, ref, { kind: 'uncertain', args: call.args });
      const waiting = { kind: 'uncertain' as const, uncertainty, askedAt: new Date().toISOString(), ...display };
      const { decision, record } = await state.waits.forDecision(call, waiting);
      if (decision.resolution === 'retry') continue;
      if (decision.resolution === 'skip') return operatorOutput(decision.result ?? null);
      const why = record.reason ? `: ${record.reason}` : '';
      return {
        type: 'error',
        error: `The call of tool "${call.toolName}" was marked failed by ${decidedBy(record)}${why}`,
      };
    }
    state.stream.progress?.settle(progress, output.progressBytes);
    if (resumed && !resumeRecorded) {
      state.recordResume(resumed, output.type === 'resume-rejected' ? output.error : undefined);
    }
    resumeRecorded = false;
    if (output.type === 'result' || output.type === 'error') return output;

    // Suspended, or resume data the tool refused (then it did not run and is still suspended).
    if (output.type === 'suspended') {
      suspendPayload = output.payload;
      // This call's own schema, where the tool narrows its resumeSchema by the call's input.
      resumeSchema = output.resumeSchema ?? tool.resumeSchema;
    }
    const display = await waitingDisplay(tool, ref, { kind: 'suspend', args: call.args, suspendPayload });
    resumed = await state.waits.forDecision(call, {
      kind: 'suspend',
      suspendPayload,
      resumeSchema,
      askedAt: new Date().toISOString(),
      ...display,
    });
    const resumeData = await displayed(tool, ref, 'resume', resumed.decision.resumeData ?? null);
    state.stream.publish({
      type: 'tool-call-resumed',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      resumeData,
    });
  }
}

/** What the worker's code for a call (the tool, the agent's hooks) gets of the run besides the call itself. */
export function runContext(options: RunOptions) {
  return {
    threadId: options.threadId,
    resourceId: options.resourceId,
    ...(options.requestContext ? { requestContext: options.requestContext } : {}),
  };
}

/**
 * Why an MCP tool's call did not get through, when its server was unavailable to the last attempt (or
 * to every attempt of the window): the call waits to be retried once the server is back, skipped or failed.
 */
function serverUnavailable(err: ActivityFailure): string | undefined {
  // The window ended: Temporal gave up because the next attempt would start past it (retry state TIMEOUT,
  // the last attempt's failure), or the window's own timeout cut an attempt off. A heartbeat or
  // start-to-close timeout of one attempt is a worker that died or hung: not this.
  const windowTimeout = err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'SCHEDULE_TO_CLOSE';
  const windowEnded = err.retryState === 'TIMEOUT' || windowTimeout ? ', for the whole retry window' : '';
  for (let cause: unknown = err.cause; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === 'McpServerUnavailableError') {
      return clip(`${cause.message.replace(/\.? Check that it runs.*$/, '')}${windowEnded}`, 1000);
    }
  }
  return windowTimeout ? `the MCP server did not answer${windowEnded}: ${err.cause.message}` : undefined;
}

/** An execution cut off from outside (a timeout: its worker died or hung; a cancellation), not a tool's own error. */
function cutOff(err: ActivityFailure): boolean {
  return err.cause instanceof TimeoutFailure || err.cause instanceof CancelledFailure;
}

/** What failed inside an activity, rather than the wrapper's "Activity task failed". */
export function activityFailureMessage(err: ActivityFailure): string {
  return err.cause?.message ?? err.message;
}
