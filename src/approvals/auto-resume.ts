/**
 * Which waiting call a chat message may decide, and how (auto-resume). Pure; sandbox-safe: the client
 * picks the call with it and the run checks it again.
 */
import { APPROVAL_RESUME_SCHEMA, type AutoResumeSettings } from '../schemas/auto-resume.js';
import type { PendingToolCall, RefusalType } from '../schemas/decisions.js';
import type { JsonSchema } from '../schemas/json.js';

/** What a message may do with a call: extract data for this schema, or nothing, and why. */
export type AutoResumeVerdict =
  { ok: true; kind: 'suspend' | 'approval'; schema: JsonSchema } | { ok: false; type: RefusalType; message: string };

/**
 * A suspended call with a `resumeSchema` is resumed from a message where the agent or the message
 * turns auto-resume on; an approval only where the agent's own options let a message decide
 * approvals. Client tools and uncertain calls are never decided by a message.
 */
export function autoResumeVerdict(
  call: PendingToolCall,
  settings: AutoResumeSettings | undefined,
  enabled: boolean | undefined,
): AutoResumeVerdict {
  const name = `${call.toolName} (${call.toolCallId})`;
  if (call.kind === 'approval') {
    if (enabled !== false && settings?.approvals) return { ok: true, kind: 'approval', schema: APPROVAL_RESUME_SCHEMA };
    return {
      ok: false,
      type: 'WrongPauseKind',
      message:
        `${name} waits for an approval, which a chat message does not decide unless the agent's ` +
        'defaultOptions set autoResumeApprovals: approve or decline it',
    };
  }
  if (call.kind !== 'suspend') {
    return {
      ok: false,
      type: 'WrongPauseKind',
      message: `${name} waits for ${call.kind === 'client' ? "a client tool's result" : 'a resolution'}, not a message`,
    };
  }
  if (!(enabled ?? settings?.suspensions ?? false)) {
    return {
      ok: false,
      type: 'NotAllowed',
      message: `auto-resume is off for ${name}: set autoResumeSuspendedTools on the agent or the message`,
    };
  }
  if (!call.resumeSchema) {
    return {
      ok: false,
      type: 'WrongPauseKind',
      message: `${name} has no resumeSchema, so nothing tells what to take from a message: resume it with data`,
    };
  }
  return { ok: true, kind: 'suspend', schema: call.resumeSchema };
}

/** The call a message on a thread is for: the most recent one among these runs' calls that it may decide. */
export function autoResumeTarget(
  runs: ReadonlyArray<{ runId: string; pendingToolCalls: PendingToolCall[]; autoResume?: AutoResumeSettings }>,
  enabled: boolean | undefined,
): { runId: string; call: PendingToolCall } | undefined {
  let best: { runId: string; call: PendingToolCall } | undefined;
  for (const run of runs) {
    for (const call of run.pendingToolCalls) {
      if (!autoResumeVerdict(call, run.autoResume, enabled).ok) continue;
      if (!best || call.askedAt > best.call.askedAt) best = { runId: run.runId, call };
    }
  }
  return best;
}
