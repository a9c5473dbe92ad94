/**
 * The signals, queries and updates of a run, defined once and shared by the workflow and the client.
 *
 * Decisions are signals: they are accepted by the server even while no worker runs, and recorded
 * in the run's history. The workflow records its verdict on each (accepted or refused, and why) in
 * the decision trail, which the memo, the `runState` query and `nextPause` show.
 *
 * Every run of a worker shares this module (src/workflows/shared-schemas.ts): it must hold no state of
 * its own (test/unit/shared-schemas.test.ts).
 */
import { ApplicationFailure, type SignalDefinition } from '@temporalio/common';
import { z } from 'zod';
import type { AutoResumeOutcome, AutoResumeRequest } from '../schemas/auto-resume.js';
import type { ChildReport, DecisionKind, DecisionSignal } from '../schemas/decisions.js';
import { MAX_ID } from '../schemas/limits.js';
import type { Message } from '../schemas/message.js';
import type { ExecutionReceipts } from '../schemas/receipts.js';
import type { RunMessageAck, RunMessageRequest } from '../schemas/run-message.js';
import type { SentSetup } from './activities.js';
import { defineQuery, defineSignal, defineUpdate } from './definitions.js';
import type { RunInput } from '../schemas/run-input.js';
import type { RunStatus, StoredRunResult } from '../schemas/run-result.js';
import type { ChunkBatch, StreamPage, StreamRead } from '../schemas/stream-protocol.js';

export const approveToolCallSignal = defineSignal<[DecisionSignal]>('approveToolCall');
export const declineToolCallSignal = defineSignal<[DecisionSignal]>('declineToolCall');
export const resumeToolCallSignal = defineSignal<[DecisionSignal]>('resumeToolCall');
/** A client tool's result (`result` in the signal), for a run that waits on it. */
export const submitToolResultSignal = defineSignal<[DecisionSignal]>('submitToolResult');
/** Resolves a call whose side effect is uncertain: retry, skip with an output, or fail. */
export const resolveToolCallSignal = defineSignal<[DecisionSignal]>('resolveToolCall');

/** What a sub-agent's run sends its parent whenever its waiting calls, its pause or its verdicts change. */
export const childReportSignal = defineSignal<[ChildReport]>('childReport');

/** The signal of each kind of decision. */
export const decisionSignals: Record<DecisionKind, SignalDefinition<[DecisionSignal]>> = {
  approve: approveToolCallSignal,
  decline: declineToolCallSignal,
  resume: resumeToolCallSignal,
  result: submitToolResultSignal,
  resolve: resolveToolCallSignal,
};

/** The run so far: status, and the result as `generate()` would return it now. */
export interface RunSnapshot {
  status: RunStatus;
  version: number;
  result: StoredRunResult;
}

export const runStateQuery = defineQuery<RunSnapshot>('runState');

/**
 * This execution's receipts (see approvals/receipts.ts): a run that continued as new has earlier ones
 * in the executions before, which the client asks in turn. A query: it adds nothing to the history.
 */
export const receiptsQuery = defineQuery<ExecutionReceipts>('receipts');

/** What the `conversation` query asks for: the first `count` messages of the run's conversation. */
export const ConversationRequestSchema = z.object({ count: z.number().int().nonnegative() }).strict();
export type ConversationRequest = z.infer<typeof ConversationRequestSchema>;

/**
 * The first messages of the run's conversation, for a model call that carries it by reference and runs
 * where the worker's cache does not hold it (see workflows/conversation-ref.ts). A query: its answer is
 * recorded nowhere.
 */
export const conversationQuery = defineQuery<ConversationAnswer, [ConversationRequest]>('conversation');

/** The messages asked for, and the instructions and tools the run's model calls last carried whole. */
export interface ConversationAnswer {
  messages: Message[];
  setup?: SentSetup;
}

/**
 * What `nextPause` answers: where the run stands, not its result. An update's answer is recorded in
 * the history, once per waiter and pause; the result is read from the `runState` query (recorded
 * nowhere) or, for a run that ended, from the run's own result. `lingers`: the run stays open a
 * while for its stream's readers, so its result comes later than the answer. Workers from before
 * answered with the whole {@link RunSnapshot}.
 */
export interface PauseSnapshot {
  status: RunStatus;
  version: number;
  lingers?: true;
}

/** What `nextPause` waits for. */
export const NextPauseRequestSchema = z
  .object({
    /** Wait for a state newer than this version (default: any pause or the end). */
    afterVersion: z.number().optional(),
    /** First wait for the verdict on this decision; a refusal fails the update with its reason. */
    decisionId: z.string().min(1).max(MAX_ID).optional(),
    /**
     * With `decisionId`: answer as soon as the run has taken the decision (or refused it), without
     * waiting for the next pause. How a caller that streams the run from there hears that it lost a race.
     */
    verdictOnly: z.boolean().optional(),
  })
  .strict();
export type NextPauseRequest = z.infer<typeof NextPauseRequestSchema>;

/**
 * Waits until the run pauses (a call waits on a decision) or finishes, and says where it stands then.
 * This is how `generate()` and the decision methods of the client wait, with no polling.
 */
export const nextPauseUpdate = defineUpdate<PauseSnapshot | RunSnapshot, [NextPauseRequest]>('nextPause');

/**
 * Chunks from the run's own model activity, in batches; the run takes only batches that carry its
 * publish secret, which it gives its activities and nobody else.
 */
export const publishChunksSignal = defineSignal<[ChunkBatch]>('publishChunks');

/**
 * A page of the run's stream from an offset. A query: reading costs the run no history and holds
 * nothing in it, however many read. It answers at once; readers poll it (see `StreamFeed`).
 */
export const readStreamQuery = defineQuery<StreamPage, [StreamRead]>('readStream');

/**
 * A new user message on the run's thread, for a call the run waits on (auto-resume): the run extracts
 * the call's data from it and decides, or answers what is missing. An update, so the sender gets the
 * answer; the message stays in the run's history either way.
 */
export const autoResumeUpdate = defineUpdate<AutoResumeOutcome, [AutoResumeRequest]>('autoResume');

/**
 * A message for a run that works (not waiting on a call): queued and shown to the model as a user
 * message at its next step. An update, so the sender hears at once whether it was taken; its id is the
 * message's, so a message sent twice is queued once.
 */
export const runMessageUpdate = defineUpdate<RunMessageAck, [RunMessageRequest]>('runMessage');

/**
 * What an update's validator throws for a request it refuses: non-retryable (sending it again gets the
 * same answer), with the reason and the type `InvalidRequest`. Nothing of it enters the history.
 */
export function refusedUpdate(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, 'InvalidRequest');
}

/** The run workflow's type, by its name `agentRun`: what a parent starts a child run as. */
export type AgentRunWorkflow = (input: RunInput) => Promise<StoredRunResult>;
