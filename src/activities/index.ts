import type { ModelFactory } from '../models/registry.js';
import type { AgentRegistry } from '../registry.js';
import { callModel } from './call-model.js';
import type { AgentActivities } from './contracts.js';
import { describeAgent } from './describe-agent.js';
import { executeTool } from './execute-tool.js';

/** The activities of a worker, bound to its agents and model providers. */
export function createActivities(registry: AgentRegistry, models: Record<string, ModelFactory>): AgentActivities {
  return {
    describeAgent: async (input) => describeAgent(registry, input),
    callModel: (input) => callModel(registry, models, input),
    executeTool: (input) => executeTool(registry, input),
  };
}
