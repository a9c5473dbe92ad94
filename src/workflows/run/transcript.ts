/**
 * Pure functions that shape a run's conversation and result. The workflow calls them; they have
 * unit tests of their own.
 */
import type {
  CallModelOutput,
  ModelToolCall,
  ModelToolDefinition,
  ProviderToolCall,
  ToolCallOutcome,
} from '../../protocol/activities.js';
import { mostRecentPending } from '../../approvals/rules.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { DecisionRecord, PendingToolCall } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import type { Message } from '../../schemas/message.js';
import type { StepRecord, StoredRunResult, ToolCallRecord, ToolResultRecord, Usage } from '../../schemas/run-result.js';
import type { RunChunk } from '../../schemas/stream-chunks.js';
import { noAnswerReason } from '../../schemas/structured-output.js';
import type { ToolModelOutput } from '../../schemas/tool-output.js';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** The outcome of one tool call, whether it ran or not. */
export interface ToolOutcome {
  call: ModelToolCall;
  result: ToolCallOutcome;
}

/** What the model is shown of an outcome: the tool's own shaping of a result, or the error. */
function modelOutput({ result }: ToolOutcome): ToolModelOutput {
  if (result.type === 'result') return result.modelOutput;
  if (result.type === 'declined') {
    const text = result.modelText ?? result.message;
    return result.asResult ? { type: 'text', value: text } : { type: 'execution-denied', reason: text };
  }
  return { type: 'error-text', value: result.transcript ?? result.error };
}

/** An outcome of a call that ran with arguments the approver changed: the model is told, and which. */
export function withChangedArguments(outcome: ToolCallOutcome, args: JsonValue, by: string | null): ToolCallOutcome {
  const note = `The approver${by ? ` (${by})` : ''} changed the arguments of this call to ${JSON.stringify(args)}.`;
  if (outcome.type === 'error') {
    const transcript = outcome.transcript !== undefined ? { transcript: `${note} ${outcome.transcript}` } : {};
    return { ...outcome, error: `${note} ${outcome.error}`, ...transcript };
  }
  if (outcome.type !== 'result') return outcome;
  const shown = outcome.modelOutput;
  const modelOutput: ToolModelOutput =
    shown.type === 'text' || shown.type === 'error-text'
      ? { ...shown, value: `${note}\n${shown.value}` }
      : shown.type === 'json'
        ? { type: 'json', value: { note, output: shown.value } }
        : shown;
  return { ...outcome, modelOutput };
}

/** An output someone else supplied (a client tool's result, a skipped call's): text as text, anything else as JSON. */
export function operatorOutput(output: JsonValue): ToolCallOutcome {
  const modelOutput =
    typeof output === 'string' ? { type: 'text' as const, value: output } : { type: 'json' as const, value: output };
  return { type: 'result', output, modelOutput };
}

/** The tool message that answers every call of a step, in the order the model made them. */
export function toolResultMessage(outcomes: ToolOutcome[]): Message {
  return {
    role: 'tool',
    content: outcomes.map((outcome) => ({
      type: 'tool-result',
      toolCallId: outcome.call.toolCallId,
      toolName: outcome.call.toolName,
      output: modelOutput(outcome),
    })),
  };
}

/** How an outcome is recorded in the step; the chunk and the model's view are made from it. */
export function toolResultRecord({ call, result }: ToolOutcome): ToolResultRecord {
  const ids = { toolCallId: call.toolCallId, toolName: call.toolName };
  if (result.type === 'result') return { ...ids, isError: false, output: result.output };
  if (result.type === 'declined') return { ...ids, isError: true, error: result.message, declined: true };
  return { ...ids, isError: true, error: result.error };
}

/** The stream's chunk for an outcome. */
export function outcomeChunk(outcome: ToolOutcome): RunChunk {
  const record = toolResultRecord(outcome);
  const ids = { toolCallId: record.toolCallId, toolName: record.toolName };
  if (!record.isError) return { type: 'tool-result', ...ids, output: record.output };
  return { type: 'tool-error', ...ids, error: record.error, declined: record.declined === true };
}

export function toolCallRecord(call: ModelToolCall): ToolCallRecord {
  return { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
}

/** A call the provider ran inside the model call, as the step records it. */
export function providerCallRecord(call: ProviderToolCall): ToolCallRecord {
  return { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, providerExecuted: true };
}

/** How a call the provider ran ended, as the step records it. */
export function providerResultRecord({ toolCallId, toolName, outcome }: ProviderToolCall): ToolResultRecord {
  return outcome.type === 'result'
    ? { toolCallId, toolName, isError: false, output: outcome.output, providerExecuted: true }
    : { toolCallId, toolName, isError: true, error: outcome.error, providerExecuted: true };
}

/**
 * The stream's chunks for a call the provider ran: its call, and how it ended. (The model already has
 * the result: the provider's record of it is in the step's assistant message.)
 */
export function providerCallChunks(stepNumber: number, call: ProviderToolCall): [RunChunk, RunChunk] {
  const { toolCallId, toolName, args, fingerprint, outcome } = call;
  const ids = { toolCallId, toolName };
  return [
    { type: 'tool-call', stepNumber, ...ids, args, fingerprint, providerExecuted: true },
    outcome.type === 'result'
      ? { type: 'tool-result', ...ids, output: outcome.output, providerExecuted: true }
      : { type: 'tool-error', ...ids, error: outcome.error, declined: false, providerExecuted: true },
  ];
}

/** A provider's call as the agent's hooks see it: a call that ran, with its output or error. */
export function providerCallOutcome({ toolCallId, toolName, args, fingerprint, outcome }: ProviderToolCall): {
  call: ModelToolCall;
  result: ToolCallOutcome;
} {
  const call = { toolCallId, toolName, args, fingerprint };
  if (outcome.type === 'error') return { call, result: { type: 'error', error: outcome.error } };
  return {
    call,
    result: { type: 'result', output: outcome.output, modelOutput: { type: 'json', value: outcome.output } },
  };
}

export function stepRecord(stepNumber: number, model: CallModelOutput, outcomes: ToolOutcome[]): StepRecord {
  // The provider ran its calls inside the model call, before the run carried out any of the others.
  const byProvider = model.providerCalls ?? [];
  return {
    stepNumber,
    text: model.text,
    toolCalls: [...byProvider.map(providerCallRecord), ...model.toolCalls.map(toolCallRecord)],
    toolResults: [...byProvider.map(providerResultRecord), ...outcomes.map(toolResultRecord)],
    finishReason: model.finishReason,
    usage: model.usage,
    ...(model.sources ? { sources: model.sources } : {}),
    ...(model.model ? { model: model.model } : {}),
    ...(model.objectOk ? { objectOk: true as const } : {}),
    ...(model.objectError !== undefined ? { objectError: model.objectError } : {}),
  };
}

/**
 * The run's result as `generate()` returns it: final when nothing is pending, else `suspended` with
 * the pending calls and the most recent one as `suspendPayload`.
 */
export function runResult(args: {
  runId: string;
  agentId: string;
  steps: StepRecord[];
  messages: Message[];
  pending: PendingToolCall[];
  decisions: DecisionRecord[];
  /** The run has an output schema: once it finished, its result has the object or why there is none. */
  structured?: boolean;
}): StoredRunResult {
  const { steps, pending } = args;
  const last = steps[steps.length - 1];
  const waitingOn = mostRecentPending(pending);
  return {
    runId: args.runId,
    agentId: args.agentId,
    text: last?.text ?? '',
    steps,
    usage: steps.reduce((u, s) => addUsage(u, s.usage), ZERO_USAGE),
    // A run that waits only on client tools stopped for the caller's results, as the AI SDK says it.
    finishReason: waitingOn
      ? pending.every((p) => p.kind === 'client')
        ? 'tool-calls'
        : 'suspended'
      : (last?.finishReason ?? 'other'),
    pendingToolCalls: pending,
    ...(waitingOn
      ? {
          suspendPayload: {
            toolCallId: waitingOn.toolCallId,
            toolName: waitingOn.toolName,
            args: waitingOn.args,
            fingerprint: waitingOn.fingerprint,
            requiresApproval: waitingOn.requiresApproval,
            ...(waitingOn.suspendPayload !== undefined ? { payload: waitingOn.suspendPayload } : {}),
          },
        }
      : {}),
    messages: args.messages,
    decisions: args.decisions,
    ...(args.structured && !waitingOn ? objectErrorOf(steps) : {}),
  };
}

/** Why a finished run has no object (its last step's answer is one, read from its text: `finalObject`). */
function objectErrorOf(steps: StepRecord[]): Pick<StoredRunResult, 'objectError'> {
  const last = steps[steps.length - 1];
  if (last?.objectOk) return {};
  return { objectError: last?.objectError ?? noAnswerReason(steps.length, last?.finishReason ?? 'other') };
}

/**
 * The tools the model is offered: all of the agent's, or those named by `activeTools` (which the run
 * policy has checked against the agent's tools).
 */
export function offeredTools(spec: AgentSpec, activeTools: string[] | undefined): ModelToolDefinition[] {
  const known = new Set(spec.tools.map((t) => t.name));
  const active = activeTools ? new Set(activeTools) : known;
  return spec.tools
    .filter((t) => active.has(t.name))
    .map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.kind === 'provider' ? { provider: t.provider } : {}),
    }));
}
