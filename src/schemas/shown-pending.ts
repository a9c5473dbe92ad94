/**
 * A waiting call as people are shown it. Apart from the stream's schemas, so that what only shows a
 * call (agentctl's lines) does not load zod. Pure; sandbox-safe.
 */
import type { PendingToolCall } from './decisions.js';

/** A pending call as the stream shows it: where display transforms changed its arguments or payload, those. */
export function shownPending(call: PendingToolCall): PendingToolCall {
  const { display, ...rest } = call;
  if (!display) return call;
  const { suspendPayload: _raw, ...withoutPayload } = rest;
  return {
    ...withoutPayload,
    args: display.args,
    ...(display.suspendPayload !== undefined ? { suspendPayload: display.suspendPayload } : {}),
  };
}
