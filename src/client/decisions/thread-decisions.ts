/**
 * Deciding by thread (Mastra's `sendToolApproval`): the run of a thread that waits for an approval is
 * found through visibility (no worker needed), then decided by the one decide path, with its checks.
 */
import type { PendingToolCall, RefusalType } from '../../schemas/decisions.js';
import type { JsonValue } from '../../schemas/json.js';
import type { PrincipalInput } from '../identity.js';
import type { SuspendedRun } from '../runs/runs.js';

/** An approval or decline of the call a thread's run waits on. */
export interface ThreadToolApproval {
  threadId: string;
  resourceId?: string;
  /** Which call, where several runs or calls of the thread wait (a run's own or a qualified id). */
  toolCallId?: string;
  /** When given, the call's fingerprint must equal it; it also tells calls of several runs apart. */
  fingerprint?: string;
  approved: boolean;
  /** Why (a decline's reason reaches the model). */
  reason?: string;
  /**
   * Mastra's `resumeData`: it may repeat `approved` and give a decline's `reason`. Other keys would be data
   * for the tool, which an approval does not carry here: they are refused (`WrongPauseKindError`), not dropped.
   */
  resumeData?: JsonValue;
  principal?: PrincipalInput;
  by?: string;
}

/** Every key of {@link ThreadToolApproval} (and the agent a client's search narrows to); any other is refused. */
export const THREAD_APPROVAL_KEYS = [
  'threadId',
  'resourceId',
  'agentId',
  'toolCallId',
  'fingerprint',
  'approved',
  'reason',
  'resumeData',
  'principal',
  'by',
] as const;

/** The call a thread approval is about, or why none can be told. */
export type ThreadCallPick =
  { runId: string; call: PendingToolCall } | { refusal: { type: RefusalType; message: string } };

/**
 * Picks the one call that waits for approval on the thread's runs and fits `toolCallId` and
 * `fingerprint`; none, or more than one, is a refusal that says what waits and how to name it.
 */
export function pickThreadCall(
  threadId: string,
  runs: SuspendedRun[],
  wanted: { toolCallId?: string; fingerprint?: string },
): ThreadCallPick {
  const waiting = runs.flatMap((run) =>
    run.pendingToolCalls.filter((c) => c.kind === 'approval').map((call) => ({ runId: run.runId, call })),
  );
  const fits = waiting.filter(
    ({ call }) =>
      (wanted.toolCallId === undefined || call.toolCallId === wanted.toolCallId) &&
      (wanted.fingerprint === undefined || call.fingerprint === wanted.fingerprint),
  );
  if (fits.length === 1) return fits[0]!;
  const list = (items: typeof waiting) =>
    items.map(({ runId, call }) => `${call.toolName} ${call.toolCallId} in run ${runId}`).join('; ');
  if (fits.length > 1) {
    return {
      refusal: {
        type: 'UnknownToolCall',
        message:
          `${fits.length} calls wait for approval on thread "${threadId}" (${list(fits)}); ` +
          'name one by its fingerprint',
      },
    };
  }
  if (waiting.length === 0) {
    return { refusal: { type: 'NothingPending', message: `no run on thread "${threadId}" waits for an approval` } };
  }
  return {
    refusal: {
      type: 'UnknownToolCall',
      message:
        `no call that waits for approval on thread "${threadId}" has that id or fingerprint; ` +
        `waiting: ${list(waiting)}`,
    },
  };
}
