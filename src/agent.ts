/**
 * An agent: its model, instructions and tools, with the methods of Mastra's reference pages
 * (`agent.stream()`, `agent.generate()`, `agent.approveToolCall()`, ...). Define it where the worker and
 * the application both import it: the worker runs it (`createWorker({ agents })`), the application calls
 * its methods through the process's bound client (see `bindClient` in `durable-agents/client`), which
 * is loaded only when a method is first called.
 */
import type { LanguageModel } from 'ai';
import type { z } from 'zod';
import { AGENT_OPTIONS, checkAgent } from './agent-checks.js';
import { AgentHandle, type AgentMethodsClient } from './client/agent-handle.js';
import { memoryOptionsOf } from './memory.js';
import type { AgentOptions, AgentTool } from './agent-options.js';
import type { Overridable } from './schemas/agent-spec.js';
import type { AccessPolicy } from './schemas/access.js';
import type { ApprovalDeadline } from './schemas/deadline.js';
import type { RunOptions } from './schemas/run-options.js';
import type { ModelRetry } from './schemas/model-retry.js';
import type { StructuredOutput } from './structured-output.js';
import type { MemoryOptions } from './schemas/thread.js';
import type { AgentHooks } from './tools/hooks.js';
import type { McpServer } from './tools/mcp.js';
import type { ToolTransforms } from './tools/transforms.js';
import type { WorkflowTool } from './tools/workflow-tool.js';

export { defineWorkflowTool } from './tools/workflow-tool.js';
export type { WorkflowTool } from './tools/workflow-tool.js';
export type { AgentOptions, AgentTool } from './agent-options.js';

/** The options of {@link defineAgent}. */
export interface AgentConfig extends AgentOptions {
  /** Sub-agents: each key becomes a tool `agent-<key>` whose calls run the sub-agent as a child workflow. */
  agents?: Record<string, Agent>;
}

// Fails to compile when AgentConfig gains an option that defineAgent's check does not list.
const everyConfigKey: Record<Exclude<keyof AgentConfig, (typeof AGENT_OPTIONS)[number]>, never> = {};
void everyConfigKey;

/** The bound client, loaded with `durable-agents/client` when an agent's method is first called. */
async function bound(): Promise<AgentMethodsClient> {
  const { boundClient } = await import('./client/bound-client.js');
  return boundClient();
}

/**
 * An agent, as {@link defineAgent} (or `new Agent(config)`, Mastra's form) makes it: its definition
 * (register it on a worker), and its runs' methods: `stream`, `generate`, `approveToolCall`,
 * `declineToolCall`, `resumeStream`, `listSuspendedRuns`, ... (see `AgentHandle`).
 */
export class Agent extends AgentHandle implements AgentConfig {
  readonly kind = 'agent' as const;
  declare readonly id: string;
  name!: string;
  description?: string;
  instructions: string;
  model!: string | LanguageModel;
  fallbackModels?: string[];
  tools: Record<string, AgentTool>;
  agents: Record<string, Agent>;
  workflows: Record<string, WorkflowTool>;
  mcpServers: Record<string, McpServer>;
  defaultOptions?: RunOptions;
  access?: AccessPolicy;
  approvalDeadline?: ApprovalDeadline;
  declineMessage?: string;
  overridable?: Overridable[];
  hooks?: AgentHooks;
  transform?: ToolTransforms;
  requestContextSchema?: z.ZodType;
  memory?: MemoryOptions;
  modelRetry?: ModelRetry;
  structuredOutput?: StructuredOutput;

  constructor(given: AgentConfig) {
    const { memory: givenMemory, ...rest } = given;
    const memory = memoryOptionsOf(givenMemory);
    const config = { ...rest, ...(memory ? { memory } : {}) };
    const { tools, mcpServers } = checkAgent(config);
    super(bound, config.id);
    const { kind: _kind, ...options } = config as AgentConfig & { kind?: unknown };
    Object.assign(this, options);
    this.instructions = config.instructions ?? '';
    this.tools = tools;
    this.agents = config.agents ?? {};
    this.workflows = config.workflows ?? {};
    this.mcpServers = mcpServers;
  }
}

/**
 * Defines an agent. Agents live on the worker; a run's workflow sees only their serialisable
 * description (names, schemas, flags), so a restarted worker re-resolves everything by name.
 */
export function defineAgent(config: AgentConfig): Agent {
  return new Agent(config);
}
