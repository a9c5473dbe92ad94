/**
 * The tools a worker serves, as plain data for callers without their code: what `listTools` returns,
 * built from the agents (the same JSON schemas and policy rules a run goes by).
 */
import type { Agent } from '../agent.js';
import { callAccess } from '../approvals/access.js';
import type { ToolInfo, ToolOwner } from '../schemas/tool-info.js';
import type { AnyTool } from '../tools/create-tool.js';
import { jsonSchemaOf, schemaProblem, type ToolSchema } from '../tools/schema.js';
import { isProviderTool } from '../tools/builtin/web-search.js';

/** What the agent's policy makes of calls of one of its tools. */
function owner(agent: Agent, toolName: string, tool: AnyTool): ToolOwner {
  const byAgent = agent.defaultOptions?.requireToolApproval === true;
  const by = tool.requireApproval ? 'tool' : byAgent ? 'agent' : undefined;
  const active = agent.defaultOptions?.activeTools;
  const { decide, selfApproval } = callAccess(agent.access, toolName, 'approval');
  return {
    agentId: agent.id,
    toolName,
    approval: { required: by !== undefined, ...(by ? { by } : {}) },
    offered: active === undefined || active.includes(toolName),
    ...(decide ? { decide } : {}),
    selfApproval: selfApproval === true,
  };
}

/**
 * One entry per tool (the same tool on several agents is one entry with several owners), in the order
 * the agents register them. Sub-agents and workflow tools are agents and workflows, and a provider's
 * tools (web search) run inside the model call: none is listed here.
 */
export function toolCatalog(agents: readonly Agent[]): ToolInfo[] {
  const entries = new Map<AnyTool, ToolInfo>();
  for (const agent of agents) {
    for (const [name, tool] of Object.entries(agent.tools)) {
      // The provider runs its own tools inside the model call: nothing here could run one.
      if (isProviderTool(tool)) continue;
      const known = entries.get(tool);
      if (known) {
        known.agents.push(owner(agent, name, tool));
        continue;
      }
      entries.set(tool, {
        id: tool.id,
        description: tool.description ?? '',
        kind: tool.execute ? 'tool' : 'client',
        inputSchema: jsonSchemaOf(tool.inputSchema),
        // An output schema need not convert to JSON Schema (nothing sends it to a model): listed where it does.
        ...(tool.outputSchema && !schemaProblem(tool.outputSchema, true)
          ? { outputSchema: jsonSchemaOf(tool.outputSchema as ToolSchema, 'output') }
          : {}),
        ...(tool.resumeSchema ? { resumeSchema: jsonSchemaOf(tool.resumeSchema) } : {}),
        requireApproval: tool.requireApproval ?? false,
        idempotent: tool.idempotent ?? false,
        agents: [owner(agent, name, tool)],
      });
    }
  }
  return [...entries.values()];
}
