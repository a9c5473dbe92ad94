/**
 * When a run's stream ends a segment and when it begins the next. A segment ends (`finish` with
 * `finishReason: 'suspended'`) once every tool call of the step has finished or waits on a decision
 * while something waits; the next begins (`start`) when a decision lets a call go on. Pure: the run
 * state publishes what it says.
 */
export class StreamSegments {
  /** Tool calls of the current step that are neither finished nor waiting on a decision. */
  private active = 0;
  private pausedNow = false;

  /** Whether the current segment ended with a pause. */
  get paused(): boolean {
    return this.pausedNow;
  }

  /** The tool calls of a step start. */
  callsStart(count: number): void {
    this.active += count;
  }

  /** A call of the step stops going on: it finished, or waits on a decision. */
  callStops(): void {
    this.active--;
  }

  /** A call that waited goes on. */
  callGoesOn(): void {
    this.active++;
  }

  /** Whether to end the segment now: once nothing can go on without a decision and something waits. */
  pauseNow(waiting: number): boolean {
    if (this.pausedNow || this.active > 0 || waiting === 0) return false;
    this.pausedNow = true;
    return true;
  }

  /** Whether to begin a new segment now: the last one ended with a pause. */
  resumeNow(): boolean {
    if (!this.pausedNow) return false;
    this.pausedNow = false;
    return true;
  }
}
