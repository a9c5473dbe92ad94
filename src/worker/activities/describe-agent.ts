import { ApplicationFailure } from '@temporalio/common';
import type { AgentRegistry } from '../registry.js';
import { SubAgentInputSchema, type AgentSpec, type ToolSpec } from '../../schemas/agent-spec.js';
import type { Agent, AgentTool } from '../../agent.js';
import { isProviderTool, type ProviderTool } from '../../tools/builtin/web-search.js';
import type { AnyTool } from '../../tools/create-tool.js';
import { jsonSchemaOf } from '../../tools/schema.js';
import { approvalDeadlineSpec } from '../../schemas/deadline.js';
import { modelRetrySpec } from '../../schemas/model-retry.js';
import { transformStages } from '../../tools/transforms.js';
import type { DescribeAgentInput } from '../../protocol/activities.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { structuredOutputSpec } from '../../structured-output.js';
import type { McpToolEntry } from './tools/mcp-tool-list.js';

// Made in tools/schema.ts, for any schema library; exported here too, where the spec is made.
export { jsonSchemaOf };

/** Which stages of a tool's calls are transformed, by the tool or by its agent. */
function transformed(agent: Agent, tool: AnyTool | undefined): Pick<ToolSpec, 'transform'> {
  const stages = transformStages(tool?.transform, agent.transform);
  return stages ? { transform: stages } : {};
}

function toolSpec(agent: Agent, name: string, tool: AgentTool): ToolSpec {
  if (isProviderTool(tool)) return providerToolSpec(agent, name, tool);
  const base = {
    name,
    id: tool.id,
    description: tool.description ?? '',
    inputSchema: jsonSchemaOf(tool.inputSchema),
    requireApproval: tool.requireApproval ?? false,
    ...(tool.approvalDeadline
      ? { approvalDeadline: approvalDeadlineSpec(`tool "${name}"`, tool.approvalDeadline) }
      : {}),
    ...transformed(agent, tool),
    ...(tool.toModelOutput ? { modelOutput: true } : {}),
  };
  if (!tool.execute) return { ...base, kind: 'client' };
  return {
    ...base,
    kind: 'tool',
    ...(tool.resumeSchema ? { resumeSchema: jsonSchemaOf(tool.resumeSchema) } : {}),
    ...(tool.activity ? { activity: tool.activity } : {}),
    ...(tool.idempotent ? { idempotent: true } : {}),
    ...(tool.preview ? { preview: true } : {}),
  };
}

/**
 * A tool the provider runs: nothing about it waits, and only the agent's display transforms apply to
 * what the stream shows of it (`defineAgent` refuses the rest).
 */
function providerToolSpec(agent: Agent, name: string, tool: ProviderTool): ToolSpec {
  return {
    name,
    id: tool.id,
    kind: 'provider',
    description: tool.description,
    inputSchema: { type: 'object', properties: {} },
    requireApproval: false,
    provider: { type: tool.type, options: tool.options },
    ...transformed(agent, undefined),
  };
}

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
    ...(agent.fallbackModels?.length ? { fallbackModels: agent.fallbackModels } : {}),
    tools: [
      ...Object.entries(agent.tools).map(([name, tool]) => toolSpec(agent, name, tool)),
      ...Object.entries(agent.agents).map(([key, sub]): ToolSpec => ({
        name: `agent-${key}`,
        id: sub.id,
        kind: 'agent',
        description:
          `Delegate a task to the sub-agent "${sub.name}"${sub.description ? `: ${sub.description}` : ''}. ` +
          'It answers with its final text.',
        inputSchema: jsonSchemaOf(SubAgentInputSchema),
        subAgent: { id: sub.id, key },
        requireApproval: false,
        ...transformed(agent, undefined),
      })),
      ...Object.entries(agent.workflows).map(([key, wf]): ToolSpec => ({
        name: `workflow-${key}`,
        id: wf.workflowType,
        kind: 'workflow',
        description: wf.description,
        inputSchema: jsonSchemaOf(wf.inputSchema),
        ...(wf.outputSchema ? { outputSchema: jsonSchemaOf(wf.outputSchema, 'output') } : {}),
        workflow: { type: wf.workflowType, ...(wf.taskQueue ? { taskQueue: wf.taskQueue } : {}) },
        requireApproval: false,
        ...transformed(agent, undefined),
      })),
    ],
    defaultOptions: withStructuredOutput(agent),
    ...(agent.access ? { access: agent.access } : {}),
    ...(agent.approvalDeadline
      ? { approvalDeadline: approvalDeadlineSpec(`agent "${agent.id}"`, agent.approvalDeadline) }
      : {}),
    ...(agent.declineMessage !== undefined ? { declineMessage: agent.declineMessage } : {}),
    ...(agent.overridable ? { overridable: agent.overridable } : {}),
    ...(agent.requestContextSchema ? { requestContextSchema: jsonSchemaOf(agent.requestContextSchema) } : {}),
    ...agentTransformed(agent),
    ...(agent.memory ? { memory: agent.memory } : {}),
    ...(agent.modelRetry ? { modelRetry: modelRetrySpec(`agent "${agent.id}"`, agent.modelRetry) } : {}),
    ...(agent.hooks
      ? { hooks: { beforeToolCall: !!agent.hooks.beforeToolCall, afterToolCall: !!agent.hooks.afterToolCall } }
      : {}),
  };
}

/** The stages the agent's own transforms change, where it has any: they apply to a run's client tools too. */
function agentTransformed(agent: Agent): Pick<AgentSpec, 'agentTransform'> {
  const stages = transformStages(undefined, agent.transform);
  return stages ? { agentTransform: stages } : {};
}

/**
 * The spec with the tools of the agent's MCP servers (as listed when the run starts), after its own:
 * tools that execute on the worker, under `<server>_<tool>`. A name another tool of the agent has is
 * refused, naming both, rather than one shadowing the other.
 */
export function withMcpTools(agent: Agent, spec: AgentSpec, tools: McpToolEntry[]): AgentSpec {
  if (tools.length === 0) return spec;
  const taken = new Set(spec.tools.map((t) => t.name));
  const added = tools.map((tool): ToolSpec => {
    if (taken.has(tool.name)) {
      throw ApplicationFailure.nonRetryable(
        `Agent "${agent.id}": MCP tool "${tool.tool}" of server "${tool.server}" is named "${tool.name}", ` +
          'which another of its tools already is; rename that tool or the server in mcpServers',
        'McpToolNameTaken',
      );
    }
    taken.add(tool.name);
    return {
      name: tool.name,
      id: tool.name,
      kind: 'tool',
      description: tool.description,
      inputSchema: tool.inputSchema,
      requireApproval: tool.requireApproval,
      mcpServer: tool.server,
      ...transformed(agent, undefined),
    };
  });
  return { ...spec, tools: [...spec.tools, ...added] };
}

/** The agent's options for every run, with its `structuredOutput` as runs store it (a default a run may replace). */
function withStructuredOutput(agent: Agent): RunOptions | undefined {
  if (agent.structuredOutput === undefined) return agent.defaultOptions;
  const output = structuredOutputSpec(agent.structuredOutput);
  // defineAgent checked it: a problem here is an agent changed after it was defined.
  if ('problem' in output) throw new TypeError(`agent "${agent.id}": structuredOutput: ${output.problem}`);
  return { ...agent.defaultOptions, structuredOutput: output.spec };
}
