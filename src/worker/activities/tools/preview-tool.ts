/**
 * A tool's preview of a call (its `preview`: a dry run, a diff), computed on the worker: before the call
 * waits for approval, again just before it runs, and once more inside its execution. The hash is what
 * the approval binds; a preview that cannot be made, or is no bounded JSON, means the call does not run.
 */
import { Context } from '@temporalio/activity';
import { canonicalJson, sha256Hex } from '../../../approvals/fingerprint.js';
import { errorMessage } from '../../../errors.js';
import type { PreviewToolInput, PreviewToolOutput } from '../../../protocol/approval-activities.js';
import type { JsonValue } from '../../../schemas/json.js';
import { clip, kib, measureJson, MAX_PREVIEW_BYTES } from '../../../schemas/limits.js';
import type { AnyTool } from '../../../tools/create-tool.js';
import { RequestContext } from '../../../tools/request-context.js';
import type { ToolPreviewContext } from '../../../tools/tool-context.js';
import { checkWith } from '../../../tools/schema.js';
import type { AgentRegistry } from '../../registry.js';
import { ownTool } from './transform-payload.js';

/** The activity: the preview of one call, by the agent's tool of that name. */
export async function previewTool(registry: AgentRegistry, input: PreviewToolInput): Promise<PreviewToolOutput> {
  const tool = ownTool(registry.get(input.agentId), input.toolName);
  if (!tool?.preview) return { ok: false, error: `tool "${input.toolName}" has no preview on this worker` };
  const parsed = await checkWith(tool.inputSchema, input.args);
  if (!parsed.ok) return { ok: false, error: `invalid arguments for tool "${input.toolName}": ${parsed.pretty}` };
  return previewOf(tool, parsed.value, input);
}

/**
 * The preview of a call whose input the tool's schema took. Thrown errors, and values that are not JSON
 * of at most {@link MAX_PREVIEW_BYTES}, are no preview: nobody could approve what they were shown.
 */
export async function previewOf(
  tool: AnyTool,
  input: unknown,
  call: Omit<PreviewToolInput, 'args'>,
): Promise<PreviewToolOutput> {
  const activity = Context.current();
  const context: ToolPreviewContext = {
    runId: call.runId,
    agentId: call.agentId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    threadId: call.threadId,
    resourceId: call.resourceId,
    abortSignal: activity.cancellationSignal,
    logger: activity.log,
    requestContext: new RequestContext(call.requestContext),
  };
  const preview = tool.preview as (input: unknown, context: ToolPreviewContext) => unknown;
  let value: unknown;
  try {
    value = await preview(input, context);
  } catch (err) {
    return { ok: false, error: `the preview of tool "${call.toolName}" failed: ${clip(errorMessage(err), 500)}` };
  }
  const measured = measureJson(value);
  if (!measured.ok) {
    return { ok: false, error: `the preview of tool "${call.toolName}" is not JSON data: ${measured.problem}` };
  }
  if (measured.bytes > MAX_PREVIEW_BYTES) {
    return {
      ok: false,
      error: `the preview of tool "${call.toolName}" is ${kib(measured.bytes)}; at most ${kib(MAX_PREVIEW_BYTES)}`,
    };
  }
  // Dates and the like become what the approver is shown: their JSON.
  const json = JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
  return { ok: true, preview: json, hash: sha256Hex(canonicalJson(json)) };
}

/**
 * Inside an execution: why the call does not run, where its preview is no longer the one approved (or
 * cannot be made). The activity heartbeats meanwhile: a slow preview is no worker that died.
 */
export async function previewChanged(
  tool: AnyTool,
  input: unknown,
  call: Omit<PreviewToolInput, 'args'>,
  approved: string,
): Promise<{ type: 'error'; error: string } | undefined> {
  const activity = Context.current();
  const heartbeats = activity.info.heartbeatTimeoutMs
    ? setInterval(() => activity.heartbeat(), activity.info.heartbeatTimeoutMs / 3)
    : undefined;
  let now: PreviewToolOutput;
  try {
    now = await previewOf(tool, input, call);
  } finally {
    clearInterval(heartbeats);
  }
  if (!now.ok) return { type: 'error', error: `${now.error}; the call did not run` };
  if (now.hash === approved) return undefined;
  return {
    type: 'error',
    error:
      `the preview of this call of tool "${call.toolName}" changed after it was approved ` +
      `(${approved.slice(0, 12)}… approved, ${now.hash.slice(0, 12)}… now); the call did not run`,
  };
}
