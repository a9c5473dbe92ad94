import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../../agent.js';
import { McpServerUnavailableError } from '../../errors.js';
import type { ModelResolver } from '../models/registry.js';
import type { AgentRegistry } from '../registry.js';
import type { Tracing } from '../../tracing/tracing.js';
import { callModel } from './model/call-model.js';
import { ConversationCache } from './model/conversation-cache.js';
import type { AgentActivities } from '../../protocol/activities.js';
import { describeAgent, withMcpTools } from './describe-agent.js';
import type { McpConnections } from './tools/mcp-connections.js';
import type { McpToolEntry } from './tools/mcp-tool-list.js';
import { executeTool } from './tools/execute-tool.js';
import type { PayloadStoreProbe } from './tools/store-ready.js';
import { previewTool } from './tools/preview-tool.js';
import { judgeCall } from './approvals/judge-call.js';
import { useGrant } from './approvals/use-grant.js';
import { extractResumeData } from './model/extract-resume.js';
import { beginThreadTurn, readThreadHistory, verifyThreadWriter } from './threads/thread.js';
import { toolCallHook } from './tools/tool-call-hook.js';
import { shapeOutput, transformPayload } from './tools/transform-payload.js';
import { decisionKeyObjects, verifyDecision, verifyMessage, type DecisionKeys } from './approvals/verify-decision.js';
import { notify, type NotificationSettings } from './approvals/notify.js';
import { MAX_DATA_BYTES, type PayloadLimits } from '../../schemas/limits.js';
import type { ModelRetrySpec } from '../../schemas/model-retry.js';

/** What a worker's activities are bound to besides its agents, models and MCP connections. */
export interface ActivitySettings {
  /** The approvers' keys, when decisions must be signed. */
  decisionKeys?: DecisionKeys | undefined;
  tracing?: Tracing | undefined;
  notifications?: NotificationSettings | undefined;
  conversationCacheBytes?: number | undefined;
  /** Set when the worker has a payload store: the larger limits its runs keep to. */
  payloadLimits?: PayloadLimits | undefined;
  /** The payload store, which a tool's large output waits for while it does not take writes. */
  payloadStore?: PayloadStoreProbe | undefined;
  /** The worker's retry of model steps, for agents that set none. */
  modelRetry?: ModelRetrySpec | undefined;
}

/**
 * The activities of a worker, bound to its agents and model providers, to its connections to their MCP
 * servers, to its approvers' keys when decisions must be signed, and to its tracing, when it traces.
 */
export function createActivities(
  registry: AgentRegistry,
  models: ModelResolver,
  mcp: McpConnections,
  settings: ActivitySettings,
): AgentActivities {
  const { decisionKeys, tracing, notifications, conversationCacheBytes, payloadLimits, payloadStore, modelRetry } =
    settings;
  const keys = decisionKeys ? decisionKeyObjects(decisionKeys) : undefined;
  const conversations = new ConversationCache(conversationCacheBytes);
  return {
    describeAgent: async (input) => {
      const agent = registry.get(input.agentId);
      const spec = describeAgent(registry, input);
      const withMcp = withMcpTools(agent, spec, await mcpToolsAtStart(mcp, agent));
      return {
        ...withMcp,
        ...(keys ? { signedDecisions: true } : {}),
        ...(notifications ? { notifications: true } : {}),
        ...(payloadLimits ? { payloadLimits } : {}),
        // The agent's own retry window comes first; the worker's applies to agents that set none.
        ...(withMcp.modelRetry || !modelRetry ? {} : { modelRetry }),
      };
    },
    callModel: (input) => callModel(registry, models, input, conversations, tracing),
    toolCallHook: (input) => toolCallHook(registry, input),
    executeTool: (input) =>
      executeTool(registry, input, mcp, payloadLimits?.maxToolOutputBytes ?? MAX_DATA_BYTES, payloadStore),
    previewTool: (input) => previewTool(registry, input),
    judgeCall: (input) => judgeCall(registry, models, input),
    useGrant,
    transformPayload: (input) => transformPayload(registry, input),
    shapeOutput: (input) => shapeOutput(registry, input),
    listTools: async () => registry.listTools(),
    beginThreadTurn,
    extractResumeData: (input) => extractResumeData(registry, models, input),
    readThreadHistory,
    verifyThreadWriter,
    // A run asks only where its spec says decisions are signed, which it says only when keys are here.
    verifyDecision: async (input) =>
      keys ? verifyDecision(keys, input) : { ok: false, reason: 'this worker has no decision keys' },
    verifyMessage: async (input) =>
      keys ? verifyMessage(keys, input) : { ok: false, reason: 'this worker has no decision keys' },
    // A run notifies only where its spec says this worker sends notifications; a run moved to a worker
    // without them is told so once, and goes on.
    notify: async (input) => {
      if (!notifications) {
        throw ApplicationFailure.nonRetryable('this worker has no notifications configured', 'NotificationsOff');
      }
      await notify(notifications, input);
    },
  };
}

/**
 * The tools of the agent's MCP servers as a run starts. A server that did not answer in time fails the
 * run at once, with its own type: each retry would wait as long again, and the activity's own timeout
 * would end it untyped.
 */
async function mcpToolsAtStart(mcp: McpConnections, agent: Agent): Promise<McpToolEntry[]> {
  try {
    return await mcp.toolsOf(agent);
  } catch (err) {
    if (!(err instanceof McpServerUnavailableError) || !err.timedOut) throw err;
    throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
  }
}
