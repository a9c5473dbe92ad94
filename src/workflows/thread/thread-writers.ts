/**
 * Who may write a thread: only the runs on it. Every run started on a thread (its own turn's run, a
 * sub-agent sharing its supervisor's thread, a tool run) holds a key of its own, derived from its
 * secrets and sent only to its own activities and its thread. A write carries the writer's run id and
 * key; the thread takes it at once with a key it knows, and otherwise first asks the run (a local
 * activity: the run is a running `agentRun` that answers, with a query only its own code serves, that it
 * is on this thread with this key), then keeps the key's digest. Whoever can only signal or update the
 * thread's workflow cannot make a run vouch for their key; whoever can start runs starts a run on the
 * thread, which is a writer like any other.
 *
 * Histories from before the keys hold writes without one, which replay as they ran (patch `threadWriters`).
 */
import { ApplicationFailure, log, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../protocol/activities.js';
import { sha256Hex } from '../../approvals/fingerprint.js';
import { safeParse } from '../../schemas/json.js';
import { clip } from '../../schemas/limits.js';
import { TurnWriterSchema, type TurnKeyProof, type TurnWriter } from '../../schemas/thread.js';
import { takes } from '../patches.js';

/** Open turns whose keys a thread keeps: past it, the oldest (a run that never ended) loses its key. */
export const MAX_THREAD_WRITERS = 500;

/** The failure type of a write a thread refuses for its key. */
export const WRITE_REFUSED = 'ThreadWriteRefused';

const { verifyThreadWriter } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** The digest of a turn key, which the thread keeps and the run answers: the key itself is never shown. */
export function turnKeyDigest(key: string): string {
  return sha256Hex(key);
}

/**
 * A run's turn key: derived from its stream's publish secret (already a secret of the run's own
 * randomness, given only to its own activities), so asking for it draws no randomness and a run that
 * replays draws the same numbers as before.
 */
export function turnKeyOf(publishToken: string): string {
  return sha256Hex(`durable-agents thread turn key\n${publishToken}`);
}

/** What the run answers the thread's question about its key (`turnKeyQuery`). */
export function turnKeyProof(threadWorkflowId: string, key: string): TurnKeyProof {
  return { threadWorkflowId, digest: turnKeyDigest(key) };
}

/**
 * Whether a write without a key is one a thread from before took, met again while replaying its
 * history: it is applied as it was. Anywhere else a write without a key is refused.
 */
export function replayedKeyless(writer: unknown): boolean {
  return writer === undefined && !takes('threadWriters');
}

/** A refusal of an update for its key (the validator's, or the handler's for a run that did not vouch). */
export function writeRefused(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, WRITE_REFUSED);
}

/** The keys (their digests) of the runs that write the thread, by run id. */
export class ThreadWriters {
  private readonly digests: Map<string, string>;
  /** The runs being asked, by run id and digest: the writes of one key wait for one answer, in order. */
  private readonly asking = new Map<string, Promise<Admission>>();

  constructor(
    /** The thread's workflow id: a run vouches for its key on this thread only. */
    private readonly threadWorkflowId: string,
    private readonly threadId: string,
    carried: Record<string, string> | undefined,
  ) {
    this.digests = new Map(Object.entries(carried ?? {}));
  }

  /**
   * Why the thread refuses this write at once (`runId`: the run whose turn it writes, where it names one):
   * no key, another run's key, or a key other than the one the thread knows for the run. `undefined`
   * when it is taken, at once or once the run vouched for it (see {@link admit}).
   */
  refusal(raw: unknown, runId?: string): string | undefined {
    const checked = safeParse(TurnWriterSchema, raw);
    if (!checked.success) {
      return (
        'a write to a thread carries the turn key of its run ({ runId, key }) as its second argument: only the runs ' +
        'on the thread write it; start a run on the thread to add to it'
      );
    }
    const writer = checked.data;
    const of = clip(writer.runId, 100);
    if (runId !== undefined && writer.runId !== runId) {
      return `the turn key is of run "${of}", not of run "${clip(runId, 100)}", whose turn this writes`;
    }
    const digest = this.digests.get(writer.runId);
    if (digest !== undefined && digest !== turnKeyDigest(writer.key)) return `that is not the turn key of run "${of}"`;
    return undefined;
  }

  /**
   * Takes the write, or says why not: at once for a key the thread knows, else once the writer's run
   * vouched for it (asked once per key; the writes of a key being asked wait, in the order they came).
   */
  admit(raw: unknown, runId?: string): Admission | Promise<Admission> {
    const reason = this.refusal(raw, runId);
    if (reason !== undefined) return { reason };
    const writer = raw as TurnWriter;
    const digest = turnKeyDigest(writer.key);
    if (this.digests.get(writer.runId) === digest) return undefined;
    const asked = `${writer.runId}\n${digest}`;
    let answer = this.asking.get(asked);
    if (!answer) {
      answer = this.ask(writer.runId, digest);
      this.asking.set(asked, answer);
    }
    return answer;
  }

  private async ask(runId: string, digest: string): Promise<Admission> {
    const of = clip(runId, 100);
    const input = { runId, threadId: this.threadId, threadWorkflowId: this.threadWorkflowId, digest };
    const verdict = await verifyThreadWriter(input).catch((err: unknown) => {
      const why = clip(err instanceof Error ? err.message : String(err), 300);
      return { ok: false as const, reason: `the thread could not ask run "${of}": ${why}`, retry: true as const };
    });
    this.asking.delete(`${runId}\n${digest}`);
    if (!verdict.ok) {
      log.warn('thread: refused a write its run did not vouch for', { runId: of });
      return { reason: verdict.reason, ...('retry' in verdict ? { retry: true } : {}) };
    }
    // Two keys of one run asked together: only one of them can be the run's.
    const held = this.digests.get(runId);
    if (held !== undefined && held !== digest) return { reason: `that is not the turn key of run "${of}"` };
    this.digests.set(runId, digest);
    for (const oldest of this.digests.keys()) {
      if (this.digests.size <= MAX_THREAD_WRITERS) break;
      this.digests.delete(oldest);
    }
    return undefined;
  }

  /** The run's turn ended: its key is forgotten (a run that writes again is asked again). */
  end(runId: string): void {
    this.digests.delete(runId);
  }

  /** For a continuation: the digests of the writers' keys, if any. */
  carried(): Record<string, string> | undefined {
    return this.digests.size > 0 ? Object.fromEntries(this.digests) : undefined;
  }
}

/**
 * What the thread makes of a writer: `undefined` when it takes the write, else why not (`retry`: the run
 * could not be asked, which may pass).
 */
export type Admission = { reason: string; retry?: true } | undefined;

/** Runs `write` once the thread takes the writer (see {@link ThreadWriters.admit}); `refuse` otherwise. */
export function whenAdmitted<T>(
  admitted: Admission | Promise<Admission>,
  write: () => T,
  refuse: (refusal: NonNullable<Admission>) => T,
): T | Promise<T> {
  const go = (admission: Admission) => (admission === undefined ? write() : refuse(admission));
  return admitted instanceof Promise ? admitted.then(go) : go(admitted);
}

/** The failure an update gets for a writer the thread does not take: `ThreadWriteRefused`, or retryable. */
export function admissionFailure(what: string, refusal: NonNullable<Admission>): ApplicationFailure {
  const message = `${what} refused: ${refusal.reason}`;
  return refusal.retry ? ApplicationFailure.retryable(message, 'ThreadWriterUnverified') : writeRefused(message);
}

export type { TurnWriter };
