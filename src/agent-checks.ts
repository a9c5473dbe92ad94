/**
 * The checks `defineAgent` makes of an agent's options, and what it makes of its tools: each refusal
 * names the option and what to do.
 */
import { z } from 'zod';
import type { AgentOptions, AgentTool } from './agent-options.js';
import type { MemoryOptions } from './schemas/thread.js';
import { rejectUnknownKeys, unknownKeyMessage } from './options.js';
import { AccessPolicySchema } from './schemas/access.js';
import { checkApprovalRules } from './approvals/approval-rules.js';
import { checkApprovalJudge } from './approvals/judge.js';
import { checkGrantPolicy } from './approvals/grants.js';
import { declineWordingProblem } from './approvals/decision-messages.js';
import { approvalDeadlineSpec } from './schemas/deadline.js';
import { modelRetrySpec } from './schemas/model-retry.js';
import { OVERRIDABLE, WebSearchOptionsSchema } from './schemas/agent-spec.js';
import { oneLine } from './schemas/json.js';
import { clip } from './schemas/limits.js';
import { RunOptionsSchema } from './schemas/run-options.js';
import { MemoryOptionsSchema, SUB_AGENT_CONTEXTS, type SubAgentContext } from './schemas/thread.js';
import { WORKING_MEMORY_TOOL } from './schemas/working-memory.js';
import { toolNameOf } from './tools/builtin/builtin-names.js';
import { isBuiltinWorkingMemoryTool, workingMemoryTool } from './tools/builtin/update-working-memory.js';
import { isProviderTool, type ProviderTool } from './tools/builtin/web-search.js';
import { checkMcpServers, type McpServer } from './tools/mcp.js';
import { checkTransforms } from './tools/transforms.js';
import { structuredOutputSpec } from './structured-output.js';
import { checkModels } from './agent-model-checks.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Every option `defineAgent` takes; any other is refused, naming the nearest. */
export const AGENT_OPTIONS = [
  'id',
  'name',
  'description',
  'instructions',
  'model',
  'fallbackModels',
  'tools',
  'agents',
  'workflows',
  'mcpServers',
  'defaultOptions',
  'access',
  'approvalDeadline',
  'declineMessage',
  'overridable',
  'hooks',
  'transform',
  'requestContextSchema',
  'memory',
  'modelRetry',
  'structuredOutput',
] as const satisfies ReadonlyArray<keyof AgentOptions | 'agents'>;
// Fails to compile when AgentOptions gains an option that AGENT_OPTIONS does not list (agent.ts checks AgentConfig).
const everyAgentOption: Record<Exclude<keyof AgentOptions, (typeof AGENT_OPTIONS)[number]>, never> = {};
void everyAgentOption;

const PROVIDER_TOOL_KEYS = ['kind', 'type', 'id', 'description', 'options'] as const satisfies ReadonlyArray<
  keyof ProviderTool
>;

/** An agent's options with its memory as options (`new Memory()` taken apart). */
type CheckedConfig = Omit<AgentOptions, 'memory'> & {
  memory?: MemoryOptions;
  /** Sub-agents: checked to be agents (`AgentConfig` types them). */
  agents?: Record<string, { readonly kind?: unknown }>;
};

/** An agent's options, checked: its tools by the name the model calls them, and its MCP servers. */
export function checkAgent(config: CheckedConfig): {
  tools: Record<string, AgentTool>;
  mcpServers: Record<string, McpServer>;
} {
  if (!config.id) throw new TypeError('defineAgent: `id` is required');
  // `kind` and the rest come along when an agent is defined from another (`{ ...agent, model }`).
  const { kind: _kind, ...options } = config as CheckedConfig & { kind?: unknown };
  rejectUnknownKeys(`defineAgent("${config.id}")`, options, AGENT_OPTIONS);
  const tools: Record<string, AgentTool> = {};
  for (const [key, tool] of Object.entries(config.tools ?? {})) {
    if (!TOOL_NAME.test(key)) {
      throw new TypeError(
        `defineAgent("${config.id}"): tool key "${key}" is not a valid tool name; ` +
          'use 1-64 letters, digits, "_" or "-"',
      );
    }
    if (tool?.kind !== 'tool' && !isProviderTool(tool)) {
      throw new TypeError(`defineAgent("${config.id}"): tools.${key} is not a tool; create it with createTool()`);
    }
    const name = toolNameOf(key, tool);
    if (Object.hasOwn(tools, name)) {
      throw new TypeError(
        `defineAgent("${config.id}"): tools.${key} is offered as "${name}", which another tool already is; ` +
          'list a built-in tool once (it keeps its id as its name)',
      );
    }
    tools[name] = tool;
  }
  checkProviderTools(config, tools);
  for (const [key, sub] of Object.entries(config.agents ?? {})) {
    if (!TOOL_NAME.test(`agent-${key}`))
      throw new TypeError(
        `defineAgent("${config.id}"): agents key "${key}" does not make a valid tool name "agent-${key}"`,
      );
    if (sub?.kind !== 'agent')
      throw new TypeError(`defineAgent("${config.id}"): agents.${key} is not an agent; create it with defineAgent()`);
  }
  for (const [key, wf] of Object.entries(config.workflows ?? {})) {
    if (!TOOL_NAME.test(`workflow-${key}`))
      throw new TypeError(
        `defineAgent("${config.id}"): workflows key "${key}" does not make a valid tool name "workflow-${key}"`,
      );
    if (wf?.kind !== 'workflow-tool')
      throw new TypeError(
        `defineAgent("${config.id}"): workflows.${key} is not a workflow tool; create it with defineWorkflowTool()`,
      );
  }
  const mcpServers = checkMcpServers(`defineAgent("${config.id}")`, config.mcpServers);
  if (config.memory !== undefined) {
    checkSubAgentContext(config);
    const parsed = MemoryOptionsSchema.safeParse(config.memory);
    if (!parsed.success) {
      throw new TypeError(`defineAgent("${config.id}"): invalid memory: ${oneLine(parsed.error.issues)}`);
    }
  }
  addWorkingMemoryTool(config, tools);
  if (config.defaultOptions) {
    const parsed = RunOptionsSchema.safeParse(config.defaultOptions);
    if (!parsed.success) {
      throw new TypeError(`defineAgent("${config.id}"): invalid defaultOptions: ${parsed.error.message}`);
    }
    if (config.defaultOptions.clientTools) {
      throw new TypeError(
        `defineAgent("${config.id}"): defaultOptions.clientTools is a run option; ` +
          'give the agent the tool itself (tools: { name: createTool({ ... }) } without execute)',
      );
    }
  }
  if (config.access) {
    const parsed = AccessPolicySchema.safeParse(config.access);
    if (!parsed.success)
      throw new TypeError(`defineAgent("${config.id}"): invalid access: ${z.prettifyError(parsed.error)}`);
    const unknown = Object.keys(config.access.tools ?? {}).filter((name) => !Object.hasOwn(tools, name));
    if (unknown.length > 0) {
      throw new TypeError(
        `defineAgent("${config.id}"): access.tools names ${unknown.join(', ')}, which the agent does not have`,
      );
    }
    checkApprovalRules(`defineAgent("${config.id}"): access.rules`, parsed.data, tools);
    checkApprovalJudge(`defineAgent("${config.id}"): access.judge`, parsed.data, tools);
    checkGrantPolicy(`defineAgent("${config.id}"): access.grants`, parsed.data, tools);
  }
  if (config.approvalDeadline !== undefined)
    approvalDeadlineSpec(`defineAgent("${config.id}")`, config.approvalDeadline);
  if (config.declineMessage !== undefined) {
    const problem = declineWordingProblem(config.declineMessage);
    if (problem) throw new TypeError(`defineAgent("${config.id}"): declineMessage ${problem}`);
  }
  if (config.modelRetry !== undefined) modelRetrySpec(`defineAgent("${config.id}")`, config.modelRetry);
  checkModels(config);
  if (config.structuredOutput !== undefined) checkStructuredOutput(config);
  for (const [name, hook] of Object.entries(config.hooks ?? {})) {
    if (name !== 'beforeToolCall' && name !== 'afterToolCall') {
      throw new TypeError(
        `defineAgent("${config.id}"): hooks: ${unknownKeyMessage(name, ['beforeToolCall', 'afterToolCall'])}`,
      );
    }
    if (typeof hook !== 'function')
      throw new TypeError(`defineAgent("${config.id}"): hooks.${name} must be a function`);
  }
  checkTransforms(`defineAgent("${config.id}")`, config.transform);
  const badOverride = (config.overridable ?? []).find((o) => !(OVERRIDABLE as readonly string[]).includes(o));
  if (badOverride !== undefined) {
    const takes = OVERRIDABLE.map((o) => `"${o}"`).join(', ');
    throw new TypeError(`defineAgent("${config.id}"): overridable takes ${takes}, not "${badOverride}"`);
  }
  return { tools, mcpServers };
}

/**
 * `memory.subAgentContext` names a context each sub-agent may be given, for all of them or by their
 * key in `agents`: a value we do not know, or a key the agent does not delegate to, is refused rather
 * than a sub-agent silently shown less (or more) than was meant.
 */
function checkSubAgentContext(config: CheckedConfig): void {
  const context: unknown = (config.memory as { subAgentContext?: unknown } | null)?.subAgentContext;
  if (context === undefined) return;
  const where = `defineAgent("${config.id}"): memory.subAgentContext`;
  const known = SUB_AGENT_CONTEXTS.map((c) => `"${c}"`).join(' or ');
  const shown = (value: unknown) => clip(JSON.stringify(value) ?? String(value), 100);
  const checkValue = (value: unknown, at: string): void => {
    if (!SUB_AGENT_CONTEXTS.includes(value as SubAgentContext)) {
      throw new TypeError(`${at} takes ${known}, not ${shown(value)}`);
    }
  };
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    return checkValue(context, `${where} (for every sub-agent, or an object by sub-agent key)`);
  }
  const keys = Object.keys(config.agents ?? {});
  for (const [key, value] of Object.entries(context)) {
    if (!keys.includes(key)) {
      const has = keys.length > 0 ? `its agents are ${keys.join(', ')}` : 'it has no agents';
      throw new TypeError(`${where} names "${key}", which the agent does not delegate to (${has})`);
    }
    checkValue(value, `${where}.${key}`);
  }
}

/**
 * An agent with a working memory offers the built-in `updateWorkingMemory` tool, made for its bound. An
 * agent defined from another gets it anew from its own options (or not at all); a tool of the agent's
 * own by that name is refused rather than shadowed.
 */
function addWorkingMemoryTool(config: CheckedConfig, tools: Record<string, AgentTool>): void {
  for (const [name, tool] of Object.entries(tools)) if (isBuiltinWorkingMemoryTool(tool)) delete tools[name];
  const options = config.memory?.workingMemory;
  if (!options?.enabled) return;
  if (Object.hasOwn(tools, WORKING_MEMORY_TOOL)) {
    throw new TypeError(
      `defineAgent("${config.id}"): tools.${WORKING_MEMORY_TOOL} is a tool of its own, but memory.workingMemory ` +
        'gives the agent the built-in tool of that name; rename your tool',
    );
  }
  tools[WORKING_MEMORY_TOOL] = workingMemoryTool(options);
}

/**
 * A tool the provider runs inside the model call cannot wait for an approval, be skipped by a hook, or
 * have its record in the transcript changed: the provider has run it before the run hears of it, and
 * keeps its own record, which the model reads. An agent that asks for any of these of such a tool is
 * refused here, rather than the ask being ignored. (A run that requires approval of every call is
 * refused at its start, see `effectiveRunOptions`.)
 */
function checkProviderTools(config: CheckedConfig, tools: Record<string, AgentTool>): void {
  const names = Object.keys(tools).filter((name) => isProviderTool(tools[name]));
  if (names.length === 0) return;
  const where = `defineAgent("${config.id}")`;
  for (const name of names) {
    const tool = tools[name] as ProviderTool;
    // `{ ...webSearchTool, requireApproval: true }` would ask for what cannot be done: say so.
    rejectUnknownKeys(`${where}: tools.${name} (webSearchTool)`, tool, PROVIDER_TOOL_KEYS);
    const options = WebSearchOptionsSchema.safeParse(tool.options);
    if (!options.success) throw new TypeError(`${where}: tools.${name}.options: ${oneLine(options.error.issues)}`);
  }
  const first = names[0]!;
  const what = `tools.${first} is webSearchTool, which the model's provider runs inside the model call`;
  if (names.length > 1) {
    throw new TypeError(`${where}: tools ${names.join(', ')} are each webSearchTool; an agent has one web search`);
  }
  const offered = config.defaultOptions?.activeTools?.includes(first) ?? true;
  if (config.defaultOptions?.requireToolApproval === true && offered) {
    throw new TypeError(
      `${where}: defaultOptions.requireToolApproval asks to approve every tool call, but ${what}, ` +
        'where no approval can stop it. Leave it out of defaultOptions.activeTools, or set requireApproval on ' +
        'the tools that need it instead.',
    );
  }
  if (config.hooks?.beforeToolCall) {
    throw new TypeError(
      `${where}: hooks.beforeToolCall may skip any call, but ${what}, before any hook could run. ` +
        'Remove the web search, or check its calls in afterToolCall, which sees each one after the model step.',
    );
  }
  const transcript = Object.keys(config.transform?.transcript ?? {});
  if (transcript.length > 0) {
    throw new TypeError(
      `${where}: transform.transcript (${transcript.join(', ')}) applies to every call of the agent, but ${what} ` +
        'and keeps its own record of it, which the model reads. ' +
        'Put the transcript transform on the tools that need it.',
    );
  }
  if (config.access?.tools && Object.hasOwn(config.access.tools, first)) {
    throw new TypeError(
      `${where}: access.tools.${first} says who decides its calls, but ${what}: nobody decides them. Remove the entry.`,
    );
  }
}

/** The agent's output schema can be stored with its runs, and is set in one place. */
function checkStructuredOutput(config: CheckedConfig): void {
  const output = structuredOutputSpec(config.structuredOutput);
  if ('problem' in output) throw new TypeError(`defineAgent("${config.id}"): structuredOutput: ${output.problem}`);
  if (config.defaultOptions?.structuredOutput !== undefined) {
    throw new TypeError(
      `defineAgent("${config.id}"): structuredOutput is set twice, at the top and in defaultOptions; keep one`,
    );
  }
}
