/**
 * The chunks of a run's stream, in the AI SDK's stream-part style. The workflow publishes the step
 * and tool events, the model activity the token deltas (in batches), a tool what it writes (data
 * parts), and a sub-agent its progress. Every chunk has an offset in the run's stream; a subscriber
 * that comes back with its last offset + 1 gets every chunk once.
 *
 * Sandbox-safe: imported by workflow code.
 */
import { z } from 'zod';
import { shownPending } from './shown-pending.js';
import { DataChunkSchema } from './data-chunks.js';
import { PendingToolCallSchema, type PendingToolCall } from './decisions.js';
import { JsonValueSchema, type JsonValue } from './json.js';
import {
  boundedJson,
  MAX_ID,
  MAX_PROGRESS_PAYLOAD_BYTES,
  MAX_PROGRESS_SLICE_BYTES,
  MAX_QUALIFIED_ID,
  MAX_RUN_REF,
  MAX_TEXT,
} from './limits.js';
import {
  finalObject,
  RunFinishReasonSchema,
  SourceRecordSchema,
  UsageSchema,
  type StoredRunResult,
} from './run-result.js';

const step = { stepNumber: z.number() };
/** Which attempt of the model activity produced a delta; see `model-retry`. */
const attempt = { stepNumber: z.number(), attempt: z.number() };
const call = { toolCallId: z.string(), toolName: z.string() };
/** Set on the chunks of a call the model's provider ran itself, inside the model call (a web search). */
const byProvider = { providerExecuted: z.literal(true).optional() };

/** What the model activity streams as the model writes; see {@link DeltaChunkSchema}. */
const deltaChunks = [
  z.object({ type: z.literal('text-delta'), ...attempt, id: z.string(), delta: z.string() }),
  z.object({ type: z.literal('tool-input-start'), ...attempt, ...call, ...byProvider }),
  z.object({ type: z.literal('tool-input-delta'), ...attempt, toolCallId: z.string(), delta: z.string() }),
  z.object({ type: z.literal('tool-input-end'), ...attempt, toolCallId: z.string() }),
  /** A model attempt failed and a new one starts: drop what earlier attempts of this step streamed. */
  z.object({ type: z.literal('model-retry'), ...attempt, error: z.string() }),
] as const;

/**
 * The chunks the model activity may publish to its run: the deltas of the model's text and tool
 * inputs, and the mark of a retried attempt. Every other chunk comes from the workflow itself.
 */
export const DeltaChunkSchema = z.discriminatedUnion('type', [...deltaChunks]);
export type DeltaChunk = z.infer<typeof DeltaChunkSchema>;

/** An inner call of a sub-agent, in its progress. */
const innerCall = { toolCallId: z.string().min(1).max(MAX_ID), toolName: z.string().min(1).max(MAX_ID) };

/**
 * What a sub-agent did, as its progress tells the run that streams it: its text as the model writes it
 * (`model-retry`: drop this step's text so far), its tool calls and their outcomes (as its own stream
 * shows them, payloads over {@link MAX_PROGRESS_PAYLOAD_BYTES} mentioned instead of held), what its
 * tools wrote, and `truncated` where its progress budget ran out.
 */
export const ProgressEventSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('text-delta'),
      stepNumber: z.number().int().nonnegative(),
      delta: z.string().max(MAX_PROGRESS_SLICE_BYTES),
    })
    .strict(),
  z
    .object({
      type: z.literal('model-retry'),
      stepNumber: z.number().int().nonnegative(),
      attempt: z.number().int().positive(),
    })
    .strict(),
  z.object({ type: z.literal('tool-call'), ...innerCall, args: boundedJson(MAX_PROGRESS_PAYLOAD_BYTES) }).strict(),
  z.object({ type: z.literal('tool-result'), ...innerCall, output: boundedJson(MAX_PROGRESS_PAYLOAD_BYTES) }).strict(),
  z.object({ type: z.literal('tool-error'), ...innerCall, error: z.string().max(MAX_TEXT) }).strict(),
  z.object({ type: z.literal('data'), ...innerCall, chunk: DataChunkSchema }).strict(),
  z.object({ type: z.literal('truncated'), reason: z.string().max(MAX_TEXT) }).strict(),
]);
export type ProgressEvent = z.infer<typeof ProgressEventSchema>;

/**
 * A sub-agent's progress in the stream of the run that delegated to it (at any depth below):
 * `agentId` and `runId` are the sub-agent's, `toolCallId` the delegating call (qualified by the calls
 * between, `call-0-0/call-1-0`, as pending calls are), `event` what it did.
 */
export const AgentProgressChunkSchema = z
  .object({
    type: z.literal('data-agent-progress'),
    data: z
      .object({
        agentId: z.string().min(1).max(MAX_ID),
        runId: z.string().min(1).max(MAX_RUN_REF),
        toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
        event: ProgressEventSchema,
      })
      .strict(),
  })
  .strict();
export type AgentProgressChunk = z.infer<typeof AgentProgressChunkSchema>;
export type AgentProgress = AgentProgressChunk['data'];

/** What activities may publish to a run: deltas, tools' data parts, and sub-agents' progress. */
export const PublishedChunkSchema = z.union([DeltaChunkSchema, AgentProgressChunkSchema, DataChunkSchema]);
export type PublishedChunk = z.infer<typeof PublishedChunkSchema>;

/** What the workflow publishes itself, and the model's deltas. */
const RunEventChunkSchema = z.discriminatedUnion('type', [
  /** A segment of the run begins: at the start, and when it goes on after a pause. */
  z.object({ type: z.literal('start'), runId: z.string(), agentId: z.string(), resumed: z.boolean() }),
  z.object({ type: z.literal('start-step'), ...step }),
  ...deltaChunks,
  z.object({
    type: z.literal('tool-call'),
    ...step,
    ...call,
    args: JsonValueSchema,
    fingerprint: z.string(),
    ...byProvider,
  }),
  z.object({
    type: z.literal('tool-call-approval'),
    ...call,
    args: JsonValueSchema,
    fingerprint: z.string(),
    /** The tool's preview, which the approval is bound to; `previousPreview`: the one approved before it changed. */
    preview: JsonValueSchema.optional(),
    previousPreview: JsonValueSchema.optional(),
  }),
  z.object({
    type: z.literal('tool-call-suspended'),
    ...call,
    args: JsonValueSchema,
    fingerprint: z.string(),
    payload: JsonValueSchema.optional(),
  }),
  /** An approved call was cut off; whether its side effect happened is not known: it waits to be resolved. */
  z.object({
    type: z.literal('tool-call-uncertain'),
    ...call,
    args: JsonValueSchema,
    fingerprint: z.string(),
    reason: z.string(),
  }),
  /** A standing grant approved the call (`by`: its creator), so it runs without waiting. */
  z.object({ type: z.literal('tool-call-granted'), ...call, grantId: z.string(), by: z.string() }),
  /** A suspended call was resumed with this data; it runs again. */
  z.object({ type: z.literal('tool-call-resumed'), ...call, resumeData: JsonValueSchema }),
  z.object({ type: z.literal('tool-result'), ...call, output: JsonValueSchema, ...byProvider }),
  z.object({ type: z.literal('tool-error'), ...call, error: z.string(), declined: z.boolean(), ...byProvider }),
  /** A page the provider's web search found or the model cited in this step. */
  z.object({ type: z.literal('source'), ...step, ...SourceRecordSchema.shape }),
  z.object({
    type: z.literal('step-finish'),
    ...step,
    text: z.string(),
    finishReason: z.string(),
    usage: UsageSchema,
    /** The model that answered the step, where it was one of the agent's fallback models. */
    model: z.string().optional(),
  }),
  /** A segment ends: the run finished, or it pauses (`suspended`) until a decision. */
  z.object({
    type: z.literal('finish'),
    finishReason: RunFinishReasonSchema,
    text: z.string(),
    usage: UsageSchema,
    pendingToolCalls: z.array(PendingToolCallSchema),
    /** A finished run with an output schema: its answer as that object, or why there is none. */
    object: JsonValueSchema.optional(),
    objectError: z.string().optional(),
  }),
  /** The run failed (or was cancelled); `failureType` is the Temporal failure type, when there is one. */
  z.object({ type: z.literal('error'), error: z.string(), failureType: z.string().optional() }),
]);

/** Every chunk of a run's stream. */
export const RunChunkSchema = z.union([RunEventChunkSchema, AgentProgressChunkSchema, DataChunkSchema]);
export type RunChunk = z.infer<typeof RunChunkSchema>;

type ApprovalChunk = Extract<RunChunk, { type: 'tool-call-approval' }>;
type SuspendedChunk = Extract<RunChunk, { type: 'tool-call-suspended' }>;

/** The call a `tool-call-approval` or `tool-call-suspended` chunk is about, in Mastra's `chunk.payload` form. */
export interface ToolCallPayload {
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  /** What the tool passed to `suspend()` (suspended calls). */
  suspendPayload?: JsonValue;
}

/**
 * A run chunk as subscribers get it. Approval and suspension chunks carry Mastra's `payload`
 * (`toolCallId`, `toolName`, `args`, `suspendPayload`), so that code written for Mastra's pages reads
 * them unchanged; a suspended call's payload is also `suspendPayload`.
 */
export type ClientChunk =
  | Exclude<RunChunk, ApprovalChunk | SuspendedChunk>
  | (ApprovalChunk & { payload: ToolCallPayload })
  | (Omit<SuspendedChunk, 'payload'> & { suspendPayload?: JsonValue; payload: ToolCallPayload });

/** A chunk as subscribers get it: with its offset in the run's stream. */
export type RunStreamChunk = ClientChunk & { offset: number };

/**
 * The subscriber's view of a stored chunk. Made when a chunk is read, not stored with the run, so
 * that the run's state holds each value once (and chunks stored before this view read the same).
 */
export function clientChunk(chunk: RunChunk): ClientChunk {
  const call = (c: ApprovalChunk | SuspendedChunk) => ({
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    args: c.args,
  });
  if (chunk.type === 'tool-call-approval') return { ...chunk, payload: call(chunk) };
  if (chunk.type !== 'tool-call-suspended') return chunk;
  const { payload: suspendPayload, ...rest } = chunk;
  if (suspendPayload === undefined) return { ...rest, payload: call(chunk) };
  return { ...rest, suspendPayload, payload: { ...call(chunk), suspendPayload } };
}

/** A finished run's object, or why it has none, for its `finish` chunk. */
function withObject(result: StoredRunResult, pending: PendingToolCall[]): { object?: JsonValue; objectError?: string } {
  if (pending.length > 0) return {};
  if (result.objectError !== undefined) return { objectError: result.objectError };
  const object = finalObject(result);
  return object !== undefined ? { object } : {};
}

/** Whether a chunk ends a segment of the stream. */
export function endsSegment(chunk: { type: RunChunk['type'] }): boolean {
  return chunk.type === 'finish' || chunk.type === 'error';
}

/** The `finish` chunk that ends a segment: the run as it stands, and what it waits on (nothing once it finished). */
export function finishChunk(
  result: StoredRunResult,
  pending: PendingToolCall[],
): Extract<RunChunk, { type: 'finish' }> {
  return {
    type: 'finish',
    finishReason: result.finishReason,
    text: result.text,
    usage: result.usage,
    pendingToolCalls: pending.map(shownPending),
    ...withObject(result, pending),
  };
}
