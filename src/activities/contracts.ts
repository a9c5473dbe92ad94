/**
 * The inputs and outputs of the activities, shared by the workflow (type-only imports) and the
 * activity implementations. Everything here is plain serialisable data.
 */
import type { AgentSpec } from '../schemas/agent-spec.js';
import type { DecisionKind, DecisionSignal } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { Message } from '../schemas/message.js';
import type { ModelSettings, ToolChoice } from '../schemas/run-options.js';
import type { ModelFinishReason, Usage } from '../schemas/run-result.js';
import type { Script } from '../schemas/script.js';
import type { ToolModelOutput } from '../schemas/tool-output.js';

export interface DescribeAgentInput {
  agentId: string;
}

/** A tool as the model sees it. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
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
  script: Script | undefined;
  instructions: string;
  messages: Message[];
  tools: ModelToolDefinition[];
  toolChoice: ToolChoice | undefined;
  settings: ModelSettings | undefined;
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

export interface CallModelOutput {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: ModelFinishReason;
  usage: Usage;
  /** The assistant message(s) to append to the conversation, as the AI SDK produced them. */
  assistantMessages: Message[];
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
}

export type ExecuteToolOutput =
  | { type: 'result'; output: JsonValue; modelOutput: ToolModelOutput }
  | { type: 'error'; error: string }
  /** The tool called `suspend(payload)`; it runs again when resumed. */
  | { type: 'suspended'; payload: JsonValue }
  /** The resume data failed the tool's `resumeSchema`; the tool did not run and stays suspended. */
  | { type: 'resume-rejected'; error: string };

/** How a tool call ended, as the model and the result see it. */
export type ToolCallOutcome =
  Extract<ExecuteToolOutput, { type: 'result' } | { type: 'error' }> | { type: 'declined'; message: string };

/** The activities the run workflow calls. */
export interface AgentActivities {
  describeAgent(input: DescribeAgentInput): Promise<AgentSpec>;
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  executeTool(input: ExecuteToolInput): Promise<ExecuteToolOutput>;
  verifyDecision(input: VerifyDecisionInput): Promise<VerifyDecisionOutput>;
}

/** A decision to check against the approvers' keys, as the run received it, at workflow time `at`. */
export interface VerifyDecisionInput {
  runId: string;
  kind: DecisionKind;
  decision: DecisionSignal;
  at: string;
}

export type VerifyDecisionOutput = { ok: true } | { ok: false; reason: string };
