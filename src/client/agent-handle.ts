/**
 * One agent's methods, with the names of Mastra's reference pages: `agent.stream()`,
 * `agent.approveToolCall()`, `agent.resumeStream()`, `agent.listSuspendedRuns()` and the rest. They are
 * thin aliases of the client's `stream`, `generate`, `decide` and `listSuspendedRuns`; the agent that
 * `defineAgent` (or `new Agent`) returns has them, through the process's bound client, and so does
 * `client.getAgent(id)`.
 */
import type { PendingToolCall } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';
import type { OutputSchema, StructuredObject } from '../structured-output.js';
import type { DecisionRequest } from './decisions/decide.js';
import type { DecisionTarget } from './decisions/decisions.js';
import type { ThreadToolApproval } from './decisions/thread-decisions.js';
import type { RunPrompt, StartOptions, StreamOptions } from './runs/run-input.js';
import type { RunFilter, SuspendedRun } from './runs/runs.js';
import type { RunStream } from './stream/run-stream.js';

/** A waiting run as Mastra's `listSuspendedRuns` gives it: its calls are `toolCalls`. */
export interface AgentSuspendedRun {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  startTime: Date;
  /** The calls it waits on (`requiresApproval`: approve or decline; else resume with data, or a result). */
  toolCalls: PendingToolCall[];
  /** Set when this process cannot read the run's memo (e.g. a codec key it lacks): why. */
  unreadable?: string;
}

/** What an agent's methods need of a client; `AgentClient` has it all. */
export interface AgentMethodsClient {
  stream<S extends OutputSchema = never>(
    agentId: string,
    prompt: RunPrompt,
    options?: StreamOptions<S>,
  ): Promise<RunStream<StructuredObject<S>>>;
  generate<S extends OutputSchema = never>(
    agentId: string,
    prompt: RunPrompt,
    options?: StartOptions<S>,
  ): Promise<RunResult<StructuredObject<S>>>;
  decide(request: DecisionRequest, options?: { then?: 'stream' }): Promise<RunStream>;
  decide(request: DecisionRequest, options: { then: 'result' }): Promise<RunResult>;
  listSuspendedRuns(filter?: Pick<RunFilter, 'agentId' | 'threadId' | 'resourceId'>): Promise<SuspendedRun[]>;
}

const RESULT = { then: 'result' } as const;

/**
 * One agent's runs and decisions. Runs start with this agent's id; decisions act on the run they name,
 * with the checks of the client's `decide`.
 */
export class AgentHandle {
  /**
   * @param client the client, or how to get it when a method is first called (an agent of `defineAgent`
   *   gets the process's bound client then)
   */
  // Private to the class (not a property): an agent defined from another (`{ ...agent }`) does not copy it.
  readonly #client: AgentMethodsClient | (() => Promise<AgentMethodsClient>);

  constructor(
    client: AgentMethodsClient | (() => Promise<AgentMethodsClient>),
    readonly id: string,
  ) {
    this.#client = client;
  }

  private async use(): Promise<AgentMethodsClient> {
    return typeof this.#client === 'function' ? this.#client() : this.#client;
  }

  /** Starts a run that streams: `runId`, `fullStream`, `textStream`, ... up to the first pause or the end. */
  async stream<S extends OutputSchema = never>(
    prompt: RunPrompt,
    options?: StreamOptions<S>,
  ): Promise<RunStream<StructuredObject<S>>> {
    return (await this.use()).stream(this.id, prompt, options);
  }

  /**
   * Starts a run and waits until it finishes or pauses (`finishReason: 'suspended'`). With
   * `structuredOutput: { schema }`, a finished run's `object` is typed by the schema.
   */
  async generate<S extends OutputSchema = never>(
    prompt: RunPrompt,
    options?: StartOptions<S>,
  ): Promise<RunResult<StructuredObject<S>>> {
    return (await this.use()).generate(this.id, prompt, options);
  }

  /** Approves the run's call (its latest waiting one unless `toolCallId` names one); streams from there. */
  async approveToolCall(target: DecisionTarget & { args?: JsonValue }): Promise<RunStream> {
    return (await this.use()).decide({ ...target, kind: 'approve' });
  }

  /** Approves the run's call and returns its next result. */
  async approveToolCallGenerate(target: DecisionTarget & { args?: JsonValue }): Promise<RunResult> {
    return (await this.use()).decide({ ...target, kind: 'approve' }, RESULT);
  }

  /** Declines the run's call (it does not run; the model is told why); streams from there. */
  async declineToolCall(target: DecisionTarget & { reason?: string }): Promise<RunStream> {
    return (await this.use()).decide({ ...target, kind: 'decline' });
  }

  /** Declines the run's call and returns its next result. */
  async declineToolCallGenerate(target: DecisionTarget & { reason?: string }): Promise<RunResult> {
    return (await this.use()).decide({ ...target, kind: 'decline' }, RESULT);
  }

  /** Resumes a suspended call with data for its `resumeSchema` (`{ approved }` decides an approval); streams. */
  async resumeStream(resumeData: JsonValue, target: DecisionTarget): Promise<RunStream> {
    return (await this.use()).decide({ ...target, kind: 'resume', resumeData });
  }

  /** Resumes a suspended call and returns the run's next result. */
  async resumeGenerate(resumeData: JsonValue, target: DecisionTarget): Promise<RunResult> {
    return (await this.use()).decide({ ...target, kind: 'resume', resumeData }, RESULT);
  }

  /** Approves or declines the call this agent's run on a thread waits on; streams from there. */
  async sendToolApproval(approval: ThreadToolApproval): Promise<RunStream> {
    const { threadApprovalRequest } = await import('./decisions/thread-approval.js');
    const request = threadApprovalRequest('sendToolApproval', { ...approval, agentId: this.id });
    return (await this.use()).decide(request);
  }

  /** {@link sendToolApproval}, returning the run's next result. */
  async sendToolApprovalGenerate(approval: ThreadToolApproval): Promise<RunResult> {
    const { threadApprovalRequest } = await import('./decisions/thread-approval.js');
    const request = threadApprovalRequest('sendToolApprovalGenerate', { ...approval, agentId: this.id });
    return (await this.use()).decide(request, RESULT);
  }

  /**
   * This agent's runs that wait on tool calls, in Mastra's shape (`{ runs }`, each with its
   * `toolCalls`), found through Temporal visibility: from any process, with no worker up.
   */
  async listSuspendedRuns(
    filter: Pick<RunFilter, 'threadId' | 'resourceId'> = {},
  ): Promise<{ runs: AgentSuspendedRun[] }> {
    const found = await (await this.use()).listSuspendedRuns({ ...filter, agentId: this.id });
    return { runs: found.map(({ pendingToolCalls, ...run }) => ({ ...run, toolCalls: pendingToolCalls })) };
  }
}
