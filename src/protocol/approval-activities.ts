/**
 * The activities a run calls about its approvals: the approvers' signatures checked, a tool's preview
 * computed, and the agent's model judge asked. Sandbox-safe: types only.
 */
import type { DecisionKind, DecisionSignal } from '../schemas/decisions.js';
import type { Grant, UseGrant } from '../schemas/grants.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunMessageRequest } from '../schemas/run-message.js';
import type { RequestContextValues } from '../schemas/run-options.js';

export interface ApprovalActivities {
  verifyDecision(input: VerifyDecisionInput): Promise<VerifyDecisionOutput>;
  /** Checks a message's signature, where the run takes signed decisions (and so signed messages) only. */
  verifyMessage(input: VerifyMessageInput): Promise<VerifyDecisionOutput>;
  /** A tool's dry run of a call, shown to its approver and bound into the call's fingerprint. */
  previewTool(input: PreviewToolInput): Promise<PreviewToolOutput>;
  /** The agent's model judge, asked about a call its approval rules hand to a person. */
  judgeCall(input: JudgeCallInput): Promise<JudgeCallOutput>;
  /** A standing grant of the run's grant book that covers a call (its use counted), or null. */
  useGrant(input: UseGrantInput): Promise<Grant | null>;
}

/** A call to find a grant for, in the book of its agent and resource. */
export type UseGrantInput = UseGrant & { agentId: string; resourceId?: string };

/** A decision to check against the approvers' keys, as the run received it, at workflow time `at`. */
export interface VerifyDecisionInput {
  runId: string;
  kind: DecisionKind;
  decision: DecisionSignal;
  at: string;
}

export interface VerifyMessageInput {
  runId: string;
  message: RunMessageRequest;
  at: string;
}

export type VerifyDecisionOutput = { ok: true } | { ok: false; reason: string };

export interface PreviewToolInput {
  runId: string;
  agentId: string;
  toolName: string;
  toolCallId: string;
  args: JsonValue;
  threadId: string | undefined;
  resourceId: string | undefined;
  requestContext?: RequestContextValues;
}

/** The preview and the SHA-256 of its canonical JSON; or why there is none (the call does not run then). */
export type PreviewToolOutput = { ok: true; preview: JsonValue; hash: string } | { ok: false; error: string };

/** A call to put to the agent's judge (its instructions and model are the agent's, on the worker). */
export interface JudgeCallInput {
  runId: string;
  agentId: string;
  /** The judge's version the run recorded: a worker with another judge does not answer for it. */
  version: string;
  toolName: string;
  args: JsonValue;
  /** The call's arguments as its approver would be shown them (display transforms applied); its preview, if any. */
  preview?: JsonValue;
}

/** The judge's verdict, checked; or why there is none (an answer of another shape): a person decides then. */
export type JudgeCallOutput = { verdict: 'allow' | 'deny' | 'ask'; reason: string } | { failed: string };
