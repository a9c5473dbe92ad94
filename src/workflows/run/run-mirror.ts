/**
 * What others see of a run while it runs: its memo and search attributes (read by any process with no
 * worker: `listSuspendedRuns`, `agentctl`, the client's own check of a decision), and, for a
 * sub-agent's run, the reports to its parent, so that its waiting calls surface at the top.
 */
import { getExternalWorkflowHandle, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { ChildReport, DecisionRecord, PendingToolCall, RefusalSummary } from '../../schemas/decisions.js';
import { RUN_MEMO_KEY, RUN_REFUSALS_MEMO_KEY, type RunMemo, type RunStatus } from '../../schemas/run-result.js';
import { childReportSignal } from '../../protocol/run-messages.js';
import { fitMemo, pendingAttribute } from './payload-bounds.js';
import { AgentPendingToolCallsKey, AgentStatusKey } from '../../protocol/search-attributes.js';

/** The memo and the result keep the most recent decisions; every decision is a signal in the history. */
export const MEMO_DECISIONS = 50;

export class RunMirror {
  private reports = 0;

  constructor(
    private readonly runId: string,
    private readonly agentId: string,
    /** Set for a sub-agent's run: where to report. */
    private readonly parent: { runId: string; toolCallId: string } | undefined,
  ) {}

  memo(status: RunStatus, version: number, pending: PendingToolCall[], trail: DecisionRecord[]): RunMemo {
    return { status, version, pendingToolCalls: pending, decisions: trail.slice(-MEMO_DECISIONS) };
  }

  /** Writes what changed, in one command: the run's memo, its refusals (a key of their own), or both. */
  writeMemo(memo: RunMemo | undefined, refusals?: RefusalSummary): void {
    upsertMemo({
      ...(memo ? { [RUN_MEMO_KEY]: fitMemo(memo) } : {}),
      ...(refusals ? { [RUN_REFUSALS_MEMO_KEY]: refusals } : {}),
    });
  }

  writeSearchAttributes(status: RunStatus, pending: PendingToolCall[]): void {
    upsertSearchAttributes([
      { key: AgentStatusKey, value: status },
      { key: AgentPendingToolCallsKey, value: pendingAttribute(pending) },
    ]);
  }

  /** Tells the parent run (if any) what this run waits on now, and its verdicts since the last report. */
  report(pending: PendingToolCall[], paused: boolean, verdicts: DecisionRecord[]): void {
    if (!this.parent) return;
    const report: ChildReport = {
      viaToolCallId: this.parent.toolCallId,
      runId: this.runId,
      agentId: this.agentId,
      seq: this.reports++,
      pending,
      paused,
      verdicts,
    };
    // The parent may have ended (cancelled); then nobody needs the report.
    getExternalWorkflowHandle(this.parent.runId)
      .signal(childReportSignal, report)
      .catch(() => undefined);
  }
}
