/**
 * One agent, seen from the client: Mastra's `agent.stream()`, `agent.approveToolCall()`,
 * `agent.listSuspendedRuns()` and the rest, so that code written against Mastra's agent runs with
 * `client.getAgent(id)` in place of `mastra.getAgent(id)`.
 */
import type { JsonValue } from '../schemas/json.js';
import type { PendingToolCall } from '../schemas/decisions.js';
import type { RunResult } from '../schemas/run-result.js';
import type { AgentClient } from './agent-client.js';
import type { DecisionTarget } from './decisions/decisions.js';
import type { RunPrompt, StartOptions, StreamOptions } from './runs/run-input.js';
import type { RunStream } from './stream/run-stream.js';
import type { RunFilter } from './runs/runs.js';
import type { ThreadToolApproval } from './decisions/thread-decisions.js';

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

/**
 * The client's view of one agent. Runs start with this agent's id; decisions act on the run they name,
 * exactly as the client's own methods do (the same checks, the same signals).
 */
export class AgentHandle {
  constructor(
    private readonly client: AgentClient,
    readonly id: string,
  ) {}

  /** Starts a run that streams (see {@link AgentClient.stream}). */
  stream(prompt: RunPrompt, options?: StreamOptions): Promise<RunStream> {
    return this.client.stream(this.id, prompt, options);
  }

  /** Starts a run and waits until it finishes or pauses (see {@link AgentClient.generate}). */
  generate(prompt: RunPrompt, options?: StartOptions): Promise<RunResult> {
    return this.client.generate(this.id, prompt, options);
  }

  approveToolCall(target: DecisionTarget & { args?: JsonValue }): Promise<RunStream> {
    return this.client.approveToolCall(target);
  }

  approveToolCallGenerate(target: DecisionTarget & { args?: JsonValue }): Promise<RunResult> {
    return this.client.approveToolCallGenerate(target);
  }

  declineToolCall(target: DecisionTarget & { reason?: string }): Promise<RunStream> {
    return this.client.declineToolCall(target);
  }

  declineToolCallGenerate(target: DecisionTarget & { reason?: string }): Promise<RunResult> {
    return this.client.declineToolCallGenerate(target);
  }

  resumeStream(resumeData: JsonValue, target: DecisionTarget): Promise<RunStream> {
    return this.client.resumeStream(resumeData, target);
  }

  resumeGenerate(resumeData: JsonValue, target: DecisionTarget): Promise<RunResult> {
    return this.client.resumeGenerate(resumeData, target);
  }

  /** Approves or declines the call this agent's run on a thread waits on (see {@link AgentClient.sendToolApproval}). */
  sendToolApproval(approval: ThreadToolApproval): Promise<RunStream> {
    return this.client.sendToolApproval({ ...approval, agentId: this.id });
  }

  /**
   * This agent's runs that wait on tool calls, in Mastra's shape (`{ runs }`, each with its
   * `toolCalls`), found through Temporal visibility: from any process, with no worker up.
   */
  async listSuspendedRuns(
    filter: Pick<RunFilter, 'threadId' | 'resourceId'> = {},
  ): Promise<{ runs: AgentSuspendedRun[] }> {
    const found = await this.client.listSuspendedRuns({ ...filter, agentId: this.id });
    return { runs: found.map(({ pendingToolCalls, ...run }) => ({ ...run, toolCalls: pendingToolCalls })) };
  }
}
