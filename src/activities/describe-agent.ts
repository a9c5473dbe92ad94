import { z } from 'zod';
import type { AgentRegistry } from '../registry.js';
import type { AgentSpec } from '../schemas.js';
import type { DescribeAgentInput } from './contracts.js';

/**
 * The serialisable description of an agent. Returned by an activity, it becomes part of the run's
 * history, so a redeploy that changes the agent does not change a run in flight.
 */
export function describeAgent(registry: AgentRegistry, { agentId }: DescribeAgentInput): AgentSpec {
  const agent = registry.get(agentId);
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model: typeof agent.model === 'string' ? agent.model : undefined,
    tools: Object.entries(agent.tools).map(([name, tool]) => ({
      name,
      id: tool.id,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }),
      requireApproval: tool.requireApproval ?? false,
      ...(tool.resumeSchema ? { resumeSchema: z.toJSONSchema(tool.resumeSchema, { io: 'input', unrepresentable: 'any' }) } : {}),
      activity: tool.activity,
    })),
    defaultOptions: agent.defaultOptions,
  };
}
