/**
 * Messages sent to a run while it works: who may send one, when the run takes it, and the queue its next
 * step drains. Pure; the run state keeps one, the update's validator asks it and its handler adds to it.
 */
import { admits, tenantCheck } from '../../approvals/access.js';
import type { AccessRule, Principal } from '../../schemas/access.js';
import { jsonBytes, kib } from '../../schemas/limits.js';
import {
  MAX_QUEUED_MESSAGES,
  MAX_RUN_MESSAGES,
  type RunMessageAck,
  type RunMessageRefusal,
  type RunMessageRequest,
} from '../../schemas/run-message.js';

export { MAX_RUN_MESSAGES } from '../../schemas/run-message.js';

/** Whose run it is to steer: who may start the agent's runs (unset: anyone), its tenant, its starter. */
export interface MessagePolicy {
  start: AccessRule | undefined;
  resourceId: string | undefined;
  startedBy: Principal | undefined;
}

/**
 * What a message leaves free of the run's conversation budget, at least: room for the model's answer and
 * a tool's output, so that no message can take the run to `ConversationTooLarge`, nor its hand-over past
 * Temporal's payload limit.
 */
export const MESSAGE_HEADROOM_BYTES = 128 * 1024;

/** Where the run stands when a message comes. */
export interface MessageGate {
  runId: string;
  /** Whether the run has ended or hands over to a new run (continue-as-new). */
  ended: boolean;
  /** The calls the run waits on: a message is no decision, so it waits for them to be decided. */
  waitingOn: Array<{ toolName: string; toolCallId: string }>;
  /** Bytes of JSON the run's conversation may still grow by (its budget less what it holds). */
  roomBytes: number;
}

type Refusal = { type: RunMessageRefusal; message: string };

export class RunMessageQueue {
  private queued: RunMessageRequest[] = [];
  private readonly taken = new Map<string, RunMessageAck>();
  /**
   * The ids of messages taken before the run continued as new: sent again (a retry, or a signed message
   * replayed from the old history), they are answered as taken and not queued twice.
   */
  private readonly before = new Set<string>();
  /** Set once the agent's spec is known: before, nobody can tell who may steer the run. */
  private policy: MessagePolicy | undefined;
  /** Set when no later step would show a message: the last step, or after the steps. */
  private closed: Refusal | undefined;

  govern(policy: MessagePolicy): void {
    this.policy = policy;
  }

  /** No step after this one: a message now would never be shown. */
  close(type: 'LastStep' | 'RunNotWorking', message: string): void {
    this.closed = { type, message };
  }

  /** Why the run refuses this message now, or undefined when it takes it. A message taken already is taken again. */
  refusal(request: RunMessageRequest, gate: MessageGate): Refusal | undefined {
    const policy = this.policy;
    const ended: Refusal = { type: 'RunNotWorking', message: `run ${gate.runId} has ended: start a new run` };
    if (!policy)
      return gate.ended
        ? ended
        : { type: 'RunNotWorking', message: `run ${gate.runId} is starting: send it once it runs` };
    const tenant = tenantCheck(request.principal, policy.resourceId);
    if (!tenant.allowed) return { type: 'NotAllowed', message: tenant.message };
    const starter = request.principal && policy.startedBy?.id === request.principal.id;
    if (!starter && !admits(policy.start, request.principal)) {
      const who = request.principal ? `"${request.principal.id}"` : 'a sender who did not say who they are';
      return {
        type: 'NotAllowed',
        message: `${who} may not steer run ${gate.runId}: only its starter and those who may start its agent's runs`,
      };
    }
    // Sent again (a retry), a message taken already is taken again, whatever the run does now; but only
    // from one who may steer the run, so that an id is no pass.
    if (this.taken.has(request.messageId) || this.before.has(request.messageId)) return undefined;
    if (gate.ended) return ended;
    if (this.closed) return this.closed;
    if (gate.waitingOn.length > 0) {
      const calls = gate.waitingOn.map((c) => `${c.toolName} ${c.toolCallId}`).join(', ');
      return {
        type: 'RunNotWorking',
        message:
          `run ${gate.runId} waits on ${calls}: decide the call (a message on the run's thread can answer it ` +
          'where the agent lets messages resume calls), then send the message',
      };
    }
    const adds = jsonBytes(request.text) + this.queued.reduce((n, m) => n + jsonBytes(m.text), 0);
    if (adds > gate.roomBytes - MESSAGE_HEADROOM_BYTES) {
      const room = kib(Math.max(gate.roomBytes - MESSAGE_HEADROOM_BYTES, 0));
      return {
        type: 'ConversationFull',
        message:
          `run ${gate.runId}'s conversation has room for ${room} more of messages, and this one (with those ` +
          `waiting) is ${kib(adds)}: send less, or start a new run`,
      };
    }
    if (this.queued.length >= MAX_QUEUED_MESSAGES) {
      return { type: 'QueueFull', message: `${MAX_QUEUED_MESSAGES} messages already wait for the run's next step` };
    }
    if (this.taken.size >= MAX_RUN_MESSAGES) {
      return {
        type: 'QueueFull',
        message: `run ${gate.runId} took ${MAX_RUN_MESSAGES} messages already: start a new run`,
      };
    }
    return undefined;
  }

  /** Queues a message the validator let through; one taken already keeps its first answer. */
  add(request: RunMessageRequest): RunMessageAck {
    const earlier = this.taken.get(request.messageId);
    if (earlier) return earlier;
    // Shown to the model in the run before the hand-over: it waits for no step here.
    if (this.before.has(request.messageId)) return { messageId: request.messageId, position: 0 };
    this.queued.push(request);
    const ack = { messageId: request.messageId, position: this.queued.length };
    this.taken.set(request.messageId, ack);
    return ack;
  }

  /** The ids the run before a continue-as-new took, handed over. */
  carryOver(ids: readonly string[]): void {
    for (const id of ids) this.before.add(id);
  }

  /** The ids a continuation must know (the most recent, within the bound of one execution's messages). */
  carried(): string[] {
    return [...this.before, ...this.taken.keys()].slice(-MAX_RUN_MESSAGES);
  }

  /** Whether a message waits for the next step. */
  get waiting(): boolean {
    return this.queued.length > 0;
  }

  /** The messages for the next step, in the order they came; the queue is empty after. */
  take(): RunMessageRequest[] {
    const taken = this.queued;
    this.queued = [];
    return taken;
  }
}
