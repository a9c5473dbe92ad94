/**
 * What keeps a run's memo, search attributes and result within Temporal's limits, whatever it waits
 * on: a command over a limit fails the workflow task, and the next attempt makes the same command,
 * so the run would be stuck for good. The edges bound every field a caller sends; these are the
 * last line, for what adds up (many calls waiting, large arguments from a model). Pure.
 */
import type { PendingToolCall } from '../../schemas/decisions.js';
import { elided, jsonBytes, MAX_MEMO_BYTES } from '../../schemas/limits.js';
import type { RunMemo, StoredRunResult } from '../../schemas/run-result.js';

/** A pending call's arguments or suspend payload larger than this are only mentioned once space is short. */
const COMPACT_VALUE_BYTES = 4096;
/** Decisions kept once space is short. */
const COMPACT_DECISIONS = 10;
/** The largest result a run returns: Temporal's 2 MiB, less room for the encoding and a codec's envelope. */
const MAX_RESULT_BYTES = 1900 * 1024;
/** Temporal takes at most 2 KiB for one search attribute's value (a list as a whole). */
const MAX_ATTRIBUTE_BYTES = 1800;

/**
 * A call with large arguments or payload, which are only mentioned. Its preview stays whole (at most
 * 32 KiB): an approver must see all of what the fingerprint binds, so a call that does not fit is left
 * out of the memo (and cannot be approved from it) rather than shown in part.
 */
function compactPending(call: PendingToolCall): PendingToolCall {
  return {
    ...call,
    args: elided(call.args, COMPACT_VALUE_BYTES),
    ...(call.suspendPayload !== undefined ? { suspendPayload: elided(call.suspendPayload, COMPACT_VALUE_BYTES) } : {}),
  };
}

/**
 * The memo as written: whole when it fits; else large arguments and payloads are only mentioned and
 * the trail is shortened; else it lists the calls that fit and says how many more the run waits on.
 */
export function fitMemo(memo: RunMemo): RunMemo {
  if (jsonBytes(memo) <= MAX_MEMO_BYTES) return memo;
  const compact: RunMemo = {
    ...memo,
    pendingToolCalls: memo.pendingToolCalls.map(compactPending),
    decisions: memo.decisions.slice(-COMPACT_DECISIONS),
  };
  if (jsonBytes(compact) <= MAX_MEMO_BYTES) return compact;
  const kept: PendingToolCall[] = [];
  let bytes = jsonBytes({ ...compact, pendingToolCalls: [], omittedPendingToolCalls: compact.pendingToolCalls.length });
  for (const call of compact.pendingToolCalls) {
    bytes += jsonBytes(call) + 1;
    if (bytes > MAX_MEMO_BYTES) break;
    kept.push(call);
  }
  return { ...compact, pendingToolCalls: kept, omittedPendingToolCalls: compact.pendingToolCalls.length - kept.length };
}

/** The ids for `AgentPendingToolCalls`: as many as fit in one search attribute value (the memo lists all). */
export function pendingAttribute(pending: PendingToolCall[]): string[] {
  const ids: string[] = [];
  let bytes = 2;
  for (const { toolCallId } of pending) {
    bytes += jsonBytes(toolCallId) + 1;
    if (bytes > MAX_ATTRIBUTE_BYTES) break;
    ids.push(toolCallId);
  }
  return ids;
}

/**
 * The result as returned: whole when it fits; else the pending calls' large arguments and payloads
 * are only mentioned and the trail is shortened. (The conversation has a budget of its own.)
 */
export function fitResult(result: StoredRunResult): StoredRunResult {
  if (jsonBytes(result) <= MAX_RESULT_BYTES) return result;
  const { suspendPayload } = result;
  return {
    ...result,
    pendingToolCalls: result.pendingToolCalls.map(compactPending),
    ...(suspendPayload
      ? {
          suspendPayload: {
            ...suspendPayload,
            args: elided(suspendPayload.args, COMPACT_VALUE_BYTES),
            ...(suspendPayload.payload !== undefined
              ? { payload: elided(suspendPayload.payload, COMPACT_VALUE_BYTES) }
              : {}),
          },
        }
      : {}),
    decisions: result.decisions.slice(-COMPACT_DECISIONS),
  };
}
