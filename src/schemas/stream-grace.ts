/**
 * How long a finished streamed run stays open for readers of its last chunks, and its bound.
 * Sandbox-safe: the workflow checks it too.
 */
import { z } from 'zod';

/**
 * The longest grace period: minutes. An open run costs a workflow in the cluster, and a grace period
 * is for readers a few seconds behind, not for keeping results (those stay with the closed run).
 */
export const MAX_STREAM_GRACE_MS = 10 * 60_000;

/** How long a run that a caller streams from a decision stays readable after it finishes, by default. */
export const DEFAULT_STREAM_GRACE_MS = 10_000;

/** A grace period in milliseconds: a whole number from 0 to {@link MAX_STREAM_GRACE_MS}. */
export const StreamGraceMsSchema = z
  .number()
  .int()
  .nonnegative()
  .max(
    MAX_STREAM_GRACE_MS,
    `a stream's grace period is at most ${MAX_STREAM_GRACE_MS} ms (10 minutes): ` +
      'it keeps a finished run open for readers a few seconds behind; the result stays readable after it closes',
  );
