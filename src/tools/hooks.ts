/**
 * Agent hooks around every tool call, whatever runs it (a tool on the worker, a sub-agent, a workflow,
 * a client): code on the worker, resolved by the agent's id like its tools.
 */
import type { JsonValue } from '../schemas/json.js';
import type { RequestContext } from './request-context.js';

/** What a hook is told of the call. */
export interface ToolCallHookContext {
  runId: string;
  agentId: string;
  toolCallId: string;
  /** The tool's name on the agent (`agent-<key>`, `workflow-<key>` for delegations). */
  toolName: string;
  /** The arguments the call runs with (an approver may have changed the model's). */
  args: JsonValue;
  /** The same arguments, under the name Mastra's hooks read them by. */
  input: JsonValue;
  threadId: string | undefined;
  resourceId: string | undefined;
  /** The run's request context. */
  requestContext: RequestContext;
}

/** What `beforeToolCall` may answer: nothing (go on), or skip the call with an output the model gets. */
export type BeforeToolCallResult = void | undefined | { proceed: true } | { proceed: false; output: JsonValue };

/** How a call ended, as `afterToolCall` sees it: `output`, or `error` (the other one is undefined). */
export type ToolCallEnd = { output: JsonValue; error?: undefined } | { output?: undefined; error: string };

/** The hooks of an agent. */
export interface AgentHooks {
  /**
   * Runs before every call runs (after its approval, when it needs one). Return `{ proceed: false,
   * output }` to skip the call: the model gets `output` as its result. A hook that throws stops the
   * call: it becomes a tool error, and nothing runs.
   */
  beforeToolCall?: (context: ToolCallHookContext) => BeforeToolCallResult | Promise<BeforeToolCallResult>;
  /**
   * Runs after every call ended, with its output or its error (the error stays the call's outcome).
   * It observes: what it returns is ignored, and an error it throws is logged.
   */
  afterToolCall?: (context: ToolCallHookContext & ToolCallEnd) => void | Promise<void>;
}
