import type { Agent } from './agent.js';
import { UnknownAgentError } from './errors.js';

/** The agents a worker serves, by id. */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  constructor(agents: Agent[]) {
    for (const agent of agents) {
      if (this.agents.has(agent.id)) throw new TypeError(`Two agents have the id "${agent.id}"; agent ids must be unique on a worker`);
      this.agents.set(agent.id, agent);
    }
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
}
