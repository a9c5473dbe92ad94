/** The input of a run as the client starts it: options checked, stored as plain data. */
import { z } from 'zod';
import { storableApprovalPolicy } from '../approvals/policy.js';
import { InvalidRunOptionsError } from '../errors.js';
import { oneLine } from '../schemas/json.js';
import { MessageSchema, type Message } from '../schemas/message.js';
import type { RunInput } from '../schemas/run-input.js';
import type { PrincipalInput } from './identity.js';
import { RunOptionsSchema, type RunOptions } from '../schemas/run-options.js';
import { StreamGraceMsSchema } from '../schemas/stream-grace.js';

/** A prompt, or the conversation so far as AI SDK `ModelMessage`s. */
export type RunPrompt = string | Message[];

/** Options of `AgentClient.start` and `AgentClient.generate`. */
export interface StartOptions extends Omit<RunOptions, 'requireToolApproval'> {
  /** The run id (the Temporal workflow id); default `run-<uuid>`. */
  runId?: string;
  /** Who starts the run (default: the client's principal): they may read it, and the agent's policy is checked. */
  principal?: PrincipalInput;
  /**
   * Pause every tool call for approval. A function cannot be stored with the run: the run then
   * requires approval for every call (fail safe), and the client logs a warning saying so.
   */
  requireToolApproval?: boolean | ((...args: never[]) => unknown);
}

/** Options of `AgentClient.stream`. */
export interface StreamOptions extends StartOptions {
  /**
   * How long the finished run stays open so that subscribers can read its last chunks (default
   * 10 s, at most 10 minutes; cancelling the run ends it). A subscriber that comes later still gets
   * the final result, as a `finish` chunk.
   */
  streamGraceMs?: number;
}

/** The default of {@link StreamOptions.streamGraceMs}. */
export const DEFAULT_STREAM_GRACE_MS = 10_000;

/** A stream's grace period, checked; throws {@link InvalidRunOptionsError} for one past the bound. */
export function streamGrace(ms: number = DEFAULT_STREAM_GRACE_MS): number {
  const grace = StreamGraceMsSchema.safeParse(ms);
  if (!grace.success) throw new InvalidRunOptionsError(`streamGraceMs ${ms}: ${oneLine(grace.error.issues)}`);
  return grace.data;
}

/** The run's input, checked; throws {@link InvalidRunOptionsError} naming what does not fit. */
export function buildRunInput(
  agentId: string,
  prompt: RunPrompt,
  options: Omit<StartOptions, 'runId' | 'principal'>,
  warn: (message: string) => void,
): RunInput {
  if (!agentId) throw new InvalidRunOptionsError('agentId must be a non-empty string');
  const { requireToolApproval, ...rest } = options;
  const approval = storableApprovalPolicy(requireToolApproval, warn);
  const parsedOptions = RunOptionsSchema.safeParse({
    ...rest,
    ...(approval !== undefined ? { requireToolApproval: approval } : {}),
  });
  if (!parsedOptions.success) throw new InvalidRunOptionsError(z.prettifyError(parsedOptions.error));
  const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
  const parsedMessages = z.array(MessageSchema).min(1).safeParse(messages);
  if (!parsedMessages.success) throw new InvalidRunOptionsError(`messages: ${z.prettifyError(parsedMessages.error)}`);
  return { agentId, messages: parsedMessages.data, options: parsedOptions.data };
}
