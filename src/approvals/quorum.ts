/**
 * Quorum: a call that needs several approvers (a tool's or agent's `quorum`) runs once that many distinct
 * principals have approved it. The ledger counts the approvals; this says which may not count. Pure.
 */
import type { DecisionSignal, PendingToolCall, RefusalType } from '../schemas/decisions.js';
import { clip } from '../schemas/limits.js';

/**
 * Why an approval cannot count towards a call's quorum: it names no principal (nobody could tell two
 * apart), its principal approved already (each counts once), or it changes the arguments (the others
 * approved these).
 */
export function quorumProblem(
  call: PendingToolCall,
  decision: Pick<DecisionSignal, 'principal' | 'args'>,
): { accepted: false; type: RefusalType; message: string } | undefined {
  const { quorum } = call;
  if (!quorum) return undefined;
  const needs = `needs ${quorum.required} approvals by distinct principals`;
  const what = `tool call ${call.toolCallId} (${call.toolName}) ${needs}`;
  const so = `${quorum.approvals.length} of ${quorum.required} so far`;
  if (!decision.principal) {
    return {
      accepted: false,
      type: 'NotAllowed',
      message: `${what}: an approval that names no principal does not count`,
    };
  }
  const id = decision.principal.id;
  if (quorum.approvals.some((a) => a.principal === id)) {
    return {
      accepted: false,
      type: 'AlreadyDecided',
      message: `${what}, and "${clip(id)}" approved it already (${so})`,
    };
  }
  if (decision.args !== undefined) {
    return {
      accepted: false,
      type: 'InvalidDecision',
      message: `${what}: an approval of it cannot change its arguments`,
    };
  }
  return undefined;
}
