import type { Agent } from './agent.js';
import { UnknownAgentError } from './errors.js';

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
}
