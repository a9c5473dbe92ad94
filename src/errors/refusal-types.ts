/**
 * Why a decision was refused: the rules a decision must pass, each named by one refusal type and
 * thrown as its own `DecisionRefusedError` subclass. A module of its own, so that the decision
 * schemas (which every run of a worker shares) take the list without the error classes.
 */
export const REFUSAL_TYPES = [
  'NothingPending',
  'UnknownToolCall',
  'AlreadyDecided',
  'FingerprintMismatch',
  'WrongPauseKind',
  'InvalidResumeData',
  'InvalidDecision',
  'NotAllowed',
  'SelfApproval',
  'InvalidArguments',
  'InvalidSignature',
] as const;
export type RefusalType = (typeof REFUSAL_TYPES)[number];
