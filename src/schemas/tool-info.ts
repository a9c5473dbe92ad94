/**
 * What a worker tells of the tools it serves, for callers without their code (`agentctl tools`, other
 * processes): ids, JSON schemas, and what each owning agent's policy makes of a call. Sandbox-safe.
 */
import { z } from 'zod';
import { RequestRefusedError, UnknownToolError } from '../errors.js';
import { AccessRuleSchema } from './access.js';

const JsonSchemaObject = z.record(z.string(), z.unknown());

/** An agent that has the tool, and what its policy makes of the tool's calls. */
export const ToolOwnerSchema = z.object({
  agentId: z.string(),
  /** The key the agent registers the tool under: the name its model calls and every event shows. */
  toolName: z.string(),
  /**
   * Whether a call pauses for approval before it runs, in every run of this agent: `by` says whether
   * the tool asks for it or the agent for every call (`defaultOptions.requireToolApproval`). A run may
   * add approval, never remove it.
   */
  approval: z.object({ required: z.boolean(), by: z.enum(['tool', 'agent']).optional() }),
  /** Whether the agent offers the tool to its runs at all (its `defaultOptions.activeTools`). */
  offered: z.boolean(),
  /** Who may approve or decline a call (unset: anyone the agent lets in), and whether the run's starter may. */
  decide: AccessRuleSchema.optional(),
  selfApproval: z.boolean(),
});
export type ToolOwner = z.infer<typeof ToolOwnerSchema>;

/** A tool a worker serves, as `listTools` and `getTool` describe it. */
export const ToolInfoSchema = z.object({
  /** The tool's `id` (from `createTool`); its name on each agent is in `agents`. */
  id: z.string(),
  description: z.string(),
  /** `tool`: runs on the worker; `client`: has no `execute`, the caller supplies its result (it cannot be run). */
  kind: z.enum(['tool', 'client']),
  inputSchema: JsonSchemaObject,
  outputSchema: JsonSchemaObject.optional(),
  /** Set for a tool that may suspend: what resuming it takes. */
  resumeSchema: JsonSchemaObject.optional(),
  /** The tool's own `requireApproval`. */
  requireApproval: z.boolean(),
  /** The tool may run twice for one call without harm. */
  idempotent: z.boolean(),
  agents: z.array(ToolOwnerSchema).min(1),
});
export type ToolInfo = z.infer<typeof ToolInfoSchema>;

/**
 * The tool with this id, its owners narrowed to `agentId` when given. Distinct tools may share an id
 * on different agents: then the agent must be named.
 */
export function findTool(tools: readonly ToolInfo[], toolId: string, agentId?: string): ToolInfo {
  const withId = tools.filter((t) => t.id === toolId);
  const matches = withId
    .map((t) => (agentId === undefined ? t : { ...t, agents: t.agents.filter((a) => a.agentId === agentId) }))
    .filter((t) => t.agents.length > 0);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new RequestRefusedError(
      'AgentRequired',
      `tool id "${toolId}" names different tools on agents ${agentsOf(matches)}; ` +
        'say which agent (agentctl: --agent ID; the client: agentId)',
    );
  }
  if (withId.length > 0) {
    throw new UnknownToolError(toolId, `agent "${agentId}" does not have it; ${agentsOf(withId)} do`);
  }
  const ids = [...new Set(tools.map((t) => t.id))];
  const named = tools.filter((t) => t.agents.some((a) => a.toolName === toolId));
  const hint = named.length
    ? `; "${toolId}" is the name ${named.map((t) => `of tool "${t.id}"`).join(', ')} on its agents, and tools go by id`
    : '';
  throw new UnknownToolError(
    toolId,
    `the workers serve ${ids.length ? ids.map((id) => `"${id}"`).join(', ') : 'no tools'}${hint}`,
  );
}

/** The agent a run of the tool goes through: the one named, or its only owner. */
export function toolOwner(tool: ToolInfo): ToolOwner {
  if (tool.agents.length === 1) return tool.agents[0]!;
  throw new RequestRefusedError(
    'AgentRequired',
    `tool "${tool.id}" is on agents ${agentsOf([tool])}, each with its own policy; ` +
      'say which one runs it (agentctl: --agent ID; the client: agentId)',
  );
}

function agentsOf(tools: readonly ToolInfo[]): string {
  return tools.flatMap((t) => t.agents.map((a) => `"${a.agentId}"`)).join(', ');
}
