/**
 * What a decision meets: a run that no longer waits, a message auto-resume could not read, and the
 * refusals, one class per rule. Sandbox-safe: no Node APIs.
 */
import type { RefusalType } from './refusal-types.js';

/**
 * Auto-resume could not read a message (the model failed, after retries): nothing was decided, the
 * call still waits; send the message again, or decide the call directly.
 */
export class AutoResumeFailedError extends Error {
  override readonly name = 'AutoResumeFailedError';
  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super(
      `Run "${runId}" still waits: auto-resume could not read the message (${reason}); ` +
        'send it again, or decide the call',
    );
  }
}

/** A decision for a run that has finished. */
export class RunNotWaitingError extends Error {
  override readonly name = 'RunNotWaitingError';
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
    super(`Run "${runId}" has finished (${status}); there is nothing to decide.`);
  }
}

/**
 * An approve, decline or resume that was refused; `type` says which rule it broke. The subclasses
 * name the common cases, e.g. {@link ApprovalMismatchError} for a fingerprint that does not match.
 */
export class DecisionRefusedError extends Error {
  override name = 'DecisionRefusedError';
  constructor(
    readonly runId: string,
    readonly type: RefusalType,
    readonly reason: string,
  ) {
    super(`Refused for run "${runId}": ${reason}`);
  }
}
export class ApprovalMismatchError extends DecisionRefusedError {
  override name = 'ApprovalMismatchError';
}
export class UnknownToolCallError extends DecisionRefusedError {
  override name = 'UnknownToolCallError';
}
export class AlreadyDecidedError extends DecisionRefusedError {
  override name = 'AlreadyDecidedError';
}
export class WrongPauseKindError extends DecisionRefusedError {
  override name = 'WrongPauseKindError';
}
export class NothingPendingError extends DecisionRefusedError {
  override name = 'NothingPendingError';
}
export class InvalidResumeDataError extends DecisionRefusedError {
  override name = 'InvalidResumeDataError';
}
/** The principal may not decide this call (the agent's access policy, or another tenant's run). */
export class NotAllowedError extends DecisionRefusedError {
  override name = 'NotAllowedError';
}
/** The principal started the run, and the call's rule does not let a starter decide it. */
export class SelfApprovalError extends DecisionRefusedError {
  override name = 'SelfApprovalError';
}
/** An approval with changed arguments that do not fit the tool's input schema. */
export class InvalidArgumentsError extends DecisionRefusedError {
  override name = 'InvalidArgumentsError';
}
/** A decision without a valid signature where the worker requires signed decisions. */
export class InvalidSignatureError extends DecisionRefusedError {
  override name = 'InvalidSignatureError';
}

const refusalClasses: Record<RefusalType, typeof DecisionRefusedError> = {
  FingerprintMismatch: ApprovalMismatchError,
  UnknownToolCall: UnknownToolCallError,
  AlreadyDecided: AlreadyDecidedError,
  WrongPauseKind: WrongPauseKindError,
  NothingPending: NothingPendingError,
  InvalidResumeData: InvalidResumeDataError,
  InvalidDecision: DecisionRefusedError,
  NotAllowed: NotAllowedError,
  SelfApproval: SelfApprovalError,
  InvalidArguments: InvalidArgumentsError,
  InvalidSignature: InvalidSignatureError,
};

/** The typed error for a refusal of the given type. */
export function decisionRefused(runId: string, type: RefusalType, reason: string): DecisionRefusedError {
  return new refusalClasses[type](runId, type, reason);
}
