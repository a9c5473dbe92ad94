/**
 * What a run knows of its running sub-agents for the approval ledger: the calls each waits on (as
 * this run lists them), whether it paused, and the decisions passed down to it. Pure.
 */
import { ChildReportSchema, type DecisionRecord, type PendingToolCall } from '../schemas/decisions.js';
import { safeParse } from '../schemas/json.js';
import type { LedgerEffect } from './ledger-effects.js';

/** What a parent knows of one running sub-agent: the calls it waits on, as the parent lists them. */
interface ChildState {
  pending: PendingToolCall[];
  paused: boolean;
  seq: number;
}

/** A sub-agent's call as its parent lists it: the id qualified by the delegating call, one hop added to the path. */
function qualify(
  child: { viaToolCallId: string; runId: string; agentId: string },
  call: PendingToolCall,
): PendingToolCall {
  return {
    ...call,
    toolCallId: `${child.viaToolCallId}/${call.toolCallId}`,
    path: [{ runId: child.runId, agentId: child.agentId, viaToolCallId: child.viaToolCallId }, ...call.path],
  };
}

export class SubAgentCalls {
  /** Running sub-agents, by the tool call that started them. */
  private readonly children = new Map<string, ChildState>();
  /** Decisions passed down to a sub-agent, by decision id: the qualified call they are about. */
  private readonly forwarded = new Map<string, PendingToolCall>();

  /** @param runId this run's id: a sub-agent's reports must come from `<runId>::<delegating call>` */
  constructor(private readonly runId: string) {}

  /** Every call the sub-agents wait on, qualified, with their path. */
  pending(): PendingToolCall[] {
    return [...this.children.values()].flatMap((c) => c.pending);
  }

  /** The calls whose decision is on its way down: they take no second one meanwhile. */
  inFlight(): Set<string> {
    return new Set([...this.forwarded.values()].map((c) => c.toolCallId));
  }

  /** A sub-agent starts: from now on its reports are taken. */
  started(viaToolCallId: string): void {
    this.children.set(viaToolCallId, { pending: [], paused: false, seq: -1 });
  }

  /** A decision about `call` goes down to the sub-agent it waits in. */
  forward(decisionId: string, call: PendingToolCall): void {
    this.forwarded.set(decisionId, call);
  }

  /** The call a decision passed down was about, now that its verdict (or its failure) is known. */
  settle(decisionId: string): PendingToolCall | undefined {
    const call = this.forwarded.get(decisionId);
    this.forwarded.delete(decisionId);
    return call;
  }

  /**
   * A sub-agent's report, taken when it comes from this run's own running sub-agent, in order; anything
   * else (malformed, stale, forged) is dropped (`undefined`). Returns its verdicts, and what changed:
   * the pause, then each call that starts to wait.
   */
  report(raw: unknown): { verdicts: DecisionRecord[]; effects: LedgerEffect[] } | undefined {
    const parsed = safeParse(ChildReportSchema, raw);
    if (!parsed.success) return undefined;
    const report = parsed.data;
    const child = this.children.get(report.viaToolCallId);
    if (!child || report.runId !== `${this.runId}::${report.viaToolCallId}` || report.seq <= child.seq)
      return undefined;
    const before = new Set(child.pending.map((p) => p.toolCallId));
    child.seq = report.seq;
    child.pending = report.pending.map((p) => qualify(report, p));
    const effects: LedgerEffect[] = [];
    if (!child.paused && report.paused) effects.push({ type: 'child', change: 'paused' });
    if (child.paused && !report.paused) effects.push({ type: 'child', change: 'resumed' });
    child.paused = report.paused;
    for (const entry of child.pending) if (!before.has(entry.toolCallId)) effects.push({ type: 'waits', call: entry });
    return { verdicts: report.verdicts, effects };
  }

  /**
   * A sub-agent's run ended: nothing waits there any more. Returns whether it was paused; `undefined`
   * for no such sub-agent.
   */
  finished(viaToolCallId: string): { paused: boolean } | undefined {
    const child = this.children.get(viaToolCallId);
    if (!child) return undefined;
    this.children.delete(viaToolCallId);
    return { paused: child.paused };
  }

  /** The decisions passed down through this delegating call whose verdict has not come back. */
  unsettledBelow(viaToolCallId: string): string[] {
    return [...this.forwarded]
      .filter(([, call]) => call.path[0]?.viaToolCallId === viaToolCallId)
      .map(([decisionId]) => decisionId);
  }

  /** The run ended: no sub-agent waits any more. */
  clear(): void {
    this.children.clear();
  }
}
