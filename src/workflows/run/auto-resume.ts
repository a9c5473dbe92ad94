/**
 * A new message on the run's thread, for a call the run waits on (auto-resume): the model extracts the
 * call's data from it in an activity, and the run decides with that data through the ledger, as for a
 * decision signal, in the name of who sent the message. A message that does not yield valid data
 * decides nothing: the call still waits, and the sender is told what is missing.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../protocol/activities.js';
import { canDecide } from '../../approvals/access.js';
import { autoResumeVerdict } from '../../approvals/auto-resume.js';
import type { AutoResumeOutcome, AutoResumeRequest } from '../../schemas/auto-resume.js';
import type { DecisionKind, DecisionSignal, RefusalType } from '../../schemas/decisions.js';
import { clip, MAX_TEXT } from '../../schemas/limits.js';
import type { RunState } from './run-state.js';

const { extractResumeData } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['UnknownAgentError', 'UnknownModelError', 'ScriptExhaustedError'],
  },
});

const NOTE = 'auto-resume: a message on the thread';

/**
 * The update's validator: a message may decide only a call its sender could decide by hand (the call's
 * `decide` rule and self-approval, the run's tenant), so a message of someone else's is refused before
 * the run records anything or reads it with the model. The ledger checks the decision again.
 */
export function checkSender(state: RunState, request: AutoResumeRequest): void {
  const call = state.pending().find((c) => c.toolCallId === request.toolCallId);
  if (!call || !state.autoResume) return;
  const access = canDecide(call, state.autoResume.run, request.principal);
  if (!access.allowed) {
    throw ApplicationFailure.nonRetryable(`a message may not answer this call: ${access.message}`, access.type);
  }
}

export async function autoResume(state: RunState, request: AutoResumeRequest): Promise<AutoResumeOutcome> {
  const refuse = (type: RefusalType, message: string): AutoResumeOutcome => ({
    resumed: false,
    refusal: { type, message },
  });
  const { decisionId, toolCallId, message, principal, sentAt, streamGraceMs } = request;
  if (!state.autoResume || state.done || state.continuing) {
    return refuse('NothingPending', `run ${state.runId} is on no thread or waits on nothing: start a new run`);
  }
  const call = state.pending().find((c) => c.toolCallId === toolCallId);
  if (!call) {
    const waiting = state.pending().map((c) => `${c.toolName} ${c.toolCallId}`);
    return refuse(
      'NothingPending',
      `run ${state.runId} does not wait on call ${toolCallId}; it waits on: ${waiting.join(', ') || 'nothing'}`,
    );
  }
  const verdict = autoResumeVerdict(call, state.autoResume.settings, request.enabled);
  if (!verdict.ok) return refuse(verdict.type, verdict.message);
  // A preview binds an approval to what its approver saw; a message names no preview.
  if (call.kind === 'approval' && call.preview) {
    return refuse(
      'NotAllowed',
      `${call.toolName} ${call.toolCallId} shows a preview: approve it by its fingerprint, having read it`,
    );
  }
  if (state.setup.signedDecisions) {
    return refuse(
      'NotAllowed',
      `decisions on run ${state.runId} must carry an approver's signature, which a chat message cannot: ` +
        'decide the call with a signed decision',
    );
  }
  const base: DecisionSignal = {
    decisionId,
    toolCallId,
    fingerprint: call.fingerprint,
    ...(principal ? { principal } : {}),
    by: NOTE,
    ...(sentAt ? { sentAt } : {}),
    ...(streamGraceMs !== undefined ? { streamGraceMs } : {}),
  };
  const extracted = await extractResumeData({
    runId: state.runId,
    agentId: state.agentId,
    model: state.autoResume.model,
    script: request.script,
    toolName: call.toolName,
    kind: verdict.kind,
    ...(call.suspendPayload !== undefined ? { suspendPayload: call.suspendPayload } : {}),
    schema: verdict.schema,
    message,
  }).catch((err: unknown) => {
    // An update handler that throws anything but a Temporal failure would fail the workflow task.
    throw ApplicationFailure.nonRetryable(
      `auto-resume could not read the message: ${err instanceof Error ? err.message : String(err)}`,
      'AutoResumeFailed',
    );
  });
  const kind: DecisionKind = verdict.kind === 'suspend' ? 'resume' : 'approve';
  if (!extracted.ok) {
    const reason = `${call.toolName} (${toolCallId}) still waits: ${extracted.missing}`;
    // The trail keeps the refusal, and the history the message itself: nothing is lost.
    state.refuse(kind, { ...base, reason: clip(message, MAX_TEXT) }, 'InvalidResumeData', clip(reason, MAX_TEXT));
    return refuse('InvalidResumeData', reason);
  }
  const decided = decisionOf(verdict.kind, extracted.data);
  state.decide(decided.kind, { ...base, ...decided.fields });
  const record = state.ledger.verdict(decisionId);
  if (record && !record.accepted && record.refusal) return refuse(record.refusal.type, record.refusal.message);
  return { resumed: true, decisionId, toolCallId, kind: decided.kind };
}

/** The decision the extracted data makes: resume with it, or approve or decline. */
function decisionOf(
  kind: 'suspend' | 'approval',
  data: unknown,
): { kind: 'resume' | 'approve' | 'decline'; fields: Partial<DecisionSignal> } {
  if (kind === 'suspend') return { kind: 'resume', fields: { resumeData: data as DecisionSignal['resumeData'] } };
  const { approved, reason } = data as { approved: boolean; reason?: string };
  if (approved) return { kind: 'approve', fields: {} };
  return { kind: 'decline', fields: reason ? { reason: clip(reason, MAX_TEXT) } : {} };
}
