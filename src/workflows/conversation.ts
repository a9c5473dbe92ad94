/**
 * A run's conversation and its steps, including the step under way. Pure; the run state keeps one.
 */
import type { CallModelOutput } from '../activities/contracts.js';
import type { Message } from '../schemas/message.js';
import type { StepRecord } from '../schemas/run-result.js';
import { stepRecord, toolResultMessage, type ToolOutcome } from './transcript.js';

export class Conversation {
  readonly messages: Message[];
  readonly steps: StepRecord[];
  private current: { stepNumber: number; model: CallModelOutput; outcomes: Map<string, ToolOutcome> } | undefined;

  constructor(messages: Message[], steps: StepRecord[] = []) {
    this.messages = [...messages];
    this.steps = [...steps];
  }

  /** The model answered: its messages join the conversation, and its tool calls start. */
  startStep(stepNumber: number, model: CallModelOutput): void {
    this.messages.push(...model.assistantMessages);
    this.current = { stepNumber, model, outcomes: new Map() };
  }

  recordOutcome(outcome: ToolOutcome): void {
    this.current?.outcomes.set(outcome.call.toolCallId, outcome);
  }

  /**
   * Every call of the step ended: the tool message answers them in the model's order, and the step
   * is recorded.
   */
  finishStep(outcomes: ToolOutcome[]): StepRecord {
    if (!this.current) throw new Error('finishStep without a step under way');
    if (outcomes.length > 0) this.messages.push(toolResultMessage(outcomes));
    const step = stepRecord(this.current.stepNumber, this.current.model, outcomes);
    this.steps.push(step);
    this.current = undefined;
    return step;
  }

  /** The steps so far, the one under way included with the outcomes it has. */
  stepsSoFar(): StepRecord[] {
    if (!this.current) return [...this.steps];
    const { stepNumber, model, outcomes } = this.current;
    const done = model.toolCalls.flatMap((c) => outcomes.get(c.toolCallId) ?? []);
    return [...this.steps, stepRecord(stepNumber, model, done)];
  }
}
