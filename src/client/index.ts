/**
 * `durable-agents/client`: what an application that starts runs, follows them and decides their calls
 * loads: `AgentClient` and its types, over `@temporalio/client` alone (never the worker).
 */
import './deprecated-decisions.js';

export { AgentClient } from './agent-client.js';
export { AgentHandle } from './agent-handle.js';
export type { AgentMethodsClient, AgentSuspendedRun } from './agent-handle.js';
export { bindClient, boundClient } from './bound-client.js';
export type { AgentClientOptions, ClientBehaviour } from './client-options.js';
export type { BatchCall, BatchDecisionRequest, BatchOutcome } from './decisions/batch-decisions.js';
export type { BatchCondition, BatchOperator } from '../approvals/batch.js';
export type { DecidedBy, DecideThen, DecisionRequest, RunCall, ThreadCall } from './decisions/decide.js';
export type { Decision, DecisionTarget, Resolving, SentDecision } from './decisions/decisions.js';
export type { SigningKey } from './decisions/signing.js';
export type { ThreadToolApproval } from './decisions/thread-decisions.js';
export { DEFAULT_STREAM_GRACE_MS } from '../schemas/stream-grace-ms.js';
export type { RunPrompt, StartOptions, StreamOptions } from './runs/run-input.js';
export type { RunMessageAck, RunMessageOptions } from './runs/run-message.js';
export type { DeepPartial } from './stream/run-stream.js';
export type { ToolApprovalFunction } from '../approvals/policy.js';
export type { ClientToolInput } from './runs/client-tools.js';
export type { RunBuild } from './runs/run-build.js';
export type { RunFilter, RunInfo, RunPage, RunPageRequest, SuspendedRun } from './runs/runs.js';
export type { ReceiptsTarget } from './runs/receipts.js';
export type { Receipt } from '../schemas/receipts.js';
export type { GrantsApi } from './grants-api.js';
export type {
  CreateGrantRequest,
  GrantBookRequest,
  RevokedGrants,
  RevokeGrantRequest,
  RevokeGrantsMadeByRequest,
} from './grant-requests.js';
export type { Grant, GrantScope } from '../schemas/grants.js';
export { receiptLine } from '../approvals/receipt-line.js';
export type { BuildInfo } from './runs/builds.js';
export type { ModelStepRetry } from './runs/model-step.js';
export { RunStream } from './stream/run-stream.js';
export type { ThreadFilter, ThreadInfo, ThreadMessages, ThreadTasks, WorkingMemory } from './threads.js';
export { toolRunOutcome } from './tool-outcome.js';
export type { ToolRunOptions, ToolRunStarted } from './tools.js';
export type { PrincipalInput } from './identity.js';
export { failureOf } from './failures.js';
export type { Failure } from './failures.js';
export { DEFAULT_TASK_QUEUE, resolveConnection } from '../connection/config.js';
export type { ConnectionSettings } from '../connection/config.js';
export {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyWebhook,
  webhookDeliveryLog,
  WebhookReplayError,
  WebhookVerificationError,
} from '../notifications/webhook.js';
export type { VerifyWebhookOptions, WebhookDeliveryLog, WebhookHeaders } from '../notifications/webhook.js';
