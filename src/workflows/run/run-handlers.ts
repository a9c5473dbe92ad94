/**
 * What a run answers while it runs: decision signals (checked against the approvers' keys where decisions
 * must be signed), sub-agents' reports, the state and conversation queries, the auto-resume and next-pause
 * updates, and its stream.
 */
import { ApplicationFailure, condition, proxyLocalActivities, setHandler, uuid4 } from '@temporalio/workflow';
import type { AgentActivities } from '../../protocol/activities.js';
import { AutoResumeRequestSchema } from '../../schemas/auto-resume.js';
import { DecisionSignalSchema, type DecisionKind } from '../../schemas/decisions.js';
import { safeParse } from '../../schemas/json.js';
import { clip, measureJson } from '../../schemas/limits.js';
import type { RunInput } from '../../schemas/run-input.js';
import { RunMessageRequestSchema, type RunMessageAck, type RunMessageRequest } from '../../schemas/run-message.js';
import {
  autoResumeUpdate,
  childReportSignal,
  conversationQuery,
  decisionSignals,
  nextPauseUpdate,
  refusedUpdate,
  runMessageUpdate,
  NextPauseRequestSchema,
  receiptsQuery,
  runStateQuery,
  type NextPauseRequest,
  type PauseSnapshot,
} from '../../protocol/run-messages.js';
import { legacyDecision, LegacyPublishIntake } from '../stream/legacy-stream.js';
import { ChunkIntake, serveStream } from '../stream/stream-handlers.js';
import { autoResume, checkSender } from './auto-resume.js';
import { ProgressRouting } from './progress.js';
import type { RunState } from './run-state.js';

const { verifyDecision, verifyMessage } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Sets the run's handlers up, in its first activation; `input` is unset when the run's input is invalid. */
export function serveRun(state: RunState, input: RunInput | undefined): void {
  const { runId } = state;
  const kinds = Object.keys(decisionSignals) as DecisionKind[];
  for (const kind of kinds) {
    setHandler(decisionSignals[kind], (d) => receiveDecision(state, kind, legacyDecision(d)));
  }
  setHandler(childReportSignal, (report) => state.childReport(report));
  setHandler(runStateQuery, () => state.snapshot());
  setHandler(receiptsQuery, () => state.ledger.trail.receipts.view());
  setHandler(conversationQuery, (request) => state.wire.prefix(state.conversation.messages, request));
  setHandler(autoResumeUpdate, (request) => autoResume(state, request), {
    validator: (request) => {
      const checked = safeParse(AutoResumeRequestSchema, request);
      if (!checked.success) throw refusedUpdate(`autoResume refused: ${clip(String(checked.error), 300)}`);
      checkSender(state, checked.data);
    },
  });
  setHandler(runMessageUpdate, (request) => receiveMessage(state, request), {
    validator: (request) => {
      const checked = safeParse(RunMessageRequestSchema, request);
      if (!checked.success) throw refusedUpdate(`runMessage refused: ${clip(String(checked.error), 300)}`);
      messageAdmitted(state, checked.data);
      // Where decisions must be signed, so must messages: the principal a message names steers the model.
      if (state.setup.signedDecisions) signedMessageShape(runId, checked.data);
    },
  });
  setHandler(nextPauseUpdate, (request) => nextPause(state, request), {
    validator: (request) => {
      if (safeParse(NextPauseRequestSchema, request).success) return;
      // The reason quotes a little of the request, whatever its size or depth.
      const shown = measureJson(request).ok ? clip(JSON.stringify(request) ?? 'nothing', 100) : 'that';
      throw refusedUpdate(
        `nextPause takes { afterVersion?: number, decisionId?: string (<= 256), verdictOnly?: boolean }, not ${shown}`,
      );
    },
  });

  const intake = new ChunkIntake(state.stream.log, (progress) => state.stream.takeProgress(progress));
  serveStream(state.stream.log, intake, new LegacyPublishIntake(state.stream.log));
  // Only the run's own activities get the secret that publishing takes: the model's (when the run
  // streams) and its tools' (what they write goes to the stream of any run).
  intake.token = uuid4();
  state.stream.publishToken = intake.token;
  state.stream.progress = new ProgressRouting(
    { runId, agentId: state.agentId },
    intake,
    input?.stream !== undefined,
    input?.progress,
  );
}

/** A decision signal: checked against the approvers' keys first where decisions must be signed. */
async function receiveDecision(state: RunState, kind: DecisionKind, raw: unknown): Promise<void> {
  const parsed = state.setup.signedDecisions ? safeParse(DecisionSignalSchema, raw) : undefined;
  // What does not parse, and what a client refused itself, the ledger refuses and records as it is.
  if (parsed?.success && !parsed.data.clientRefusal) {
    const at = new Date().toISOString();
    const check = await verifyDecision({ runId: state.runId, kind, decision: parsed.data, at });
    if (!check.ok) return state.refuse(kind, parsed.data, 'InvalidSignature', check.reason);
  }
  state.decide(kind, raw);
}

/**
 * What the validator checks of a signed message before its signature is checked: that it has one, made
 * for this run and not expired. A forged one that fails here costs the run no history at all.
 */
function signedMessageShape(runId: string, request: RunMessageRequest): void {
  const { signature } = request;
  const refuse = (why: string) => {
    throw ApplicationFailure.nonRetryable(`the message is refused: ${why}`, 'NotAllowed');
  };
  if (!signature) {
    refuse(`run ${runId} takes signed messages only (its worker has decision keys): send it with a signing key`);
  } else if (signature.runId !== runId) refuse(`the signature is for run ${signature.runId}, not this one`);
  else if (Date.parse(signature.expiresAt) <= Date.now()) refuse(`the signature expired at ${signature.expiresAt}`);
}

/** Refuses (as the update's failure) a message the run does not take now. */
function messageAdmitted(state: RunState, request: RunMessageRequest): void {
  const refusal = state.messages.refusal(request, state.messageGate());
  if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
}

/** A message the validator admitted: its signature checked first where the run takes signed ones only. */
async function receiveMessage(state: RunState, request: RunMessageRequest): Promise<RunMessageAck> {
  if (state.setup.signedDecisions) {
    const at = new Date().toISOString();
    const check = await verifyMessage({ runId: state.runId, message: request, at });
    if (!check.ok) throw ApplicationFailure.nonRetryable(`the message is refused: ${check.reason}`, 'NotAllowed');
    // The run went on while the signature was checked: what it takes may have changed.
    messageAdmitted(state, request);
  }
  return state.messages.add(request);
}

async function nextPause(state: RunState, request: NextPauseRequest): Promise<PauseSnapshot> {
  const { decisionId, afterVersion = -1, verdictOnly = false } = request ?? {};
  if (decisionId) {
    const taken = () =>
      state.ledger.verdict(decisionId) !== undefined || (verdictOnly && state.ledger.taken(decisionId));
    await condition(() => taken() || state.done || state.continuing);
    const verdict = state.ledger.verdict(decisionId);
    if (verdict && !verdict.accepted && verdict.refusal) {
      throw ApplicationFailure.nonRetryable(verdict.refusal.message, verdict.refusal.type);
    }
    if (verdictOnly) return { status: state.status, version: state.version };
  }
  await condition(
    () => state.done || state.continuing || (state.status === 'suspended' && state.version > afterVersion),
  );
  // A run handing over to its continuation answers `running`: the caller asks the new run.
  const { status, version } = state;
  return { status, version, ...(state.stream.graceMs > 0 && state.done ? { lingers: true as const } : {}) };
}
