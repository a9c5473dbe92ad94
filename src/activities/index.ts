import type { ModelFactory } from '../models/registry.js';
import type { AgentRegistry } from '../registry.js';
import { callModel } from './call-model.js';
import type { AgentActivities } from './contracts.js';
import { describeAgent } from './describe-agent.js';
import { executeTool } from './execute-tool.js';
import { beginThreadTurn } from './thread.js';
import { toolCallHook } from './tool-call-hook.js';
import { shapeOutput, transformPayload } from './transform-payload.js';
import { decisionKeyObjects, verifyDecision, type DecisionKeys } from './verify-decision.js';

/**
 * The activities of a worker, bound to its agents and model providers, and to its approvers' keys
 * when decisions must be signed.
 */
export function createActivities(
  registry: AgentRegistry,
  models: Record<string, ModelFactory>,
  decisionKeys?: DecisionKeys,
): AgentActivities {
  const keys = decisionKeys ? decisionKeyObjects(decisionKeys) : undefined;
  return {
    describeAgent: async (input) => ({ ...describeAgent(registry, input), ...(keys ? { signedDecisions: true } : {}) }),
    callModel: (input) => callModel(registry, models, input),
    toolCallHook: (input) => toolCallHook(registry, input),
    executeTool: (input) => executeTool(registry, input),
    transformPayload: (input) => transformPayload(registry, input),
    shapeOutput: (input) => shapeOutput(registry, input),
    listTools: async () => registry.listTools(),
    beginThreadTurn,
    // A run asks only where its spec says decisions are signed, which it says only when keys are here.
    verifyDecision: async (input) =>
      keys ? verifyDecision(keys, input) : { ok: false, reason: 'this worker has no decision keys' },
  };
}
