/**
 * A tool run: the caller makes the run's one call instead of a model. The call is checked as the
 * model's calls are (the agent offers the tool to this run, the input fits its schema), then the run
 * handles it like any call, under the agent's policy. Pure.
 */
import type { CallModelOutput } from '../../protocol/activities.js';
import { toolCallFingerprint } from '../../approvals/fingerprint.js';
import type { AgentSpec, ToolSpecOf } from '../../schemas/agent-spec.js';
import { readJsonSchema, safeParse, type JsonValue } from '../../schemas/json.js';
import { checkWorkProblem } from '../../schemas/schema-cost.js';
import { schemaInRun } from '../../schemas/schema-patterns.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { offeredTools, ZERO_USAGE } from './transcript.js';
import { isWorkingMemoryTool } from '../thread/working-memory.js';

/** The id of a tool run's one call. */
export const TOOL_RUN_CALL_ID = 'tool-run';

export type ToolRunStep =
  { ok: true; step: CallModelOutput } | { ok: false; type: 'ToolRunNotAllowed' | 'InvalidToolInput'; message: string };

/**
 * The step of a tool run, as if a model had made the call; or why the run may not make it. Only tools
 * that run on the worker can be run: a client tool's result comes from the caller, and sub-agents and
 * workflows are started as what they are.
 */
export function toolRunStep(
  runId: string,
  spec: AgentSpec,
  options: RunOptions,
  toolCall: NonNullable<RunInput['toolCall']>,
  /** Whether the run takes the `bounded-schema-checks` patch. */
  boundedChecks: () => boolean,
): ToolRunStep {
  const { toolName, args } = toolCall;
  const refuse = (message: string): ToolRunStep => ({ ok: false, type: 'ToolRunNotAllowed', message });
  const tool = spec.tools.find((t) => t.name === toolName);
  if (!tool) {
    const names = spec.tools.map((t) => t.name).join(', ') || '(none)';
    return refuse(`agent "${spec.id}" has no tool "${toolName}"; its tools: ${names}`);
  }
  if (tool.kind === 'client') {
    return refuse(
      `"${toolName}" of agent "${spec.id}" is a client tool (it has no execute): its result comes from the ` +
        'caller, so there is nothing to run',
    );
  }
  if (tool.kind !== 'tool') {
    return refuse(
      `"${toolName}" of agent "${spec.id}" is a ${tool.kind === 'agent' ? 'sub-agent' : 'workflow'}, not a ` +
        'tool: start it as what it is',
    );
  }
  if (isWorkingMemoryTool(spec, toolName)) {
    // A tool run joins no thread: the memory is the model's to keep, through runs on the thread.
    return refuse(
      `"${toolName}" of agent "${spec.id}" is offered only to the model of a run on a thread: start a run on ` +
        'the thread instead',
    );
  }
  if (!offeredTools(spec, options.activeTools).some((t) => t.name === toolName)) {
    return refuse(
      `agent "${spec.id}" does not offer tool "${toolName}" to this run ` +
        `(its active tools: ${options.activeTools?.join(', ') || '(none)'})`,
    );
  }
  const problem = inputProblem(tool, args, boundedChecks);
  if (problem !== undefined) {
    return {
      ok: false,
      type: 'InvalidToolInput',
      message: `the input of tool "${toolName}" does not fit its inputSchema: ${problem}`,
    };
  }
  const toolCallId = TOOL_RUN_CALL_ID;
  const fingerprint = toolCallFingerprint({ runId, toolCallId, toolName, args });
  return {
    ok: true,
    step: {
      text: '',
      toolCalls: [{ toolCallId, toolName, args, fingerprint }],
      // Nothing follows the call: the run stops with its outcome.
      finishReason: 'stop',
      usage: ZERO_USAGE,
      assistantMessages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName, input: args }] }],
    },
  };
}

/**
 * What is wrong with the input, by the JSON schema the spec stores. A schema zod cannot rebuild is left
 * to the worker, which checks the input against the tool's own schema before it runs; so are an MCP
 * tool's patterns (its schema is its server's: see schemas/schema-patterns.ts). A check too costly for
 * workflow code is refused.
 */
function inputProblem(tool: ToolSpecOf<'tool'>, args: JsonValue, boundedChecks: () => boolean): string | undefined {
  const schema = tool.mcpServer ? schemaInRun(tool.inputSchema, boundedChecks) : tool.inputSchema;
  const costly = checkWorkProblem(schema, args);
  if (costly !== undefined && boundedChecks()) return costly;
  const read = readJsonSchema(schema);
  if ('unreadable' in read) return undefined;
  const parsed = safeParse(read.schema, args);
  return parsed.success ? undefined : parsed.error;
}
