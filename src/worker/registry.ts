import type { Agent } from '../agent.js';
import { UnknownAgentError } from '../errors.js';
import { findTool, type ToolInfo } from '../schemas/tool-info.js';
import { toolCatalog } from './tool-catalog.js';

/** The agents a worker serves, by id. */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  /** Registers the agents and, under their own ids, every sub-agent they delegate to. */
  constructor(agents: Agent[]) {
    const add = (agent: Agent): void => {
      const known = this.agents.get(agent.id);
      if (known === agent) return;
      if (known) throw new TypeError(`Two agents have the id "${agent.id}"; agent ids must be unique on a worker`);
      this.agents.set(agent.id, agent);
      for (const sub of Object.values(agent.agents)) add(sub);
    };
    agents.forEach(add);
  }

  /** The agent with this id; throws {@link UnknownAgentError} when the worker has none. */
  get(agentId: string): Agent {
    const agent = this.agents.get(agentId);
    if (!agent) throw new UnknownAgentError(agentId, [...this.agents.keys()]);
    return agent;
  }

  ids(): string[] {
    return [...this.agents.keys()];
  }

  /**
   * Every tool of every agent here (sub-agents and workflow tools aside), each once with the agents
   * that have it: its id, description, JSON schemas, and what each agent's policy makes of its calls.
   */
  listTools(): ToolInfo[] {
    return toolCatalog([...this.agents.values()]);
  }

  /**
   * The tool with this id, with the agents that have it (only `agentId`, when given). Throws
   * `UnknownToolError` for an id no tool here has, and `RequestRefusedError` (`AgentRequired`) where
   * distinct tools share the id and no agent is named.
   */
  getTool(toolId: string, agentId?: string): ToolInfo {
    return findTool(this.listTools(), toolId, agentId);
  }
}
