/**
 * A call that waits on a decision: pending from the moment it asks until a decision resolves it, with
 * durable timers for its deadline when it has one.
 */
import { condition, metricMeter } from '@temporalio/workflow';
import type { ModelToolCall } from '../../protocol/activities.js';
import { msUntil } from '../../approvals/deadline.js';
import type { LedgerEffect, Resolution } from '../../approvals/ledger-effects.js';
import type { ApprovalLedger } from '../../approvals/ledger.js';
import type { Waiting } from '../../approvals/own-calls.js';
import { waitSpan } from './spans.js';

export class DecisionWaits {
  /** Accepted decisions, by the own call they resolve, until its waiter takes them. */
  private readonly resolutions = new Map<string, Resolution>();

  constructor(
    private readonly ledger: ApprovalLedger,
    /** Carries out the ledger's effects. */
    private readonly apply: (effects: LedgerEffect[]) => void,
    /** The call stopped: it waits now. */
    private readonly stopped: () => void,
    /** The agent whose run this is, a tag of the metrics (bounded: a worker's agents). */
    private readonly agentId: string,
  ) {}

  /** Waits until a decision resolves this call, which is pending meanwhile. */
  forDecision(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    return waitSpan(waiting.kind, call.toolName, () => this.decided(call, waiting));
  }

  /** The ledger's `resolve`: the call counts as going on again the moment it is decided. */
  resolve(toolCallId: string, resolution: Resolution): void {
    this.resolutions.set(toolCallId, resolution);
  }

  private async decided(call: ModelToolCall, waiting: Waiting): Promise<Resolution> {
    this.apply(this.ledger.ask(call, waiting));
    this.stopped();
    const tags = { agent_id: this.agentId, wait_kind: waiting.kind };
    metrics().asked.add(1, tags);
    const resolved = () => this.resolutions.has(call.toolCallId);
    // Only a call with a deadline starts timers: a run without one issues the commands it always did. An
    // approval has one from its tool or agent; a suspension only from a workflow tool (suspendWorkflowTool).
    if (waiting.expiresAt) await this.untilDeadline(call.toolCallId, waiting, resolved);
    await condition(resolved);
    const resolution = this.resolutions.get(call.toolCallId)!;
    this.resolutions.delete(call.toolCallId);
    const waited = Math.max(0, Date.now() - Date.parse(waiting.askedAt)) / 1000;
    metrics().waited.record(waited, { ...tags, decision: resolution.kind });
    return resolution;
  }

  /**
   * Durable timers: the first escalates the call (when its deadline does), the second expires it. They
   * fire on the server whether a worker runs or not; the run acts on them when one does. A decision
   * that arrives first (or in the same activation) wins: escalating or expiring a call that is no
   * longer waiting changes nothing.
   */
  private async untilDeadline(toolCallId: string, waiting: Waiting, resolved: () => boolean): Promise<void> {
    const { escalation, expiresAt } = waiting;
    if (escalation && !(await condition(resolved, msUntil(escalation.at, Date.now())))) {
      this.apply(this.ledger.escalate(toolCallId, new Date().toISOString()));
    }
    if (resolved() || (await condition(resolved, msUntil(expiresAt!, Date.now())))) return;
    this.apply(this.ledger.expire(toolCallId, new Date().toISOString()));
  }
}

/**
 * The run's metrics of calls that wait for a person, through the workflow's metric meter: the worker's
 * Runtime exports them with Temporal's own (Prometheus or OpenTelemetry, `telemetryOptions.metrics`),
 * tagged with the namespace, task queue and workflow type; a replay emits none. Tagged by agent, not by
 * tool: a run may bring tools of any name (client tools), and a tag's values must stay few.
 */
function metrics() {
  // Light handles over the workflow's metric sink: made where they are used, no state kept between runs.
  return {
    asked: metricMeter.createCounter(
      'durable_agents_calls_waiting',
      'calls',
      'Tool calls that began to wait for a person: an approval, a suspension, a client result, an uncertain call',
    ),
    // Seconds: a wait is minutes to days, past the default buckets (up to 10); see docs/guides/cluster.md.
    waited: metricMeter.createHistogram(
      'durable_agents_call_wait_seconds',
      'float',
      's',
      'How long a call waited, from when it was asked until it was decided (or expired)',
    ),
  };
}
