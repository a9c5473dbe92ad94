/**
 * Mastra's `sendToolApproval` argument as a request of `decide`: its own file, so that the thread rules
 * (thread-decisions.ts, which `decide` uses) import nothing of `decide`.
 */
import { approvalWithResumeData } from '../../approvals/approval-resume-data.js';
import { decisionRefused } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import type { DecisionRequest } from './decide.js';
import { THREAD_APPROVAL_KEYS, type ThreadToolApproval } from './thread-decisions.js';

/**
 * A thread approval (Mastra's `sendToolApproval` argument) as a request of `decide`: unknown keys are
 * refused by name, and resume data the approval cannot carry is refused with the reason.
 */
export function threadApprovalRequest(
  where: string,
  { approved, resumeData, reason, ...rest }: ThreadToolApproval & { agentId?: string },
): DecisionRequest {
  rejectUnknownKeys(where, { approved, resumeData, reason, ...rest }, THREAD_APPROVAL_KEYS);
  if (typeof approved !== 'boolean')
    throw new TypeError(`${where}: approved is true or false, not ${JSON.stringify(approved)}`);
  const taken = approvalWithResumeData(approved, reason, resumeData);
  if ('refusal' in taken) throw decisionRefused(`thread:${rest.threadId}`, 'WrongPauseKind', taken.refusal);
  // An approval takes no reason: one given goes on, for decide to refuse by name.
  const why = taken.reason !== undefined ? { reason: taken.reason } : {};
  return { ...rest, kind: approved ? 'approve' : 'decline', ...why } as DecisionRequest;
}
