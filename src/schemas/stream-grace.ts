/**
 * How long a finished streamed run stays open for readers of its last chunks, and its bound.
 * Sandbox-safe: the workflow checks it too.
 */
import { z } from 'zod';
import { MAX_STREAM_GRACE_MS } from './stream-grace-ms.js';

export { DEFAULT_STREAM_GRACE_MS, MAX_STREAM_GRACE_MS } from './stream-grace-ms.js';

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
