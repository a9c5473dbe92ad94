/**
 * The client an agent's own methods (`agent.stream()`, `agent.approveToolCall()`, ...) use: the one the
 * application binds with {@link bindClient}, else one connected from the environment (or the Temporal
 * config profile) when a method is first called. One per process.
 */
import { AgentClient } from './agent-client.js';

let bound: AgentClient | Promise<AgentClient> | undefined;

/** Binds the client every agent's own methods use in this process (replacing any bound before). */
export function bindClient(client: AgentClient): void {
  bound = client;
}

/**
 * The bound client: the one given to {@link bindClient}, else `AgentClient.connect()` (from
 * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TASK_QUEUE` or the config profile), made once.
 */
export async function boundClient(): Promise<AgentClient> {
  if (!bound) {
    bound = AgentClient.connect();
    // A failed connection is not kept: the next call tries again.
    bound.catch(() => (bound = undefined));
  }
  return bound;
}
