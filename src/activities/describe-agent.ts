import { z } from 'zod';
import type { AgentRegistry } from '../registry.js';
import { SubAgentInputSchema } from '../agent.js';
import type { AgentSpec, ToolSpec } from '../schemas.js';

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}
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
    tools: [
      ...Object.entries(agent.tools).map(([name, tool]): ToolSpec => ({
        name,
        id: tool.id,
        kind: tool.execute ? 'tool' : 'client',
        description: tool.description,
        inputSchema: jsonSchemaOf(tool.inputSchema),
        requireApproval: tool.requireApproval ?? false,
        ...(tool.resumeSchema ? { resumeSchema: jsonSchemaOf(tool.resumeSchema) } : {}),
        activity: tool.activity,
      })),
      ...Object.entries(agent.agents).map(([key, sub]): ToolSpec => ({
        name: `agent-${key}`,
        id: sub.id,
        kind: 'agent',
        description: `Delegate a task to the sub-agent "${sub.name}"${sub.description ? `: ${sub.description}` : ''}. It answers with its final text.`,
        inputSchema: jsonSchemaOf(SubAgentInputSchema),
        subAgent: { id: sub.id, key },
        requireApproval: false,
      })),
      ...Object.entries(agent.workflows).map(([key, wf]): ToolSpec => ({
        name: `workflow-${key}`,
        id: wf.workflowType,
        kind: 'workflow',
        description: wf.description,
        inputSchema: jsonSchemaOf(wf.inputSchema),
        ...(wf.outputSchema
          ? { outputSchema: z.toJSONSchema(wf.outputSchema, { io: 'output', unrepresentable: 'any' }) }
          : {}),
        workflow: { type: wf.workflowType, ...(wf.taskQueue ? { taskQueue: wf.taskQueue } : {}) },
        requireApproval: false,
      })),
    ],
    defaultOptions: agent.defaultOptions,
  };
}
