/**
 * The inputs and outputs of the activities, shared by the workflow (type-only imports) and the
 * activity implementations. Everything here is plain serialisable data.
 */
import type { AgentSpec, ProviderToolSpec } from '../schemas/agent-spec.js';
import type { JsonSchema, JsonValue } from '../schemas/json.js';
import type { Message } from '../schemas/message.js';
import type { Notification } from '../schemas/notification.js';
import type { ProgressTarget } from '../schemas/run-input.js';
import type { ModelSettings, RequestContextValues, ToolChoice } from '../schemas/run-options.js';
import type { ModelFinishReason, SourceRecord, Usage } from '../schemas/run-result.js';
import type { Script, ScriptWindow } from '../schemas/script.js';
import type { StructuredOutputSpec } from '../schemas/structured-output.js';
import type { ToolInfo } from '../schemas/tool-info.js';
import type { ToolModelOutput } from '../schemas/tool-output.js';
import type { DisplayStage } from '../schemas/transform-stages.js';
import type { ApprovalActivities } from './approval-activities.js';
import type { BeganTurn } from './thread-messages.js';
import type { ConversationDelta } from './conversation-ref.js';

export type { CallSetup, ConversationDelta, ConversationRef, SentSetup } from './conversation-ref.js';

/** A run's turn on its thread begins (see `beginThreadTurn`). */
export interface BeginThreadTurnInput {
  threadId: string;
  resourceId: string | undefined;
  runId: string;
  agentId: string;
  /** The id of who started the run, when known. */
  startedBy?: string;
  /** The messages the run was started with: they join the thread. */
  messages: Message[];
  /** How many earlier messages the run's model is shown. */
  lastMessages: number;
  /** Set when the run's agent keeps a working memory: the answer carries the thread's. */
  workingMemory?: true;
  /** The run's turn key (see workflows/thread-writers.ts): the thread begins the turn once the run vouches for it. */
  turnKey?: string;
}

/** A thread asks whether a run began a turn on it with the key of this digest (see `verifyThreadWriter`). */
export interface VerifyThreadWriterInput {
  runId: string;
  threadId: string;
  threadWorkflowId: string;
  digest: string;
}

/** The run vouches for the key, or why the thread may not begin its turn. */
export type VerifyThreadWriterOutput = { ok: true } | { ok: false; reason: string };

/** What a sub-agent is shown of its supervisor's thread (see `readThreadHistory`). */
export interface ReadThreadHistoryInput {
  threadId: string;
  resourceId: string | undefined;
  /** How many of the thread's recent messages the sub-agent's model is shown. */
  lastMessages: number;
}

export interface DescribeAgentInput {
  agentId: string;
}

/** A tool as the model sees it. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Set for a tool the model's provider runs (`webSearchTool`): the activity asks the provider for it. */
  provider?: ProviderToolSpec;
}

export interface CallModelInput {
  runId: string;
  agentId: string;
  stepNumber: number;
  /** Publish text and tool-input deltas to the run's stream as they arrive. */
  stream: boolean;
  /** The run's publish secret, which its stream takes chunks with (set when `stream` is). */
  publishToken?: string;
  /** Model name; undefined means the model instance the agent was defined with. */
  model: string | undefined;
  /** Models that answer, in order, when `model`'s provider fails before it streamed anything. */
  fallbackModels?: string[];
  /** How long each model but the last may stay silent before the next is asked (`modelRetry.fallbackAfter`). */
  fallbackAfterMs?: number;
  /** The run's script, or (with `scriptWindow`) the one step of it this call needs. */
  script: Script | undefined;
  scriptWindow?: ScriptWindow;
  /** Absent when the call repeats the previous call's instructions and tools (`conversation.sameSetup`). */
  instructions?: string;
  /** The whole conversation: a call of a run from before `conversation` (see below) carries it. */
  messages?: Message[];
  /**
   * The conversation by reference: the messages after those the run's previous model call held with
   * its answer, and a reference to those (see workflows/conversation-ref.ts). Set instead of `messages`.
   */
  conversation?: ConversationDelta;
  /**
   * How many of the conversation's messages come first from the run's thread (set only when some do): the scripted
   * model counts its steps after them.
   */
  threadMessages?: number;
  /** Absent when the call repeats the previous call's instructions and tools (`conversation.sameSetup`). */
  tools?: ModelToolDefinition[];
  toolChoice: ToolChoice | undefined;
  settings: ModelSettings | undefined;
  /** The schema the answer must fit: the model is asked for JSON, and a step without tool calls is checked. */
  structuredOutput?: StructuredOutputSpec;
  /** The run's request context, for the transforms that run here. */
  requestContext?: RequestContextValues;
  /** A sub-agent's step: its text goes to the run that streams it, within this slice of its budget. */
  progress?: ProgressTarget;
}

/** A tool call as the model made it. `invalid` says why it cannot run (unknown tool, bad JSON). */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  /** SHA-256 of the tool name and the canonical JSON of the arguments; approvals are bound to it. */
  fingerprint: string;
  invalid?: string;
}

/** A call the model's provider ran inside the model call (a web search), and how it ended. */
export interface ProviderToolCall {
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  fingerprint: string;
  outcome: { type: 'result'; output: JsonValue } | { type: 'error'; error: string };
}

export interface CallModelOutput {
  text: string;
  /** The calls the run is to carry out; not those the provider ran already. */
  toolCalls: ModelToolCall[];
  /** The calls the provider ran inside the model call, when there were any. */
  providerCalls?: ProviderToolCall[];
  /** The pages the provider's search found or the model cited, when there are any (bounded). */
  sources?: SourceRecord[];
  finishReason: ModelFinishReason;
  usage: Usage;
  /** The assistant message(s) to append to the conversation, as the AI SDK produced them. */
  assistantMessages: Message[];
  /** Bytes of progress sent (a sub-agent's step, given `progress`). */
  progressBytes?: number;
  /** The model that answered, where it was one of the agent's fallback models. */
  model?: string;
  /** A step without tool calls of a run with `structuredOutput`: its text is the object, or why it is not. */
  objectOk?: true;
  objectError?: string;
}

export interface ExecuteToolInput {
  runId: string;
  agentId: string;
  toolName: string;
  toolCallId: string;
  args: JsonValue;
  threadId: string | undefined;
  resourceId: string | undefined;
  /** Set when a suspended call is resumed: the data for `context.resumeData`. */
  resume?: { data: JsonValue };
  requestContext?: RequestContextValues;
  /** The run's publish secret: what the tool writes (`context.writer`) goes to the run's stream with it. */
  publishToken?: string;
  /** A sub-agent's call: what the tool writes goes to the run that streams it too, within this slice. */
  progress?: ProgressTarget;
  /** The run's turn key on its thread: the built-in thread tools write the thread with it. */
  turnKey?: string;
  /** The hash of the preview the call was approved on: the tool runs only if its preview is still that. */
  preview?: { hash: string };
}

/** How an execution ended, and the bytes of progress it sent (a sub-agent's call, given `progress`). */
export type ExecuteToolOutput = ExecuteToolEnd & { progressBytes?: number };

type ExecuteToolEnd =
  /** `shaped`: the model's view came from the tool's transcript transform and `toModelOutput` already. */
  | { type: 'result'; output: JsonValue; modelOutput: ToolModelOutput; shaped?: boolean }
  | { type: 'error'; error: string }
  /**
   * The tool called `suspend(payload)`; it runs again when resumed. `resumeSchema`: the JSON schema of
   * the resume data this call takes, where the tool's `resumeSchemaFor` narrows its `resumeSchema`.
   */
  | { type: 'suspended'; payload: JsonValue; resumeSchema?: JsonSchema }
  /** The resume data failed the tool's `resumeSchema`; the tool did not run and stays suspended. */
  | { type: 'resume-rejected'; error: string };

/** How a tool call ended, as the model and the result see it. */
export type ToolCallOutcome =
  | Extract<ExecuteToolEnd, { type: 'result' }>
  /** `transcript`: what the stored transcript (and so the model) keeps of the error, when a transform changed it. */
  | { type: 'error'; error: string; transcript?: string }
  /**
   * `message` is what the application sees; `modelText` what the model is told instead (the agent's
   * `declineMessage`), and `asResult` gives it as the tool's result (Mastra's form), not as a denial.
   */
  | { type: 'declined'; message: string; modelText?: string; asResult?: true };

/** The activities the run workflow calls. */
export interface AgentActivities extends ApprovalActivities {
  describeAgent(input: DescribeAgentInput): Promise<AgentSpec>;
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  executeTool(input: ExecuteToolInput): Promise<ExecuteToolOutput>;
  /** Sends a notification to the worker's webhook, signed (only where the spec says the worker sends them). */
  notify(input: Notification): Promise<void>;
  toolCallHook(input: ToolCallHookInput): Promise<ToolCallHookOutput>;
  transformPayload(input: TransformPayloadInput): Promise<{ value: JsonValue }>;
  shapeOutput(input: ShapeOutputInput): Promise<ShapeOutputOutput>;
  /** The tools of every agent the worker serves (the `listAgentTools` workflow's one activity). */
  listTools(): Promise<ToolInfo[]>;
  /** A run on a thread begins its turn and gets the earlier messages and task list (see `beginThreadTurn`). */
  beginThreadTurn(input: BeginThreadTurnInput): Promise<BeganTurn>;
  /** A thread (local activity) asks a run whether it began a turn there with a key (see `verifyThreadWriter`). */
  verifyThreadWriter(input: VerifyThreadWriterInput): Promise<VerifyThreadWriterOutput>;
  /** Auto-resume: the data for a waiting call, extracted from a user's message by the model. */
  extractResumeData(input: ExtractResumeDataInput): Promise<ExtractResumeDataOutput>;
  /** A sub-agent whose supervisor shares its thread reads the thread's recent messages (see `readThreadHistory`). */
  readThreadHistory(input: ReadThreadHistoryInput): Promise<{ history: Message[] }>;
}

/** A waiting call and a user's message: the model is asked for the call's data (see `extractResumeData`). */
export interface ExtractResumeDataInput {
  runId: string;
  agentId: string;
  /** The run's model (unset: the agent's own). */
  model: string | undefined;
  script: Script | undefined;
  toolName: string;
  kind: 'suspend' | 'approval';
  suspendPayload?: JsonValue;
  /** What the data must fit: the tool's `resumeSchema`, or approve-or-not for an approval. */
  schema: JsonSchema;
  message: string;
}

/** The data, checked against the schema; or what the message does not say. */
export type ExtractResumeDataOutput = { ok: true; data: JsonValue } | { ok: false; missing: string };

/** One stage of one call to transform for the stream (`display`) or the transcript. */
export interface TransformPayloadInput {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  target: 'display' | 'transcript';
  stage: DisplayStage;
  value: JsonValue;
  requestContext?: RequestContextValues;
}

/** An output that did not come from the tool's `execute`, to shape for the model. */
export interface ShapeOutputInput {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  output: JsonValue;
  requestContext?: RequestContextValues;
}

export type ShapeOutputOutput = { modelOutput: ToolModelOutput } | { error: string };

/** An agent hook to run around a tool call; `end` is how the call ended (for `afterToolCall`). */
export interface ToolCallHookInput {
  hook: 'beforeToolCall' | 'afterToolCall';
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  threadId: string | undefined;
  resourceId: string | undefined;
  end?: { output: JsonValue } | { error: string };
  requestContext?: RequestContextValues;
}

/** Go on, skip the call with this output, or the hook failed (the call does not run). */
export type ToolCallHookOutput = { proceed: true } | { proceed: false; output: JsonValue } | { failed: string };
