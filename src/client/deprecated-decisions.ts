/**
 * The decision methods of 0.2, kept for one minor version as thin aliases of {@link AgentClient.decide}
 * (see CHANGELOG.md, 0.3.0). The Mastra names live on as the agent's own methods (`agent.approveToolCall`
 * and the rest; see agent-handle.ts). Loaded by the `durable-agents/client` entry.
 */
import type { DecisionKind } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';
import { AgentClient } from './agent-client.js';
import type { DecisionRequest } from './decisions/decide.js';
import type { Decision, DecisionTarget, Resolving, SentDecision } from './decisions/decisions.js';
import type { ThreadToolApproval } from './decisions/thread-decisions.js';
import type { RunStream } from './stream/run-stream.js';

declare module './agent-client.js' {
  interface AgentClient {
    /** @deprecated Use `decide({ kind: 'approve', ... })`. */
    approveToolCall(target: DecisionTarget & { args?: JsonValue }): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'approve', ... }, { then: 'result' })`. */
    approveToolCallGenerate(target: DecisionTarget & { args?: JsonValue }): Promise<RunResult>;
    /** @deprecated Use `decide({ kind: 'decline', ... })`. */
    declineToolCall(target: DecisionTarget & { reason?: string }): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'decline', ... }, { then: 'result' })`. */
    declineToolCallGenerate(target: DecisionTarget & { reason?: string }): Promise<RunResult>;
    /** @deprecated Use `decide({ kind: 'resume', resumeData, ... })`. */
    resumeStream(resumeData: JsonValue, target: DecisionTarget): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'resume', resumeData, ... }, { then: 'result' })`. */
    resumeGenerate(resumeData: JsonValue, target: DecisionTarget): Promise<RunResult>;
    /** @deprecated Use `decide({ kind: 'result', result, ... })`. */
    submitToolResult(target: DecisionTarget & { result: JsonValue }): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'result', result, ... }, { then: 'result' })`. */
    submitToolResultGenerate(target: DecisionTarget & { result: JsonValue }): Promise<RunResult>;
    /** @deprecated Use `decide({ kind: 'approve' | 'decline', threadId, ... })`. */
    sendToolApproval(approval: ThreadToolApproval & { agentId?: string }): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'approve' | 'decline', threadId, ... }, { then: 'result' })`. */
    sendToolApprovalGenerate(approval: ThreadToolApproval & { agentId?: string }): Promise<RunResult>;
    /** @deprecated Use `decide({ kind: 'resolve', action, ... })`. */
    resolveToolCall(target: DecisionTarget & Resolving): Promise<RunStream>;
    /** @deprecated Use `decide({ kind: 'resolve', action, ... }, { then: 'result' })`. */
    resolveToolCallGenerate(target: DecisionTarget & Resolving): Promise<RunResult>;
    /** @deprecated Use `decide({ kind, ... }, { then: 'sent' })`. */
    sendDecision(kind: DecisionKind, decision: Decision): Promise<SentDecision>;
    /** @deprecated Use `decide({ kind, ... }, { then: 'result' })`. */
    decideAndWait(kind: DecisionKind, decision: Decision): Promise<RunResult>;
    /** @deprecated Use `decide({ kind, ... })`. */
    decideAndStream(kind: DecisionKind, decision: Decision): Promise<RunStream>;
  }
}

/** A 0.2 decision (`resolution` and `result` for a resolution) as a request of `decide`. */
export function requestOf(kind: DecisionKind, decision: Decision): DecisionRequest {
  const { resolution, result, streamGraceMs: _grace, ...rest } = decision;
  if (kind === 'resolve') {
    const output = result !== undefined ? { output: result } : {};
    return { ...rest, kind, action: resolution!, ...output } as DecisionRequest;
  }
  return { ...rest, kind, ...(result !== undefined ? { result } : {}) } as DecisionRequest;
}

function resolving({ action, output, ...target }: DecisionTarget & Resolving): DecisionRequest {
  return { ...target, kind: 'resolve', action, ...(output !== undefined ? { output } : {}) };
}

const RESULT = { then: 'result' } as const;

Object.assign(AgentClient.prototype, {
  approveToolCall(this: AgentClient, target: DecisionTarget & { args?: JsonValue }) {
    return this.decide({ ...target, kind: 'approve' });
  },
  approveToolCallGenerate(this: AgentClient, target: DecisionTarget & { args?: JsonValue }) {
    return this.decide({ ...target, kind: 'approve' }, RESULT);
  },
  declineToolCall(this: AgentClient, target: DecisionTarget & { reason?: string }) {
    return this.decide({ ...target, kind: 'decline' });
  },
  declineToolCallGenerate(this: AgentClient, target: DecisionTarget & { reason?: string }) {
    return this.decide({ ...target, kind: 'decline' }, RESULT);
  },
  resumeStream(this: AgentClient, resumeData: JsonValue, target: DecisionTarget) {
    return this.decide({ ...target, kind: 'resume', resumeData });
  },
  resumeGenerate(this: AgentClient, resumeData: JsonValue, target: DecisionTarget) {
    return this.decide({ ...target, kind: 'resume', resumeData }, RESULT);
  },
  submitToolResult(this: AgentClient, target: DecisionTarget & { result: JsonValue }) {
    return this.decide({ ...target, kind: 'result' });
  },
  submitToolResultGenerate(this: AgentClient, target: DecisionTarget & { result: JsonValue }) {
    return this.decide({ ...target, kind: 'result' }, RESULT);
  },
  async sendToolApproval(this: AgentClient, approval: ThreadToolApproval & { agentId?: string }) {
    const { threadApprovalRequest } = await import('./decisions/thread-approval.js');
    return this.decide(threadApprovalRequest('sendToolApproval', approval));
  },
  async sendToolApprovalGenerate(this: AgentClient, approval: ThreadToolApproval & { agentId?: string }) {
    const { threadApprovalRequest } = await import('./decisions/thread-approval.js');
    return this.decide(threadApprovalRequest('sendToolApprovalGenerate', approval), RESULT);
  },
  resolveToolCall(this: AgentClient, target: DecisionTarget & Resolving) {
    return this.decide(resolving(target));
  },
  resolveToolCallGenerate(this: AgentClient, target: DecisionTarget & Resolving) {
    return this.decide(resolving(target), RESULT);
  },
  sendDecision(this: AgentClient, kind: DecisionKind, decision: Decision) {
    return this.decide(requestOf(kind, decision), { then: 'sent' });
  },
  decideAndWait(this: AgentClient, kind: DecisionKind, decision: Decision) {
    return this.decide(requestOf(kind, decision), RESULT);
  },
  decideAndStream(this: AgentClient, kind: DecisionKind, decision: Decision) {
    return this.decide(requestOf(kind, decision));
  },
});
