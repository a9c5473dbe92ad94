/**
 * What a run keeps of the decisions it refused. Pure. A refusal costs the run a bounded amount,
 * whoever sends it and however often: the count grows, the last {@link RECENT_REFUSALS} are shown (each
 * clipped), and a bounded window more is kept in memory for the `nextPause` verdicts of their senders.
 * Accepted decisions stay in the trail; refusals never rewrite it.
 */
import { RECENT_REFUSALS, type DecisionRecord, type RefusalSummary } from '../schemas/decisions.js';
import { truncate } from '../schemas/json.js';

/** Refusals whose verdict a sender may still ask for (`nextPause`); older ones are only counted. */
const KEPT_VERDICTS = 100;
/** How much of a refused decision's note, reason and ids a run keeps. */
const MAX_NOTE = 200;

export class RefusalLog {
  private count: number;
  private readonly recent: DecisionRecord[];
  /** The last refusals by decision id, oldest first (a Map keeps insertion order). */
  private readonly verdicts = new Map<string, DecisionRecord>();

  constructor(carried?: RefusalSummary) {
    this.count = carried?.count ?? 0;
    this.recent = [...(carried?.recent ?? [])];
    for (const record of this.recent) this.verdicts.set(record.decisionId, record);
  }

  /** Keeps a refusal, clipped; returns what was kept. */
  add(record: DecisionRecord): DecisionRecord {
    const kept = clipped(record);
    this.count++;
    this.recent.push(kept);
    if (this.recent.length > RECENT_REFUSALS) this.recent.shift();
    this.verdicts.delete(kept.decisionId);
    this.verdicts.set(kept.decisionId, kept);
    if (this.verdicts.size > KEPT_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
    return kept;
  }

  /** The refusal of this decision, while it is among the last ones kept. */
  find(decisionId: string): DecisionRecord | undefined {
    return this.verdicts.get(decisionId);
  }

  summary(): RefusalSummary {
    return { count: this.count, recent: [...this.recent] };
  }
}

/** A refusal as the run keeps it: free text and ids clipped, so that each one is small. */
export function clipped(record: DecisionRecord): DecisionRecord {
  const note = (text: string | null) => (text === null ? null : truncate(text, MAX_NOTE));
  return {
    ...record,
    toolCallId: note(record.toolCallId),
    toolName: note(record.toolName),
    by: note(record.by),
    reason: note(record.reason),
  };
}
