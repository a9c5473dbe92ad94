/**
 * A message for a run while it works (Mastra's signals, "double texting"): sent as the run's
 * `runMessage` update, which the run takes (queued for its next step) or refuses with a reason.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidInputError, RequestRefusedError, RunMessageRefusedError, RunNotFoundError } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import { runMessageUpdate } from '../../protocol/run-messages.js';
import { clip, IdSchema } from '../../schemas/limits.js';
import { MAX_RUN_MESSAGE, type RunMessageAck, type RunMessageRequest } from '../../schemas/run-message.js';

export type { RunMessageAck } from '../../schemas/run-message.js';
import { checkInput, runRef } from '../checks.js';
import type { ClientActor, ClientContext } from '../context.js';
import { readableRun } from '../decisions/decisions.js';
import { signMessage } from '../decisions/signing.js';
import { principalOf, type PrincipalInput } from '../identity.js';

/** How a message is sent. */
export interface RunMessageOptions {
  /** Who sends it (default: the client's principal): its starter, or one who may start the agent's runs. */
  principal?: PrincipalInput;
  /** Its id (default: a random one): a message sent again with the same id is queued once. */
  messageId?: string;
}

const REFUSALS = new Set(['RunNotWorking', 'LastStep', 'QueueFull', 'ConversationFull', 'NotAllowed']);

export async function sendRunMessage(
  ctx: ClientContext,
  actor: ClientActor,
  runId: string,
  text: string,
  options: RunMessageOptions = {},
): Promise<RunMessageAck> {
  rejectUnknownKeys('sendMessage', options, ['principal', 'messageId']);
  runRef(runId);
  if (typeof text !== 'string' || text.trim() === '') {
    throw new InvalidInputError(
      'message',
      `is text that says something, not ${clip(JSON.stringify(text) ?? 'nothing')}`,
    );
  }
  if (text.length > MAX_RUN_MESSAGE) {
    throw new InvalidInputError('message', `has ${text.length} characters, at most ${MAX_RUN_MESSAGE}`, true);
  }
  const messageId = options.messageId ?? randomUUID();
  checkInput('messageId', IdSchema, messageId);
  const principal = principalOf(options.principal ?? actor.principal, ctx.temporal.options.identity);
  // A missing run (or another tenant's) is RunNotFoundError; nothing is sent to one the caller may not read.
  const info = await readableRun(ctx, runId, principal);
  if (info.closeTime)
    throw new RunMessageRefusedError(runId, 'RunNotWorking', `run ${runId} has ended: start a new run`);
  const unsigned: RunMessageRequest = {
    messageId,
    text,
    ...(principal ? { principal } : {}),
    sentAt: new Date().toISOString(),
  };
  if (actor.signingKey && !principal) {
    throw new RequestRefusedError('IdentityRequired', 'a signed message names who sends it: give a principal');
  }
  const request = actor.signingKey ? signMessage(actor.signingKey, unsigned, runId) : unsigned;
  try {
    return await ctx.temporal.workflow
      .getHandle(runId)
      .executeUpdate(runMessageUpdate, { args: [request], updateId: `message-${messageId}` });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(runId, ctx.namespace);
    throw messageRefusal(runId, err) ?? err;
  }
}

/**
 * The refusal in a failed `runMessage` update, or undefined for another failure. A run whose workflow code
 * predates messages (started by an older release, pinned to its build) has no handler for the update: the
 * SDK rejects it by name, which is a refusal with a reason rather than a server error.
 */
export function messageRefusal(runId: string, err: unknown): RunMessageRefusedError | undefined {
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const type = err.cause.type ?? '';
  if (REFUSALS.has(type)) {
    return new RunMessageRefusedError(runId, type as RunMessageRefusedError['type'], err.cause.message);
  }
  if (err.cause.message === `No registered handler for update: ${runMessageUpdate.name}`) {
    return new RunMessageRefusedError(
      runId,
      'NotSupported',
      `run ${runId} runs workflow code from before messages to working runs, which takes none; ` +
        'send it once the run has ended, in a new run, or move the run to a build that takes them',
    );
  }
  return undefined;
}
