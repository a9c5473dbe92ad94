/**
 * A run's conversation and its steps, including the step under way. Pure; the run state keeps one.
 */
import type { CallModelOutput } from '../../protocol/activities.js';
import type { Message } from '../../schemas/message.js';
import type { StepRecord } from '../../schemas/run-result.js';
import { INLINE_PAYLOAD_LIMITS, jsonBytes, kib, type PayloadLimits } from '../../schemas/limits.js';
import { stepRecord, toolResultMessage, type ToolOutcome } from './transcript.js';

export class Conversation {
  readonly messages: Message[];
  readonly steps: StepRecord[];
  private current: { stepNumber: number; model: CallModelOutput; outcomes: Map<string, ToolOutcome> } | undefined;

  constructor(messages: Message[], steps: StepRecord[] = []) {
    this.messages = [...messages];
    this.steps = [...steps];
  }

  /** The thread's earlier messages come first, before those the run was started with. */
  prependHistory(history: Message[]): void {
    this.messages.unshift(...history);
  }

  /** The model answered: its messages join the conversation, and its tool calls start. */
  startStep(stepNumber: number, model: CallModelOutput): void {
    this.messages.push(...model.assistantMessages);
    this.current = { stepNumber, model, outcomes: new Map() };
  }

  /**
   * Bytes of JSON the run carries for its conversation: the messages, the steps (the one under way
   * included), and the tool message its finished calls will add.
   */
  bytes(): number {
    const answered = [...(this.current?.outcomes.values() ?? [])].map((o) => o.result);
    const toCome = answered.reduce((n, r) => n + (r.type === 'result' ? jsonBytes(r.modelOutput) : 0), 0);
    return jsonBytes(this.messages) + jsonBytes(this.stepsSoFar()) + toCome;
  }

  /**
   * The outcome as the run keeps it: a tool's output over the limit, or one that would take the
   * conversation over its budget, becomes a tool error the model sees (the run's result, each model
   * call and a continuation carry the conversation, within Temporal's payload limit unless the worker
   * has a payload store).
   */
  admit(outcome: ToolOutcome, limits: PayloadLimits = INLINE_PAYLOAD_LIMITS): ToolOutcome {
    const { maxToolOutputBytes, maxConversationBytes } = limits;
    const { call, result } = outcome;
    if (result.type !== 'result') return outcome;
    const output = jsonBytes(result.output);
    const adds = output + jsonBytes(result.modelOutput);
    const used = this.bytes();
    let error: string | undefined;
    if (output > maxToolOutputBytes) {
      error = `is ${kib(output)} of JSON; a tool's output may have at most ${kib(maxToolOutputBytes)}`;
    } else if (used + adds > maxConversationBytes) {
      error =
        `(${kib(adds)} with what the model is shown) does not fit: the run's conversation holds ${kib(used)} ` +
        `of at most ${kib(maxConversationBytes)}`;
    }
    if (error === undefined) return outcome;
    const hint = 'Return less, or keep large data outside the run and return a reference to it.';
    return { call, result: { type: 'error', error: `The output of tool "${call.toolName}" ${error}. ${hint}` } };
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
