/**
 * What the stream shows of a call and what the transcript keeps of it, where the agent's transforms
 * change them. The transforms are code on the worker (local activities); the spec says which stages
 * have one, so a run whose tools have none never calls them.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import type { ToolSpec } from '../../schemas/agent-spec.js';
import type { PendingToolCall } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RequestContextValues } from '../../schemas/run-options.js';
import type { RunChunk } from '../../schemas/stream-chunks.js';
import type { DisplayStage, TranscriptStage } from '../../schemas/transform-stages.js';

/** Transforms and output shaping are quick code on the worker, recorded as markers. */
const { transformPayload, shapeOutput } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** The call a payload belongs to. */
export interface CallRef {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  requestContext?: RequestContextValues;
}

/** What the stream shows of one stage of a call: the value itself unless the stage is transformed. */
export async function displayed(
  tool: ToolSpec | undefined,
  ref: CallRef,
  stage: DisplayStage,
  value: JsonValue,
): Promise<JsonValue> {
  if (!tool?.transform?.display.includes(stage)) return value;
  return (await transformPayload({ ...ref, target: 'display', stage, value })).value;
}

function transcribes(tool: ToolSpec | undefined, stage: TranscriptStage): boolean {
  return tool?.transform?.transcript.includes(stage) ?? false;
}

/** A call's input as the transcript keeps it, for a call no model made (a tool run's). */
export async function transcribedInput(tool: ToolSpec | undefined, ref: CallRef, args: JsonValue): Promise<JsonValue> {
  if (!transcribes(tool, 'input')) return args;
  return (await transformPayload({ ...ref, target: 'transcript', stage: 'input', value: args })).value;
}

/**
 * What the stream shows of a waiting call, when transforms change it: its arguments (the approval
 * stage's form for an approval, else the input stage's) and its suspend payload.
 */
export async function waitingDisplay(
  tool: ToolSpec | undefined,
  ref: CallRef,
  waits: { kind: PendingToolCall['kind']; args: JsonValue; suspendPayload?: JsonValue },
): Promise<Pick<PendingToolCall, 'display'>> {
  const stages = tool?.transform?.display ?? [];
  const argsStage = waits.kind === 'approval' && stages.includes('approval') ? 'approval' : 'input';
  const payloadChanges = waits.suspendPayload !== undefined && stages.includes('suspend');
  if (!stages.includes(argsStage) && !payloadChanges) return {};
  const args = await displayed(tool, ref, argsStage, waits.args);
  const suspendPayload =
    waits.suspendPayload === undefined ? undefined : await displayed(tool, ref, 'suspend', waits.suspendPayload);
  return { display: { args, ...(suspendPayload !== undefined ? { suspendPayload } : {}) } };
}

/**
 * The outcome as the transcript keeps it: an output that did not come from the tool's `execute` (a
 * client's result, a skipped call's, a sub-agent's answer) shaped by the transcript transform and
 * `toModelOutput`; an error by the transcript's error transform.
 */
export async function transcribed(
  tool: ToolSpec | undefined,
  ref: CallRef,
  outcome: ToolCallOutcome,
): Promise<ToolCallOutcome> {
  if (outcome.type === 'result') {
    if (outcome.shaped || !(tool?.modelOutput || transcribes(tool, 'output'))) return outcome;
    const shaped = await shapeOutput({ ...ref, output: outcome.output });
    if ('error' in shaped) return { type: 'error', error: shaped.error };
    return { ...outcome, modelOutput: shaped.modelOutput, shaped: true };
  }
  if (outcome.type === 'error' && transcribes(tool, 'error')) {
    const kept = await transformPayload({ ...ref, target: 'transcript', stage: 'error', value: outcome.error });
    return { ...outcome, transcript: asText(kept.value) };
  }
  return outcome;
}

/** The chunk of a finished call as the stream shows it. */
export async function displayedOutcome(tool: ToolSpec | undefined, ref: CallRef, chunk: RunChunk): Promise<RunChunk> {
  if (chunk.type === 'tool-result') return { ...chunk, output: await displayed(tool, ref, 'output', chunk.output) };
  if (chunk.type === 'tool-error') return { ...chunk, error: asText(await displayed(tool, ref, 'error', chunk.error)) };
  return chunk;
}

/** The call a model made, as a reference for its transforms (with the run's request context). */
export function refOf(
  runId: string,
  agentId: string,
  call: Pick<ModelToolCall, 'toolCallId' | 'toolName'>,
  requestContext: RequestContextValues | undefined,
): CallRef {
  return {
    runId,
    agentId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...(requestContext ? { requestContext } : {}),
  };
}

function asText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
