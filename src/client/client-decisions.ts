/**
 * How a client decides: one call a run waits on (`decide`), every waiting call a predicate takes
 * (`decideBatch`), and messages to a working run. The deciding half of `AgentClient`, which has these
 * methods from here.
 */
import { rejectUnknownKeys } from '../options.js';
import type { RunResult } from '../schemas/run-result.js';
import { ClientReads } from './client-reads.js';
import { grantsApi, type GrantsApi } from './grants-api.js';
import type { ClientActor, ClientContext } from './context.js';
import type { BatchDecisionRequest, BatchOptions, BatchOutcome } from './decisions/batch-decisions.js';
import type { SentDecision } from './decisions/decisions.js';
import type { DecideThen, DecisionRequest } from './decisions/decide.js';
import type { RunMessageAck, RunMessageOptions } from './runs/run-message.js';
import type { RunStream } from './stream/run-stream.js';

// Each method imports its module when first called (see agent-client.ts).

/** `AgentClient`'s decisions, in a class of their own that `AgentClient` extends. */
export class ClientDecisions extends ClientReads {
  /**
   * Who the client acts as where a call does not say, and the key it signs with.
   *
   * @internal
   */
  protected readonly actor: ClientActor;

  constructor(ctx: ClientContext, actor: ClientActor) {
    super(ctx);
    this.actor = actor;
  }

  /**
   * Decides a call a run waits on: `{ kind, runId, ... }` with `kind` one of `approve` (with changed
   * `args`, which must fit the tool's input schema), `decline` (with a `reason` the model reads),
   * `resume` (`resumeData` for the tool's `resumeSchema`), `result` (a client tool's `result`) or
   * `resolve` (an uncertain call: `action` retry, skip with an `output`, or fail). Approvals and
   * declines may name a `threadId` instead, to decide the call a run of the thread waits on. It is
   * checked against the run as Temporal shows it and against the agent's policy (a refusal throws a
   * `DecisionRefusedError` subclass and sends nothing), then sent as a signal, which the workflow
   * checks again. Returns the run's stream from there (`then: 'stream'`, the default), its next result
   * (`'result'`: final, or the next pause), or the decision as sent (`'sent'`).
   */
  decide(request: DecisionRequest, options?: { then?: 'stream' }): Promise<RunStream>;
  decide(request: DecisionRequest, options: { then: 'result' }): Promise<RunResult>;
  decide(request: DecisionRequest, options: { then: 'sent' }): Promise<SentDecision>;
  async decide(
    request: DecisionRequest,
    options: { then?: DecideThen } = {},
  ): Promise<RunStream | RunResult | SentDecision> {
    rejectUnknownKeys('decide options', options, ['then']);
    const { decide } = await import('./decisions/decide.js');
    return decide(this.ctx, this.actor, request, options.then ?? 'stream');
  }

  /**
   * Sends a message to a run while it works, for the model's next step. Refused (`RunMessageRefusedError`)
   * while it waits on a call, once it ended or takes its last step, and from one who may not steer it.
   */
  async sendMessage(runId: string, text: string, options: RunMessageOptions = {}): Promise<RunMessageAck> {
    const { sendRunMessage } = await import('./runs/run-message.js');
    return sendRunMessage(this.ctx, this.actor, runId, text, options);
  }

  /**
   * Decides every waiting approval a predicate takes, each on its own: approve (or decline, with a
   * `reason`) the calls of `toolName` (of `agentId`, of tenant `resourceId`) whose arguments meet every
   * condition in `where` (`{ path, op, value }`, or as written: `'amount<=50'`, `'to$=@example.com'`).
   * Every call is checked as if decided alone, against the run and the agent's policy, and bound to the
   * fingerprint the batch found; one that is refused is listed with why, and the others are decided.
   * With `dryRun`, nothing is sent: the outcome says what would be decided and what refused. At most
   * 500 calls (`capped` says when more matched). `mayRead` narrows the runs looked at further (a
   * server's own read rule); it can only leave runs out.
   */
  async decideBatch(request: BatchDecisionRequest, options: BatchOptions = {}): Promise<BatchOutcome> {
    rejectUnknownKeys('decideBatch options', options, ['dryRun', 'mayRead']);
    const { decideBatch } = await import('./decisions/batch-decisions.js');
    return decideBatch(this.ctx, this.actor, request, options);
  }

  /**
   * Standing grants, "approve, and allow calls like this": made from a call that waits by someone who
   * may approve it now, listed and revoked (see docs/guides/approvals.md, "Standing grants").
   */
  get grants(): GrantsApi {
    return grantsApi(this.ctx, this.actor);
  }
}
