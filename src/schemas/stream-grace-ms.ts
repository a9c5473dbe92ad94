/**
 * How long a finished streamed run stays open for readers of its last chunks: the figures alone, with
 * no zod, for the client's entry, which exports the default. Sandbox-safe.
 */

/**
 * The longest grace period: minutes. An open run costs a workflow in the cluster, and a grace period
 * is for readers a few seconds behind, not for keeping results (those stay with the closed run).
 */
export const MAX_STREAM_GRACE_MS = 10 * 60_000;

/** How long a run that a caller streams from a decision stays readable after it finishes, by default. */
export const DEFAULT_STREAM_GRACE_MS = 10_000;
