/**
 * When a run writes its memo and search attributes: at every change for runs from before the lean
 * history, else once per workflow task with what they say then.
 */
import { CancellationScope, condition } from '@temporalio/workflow';
import type { PendingToolCall, RefusalSummary } from '../../schemas/decisions.js';
import type { RunMemo, RunStatus } from '../../schemas/run-result.js';
import type { RunMirror } from './run-mirror.js';

/** What the writes read of the run, when they are made. */
export interface MirrorSource {
  readonly status: RunStatus;
  pending(): PendingToolCall[];
  memo(): RunMemo;
  readonly ledger: { readonly trail: { refused(): RefusalSummary } };
}

export class MirrorWrites {
  /** What changed since the memo and search attributes were last written. */
  private readonly stale = { memo: false, attributes: false, refusals: false };

  constructor(
    private readonly mirror: RunMirror,
    private readonly source: MirrorSource,
    /** Whether the writes wait for the end of the workflow task (patch `leanHistory`). */
    private readonly coalesced: boolean,
  ) {
    // Not cancelled with the run: its last writes (cancelled) still go out.
    if (coalesced) void CancellationScope.nonCancellable(() => this.writeWhenStale());
  }

  /**
   * Writes the memo and search attributes when something changed. A condition is checked once the
   * workflow task's code has run as far as it can (and after each job), so the changes of one task
   * are written together, in one command each, at the same point on replay.
   */
  private async writeWhenStale(): Promise<never> {
    for (;;) {
      await condition(() => this.stale.memo || this.stale.attributes || this.stale.refusals);
      this.flush();
    }
  }

  /** Writes what changed now: before the run ends or hands over, which ends its workflow task. */
  flush(): void {
    if (this.stale.attributes) this.mirror.writeSearchAttributes(this.source.status, this.source.pending());
    if (this.stale.memo || this.stale.refusals) {
      this.mirror.writeMemo(
        this.stale.memo ? this.source.memo() : undefined,
        this.stale.refusals ? this.source.ledger.trail.refused() : undefined,
      );
    }
    this.stale.attributes = this.stale.memo = this.stale.refusals = false;
  }

  memo(): void {
    if (this.coalesced) this.stale.memo = true;
    else this.mirror.writeMemo(this.source.memo());
  }

  /** Refusals go under a memo key of their own: the run's memo is not written again for them. */
  refusals(): void {
    if (this.coalesced) this.stale.refusals = true;
    else this.mirror.writeMemo(undefined, this.source.ledger.trail.refused());
  }

  attributes(): void {
    if (this.coalesced) this.stale.attributes = true;
    else this.mirror.writeSearchAttributes(this.source.status, this.source.pending());
  }
}
