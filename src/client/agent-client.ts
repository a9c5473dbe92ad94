import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, type SearchAttributePair } from '@temporalio/common';
import { z } from 'zod';
import { resolveConnection, type ConnectionSettings } from '../config.js';
import { InvalidRunOptionsError, RunFailedError, RunNotFoundError } from '../errors.js';
import { MessageSchema, RunOptionsSchema, RunResultSchema, type Message, type RunInput, type RunOptions, type RunResult } from '../schemas.js';
import type { agentRun } from '../workflows/agent-run.js';
import { AgentIdKey, AgentResourceIdKey, AgentStatusKey, AgentThreadIdKey } from '../workflows/search-attributes.js';

/** A prompt, or the conversation so far as AI SDK `ModelMessage`s. */
export type RunPrompt = string | Message[];

/** Options of {@link AgentClient.start} and {@link AgentClient.generate}. */
export interface StartOptions extends RunOptions {
  /** The run id (the Temporal workflow id); default `run-<uuid>`. */
  runId?: string;
}

/** The options of {@link AgentClient.connect}. */
export type AgentClientOptions = ConnectionSettings;

/**
 * Starts agent runs and reads their results. Every run is a Temporal workflow whose id is the
 * run id, so any process connected to the namespace can pick a run up by id.
 */
export class AgentClient {
  /** The Temporal client underneath, for anything this class does not cover. */
  readonly temporal: Client;
  readonly taskQueue: string;
  private readonly ownConnection: Connection | undefined;

  constructor(args: { client: Client; taskQueue: string; ownConnection?: Connection }) {
    this.temporal = args.client;
    this.taskQueue = args.taskQueue;
    this.ownConnection = args.ownConnection;
  }

  /** Connects from the environment or a Temporal config profile; settings given here win. */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    const { connectionOptions, namespace, taskQueue } = resolveConnection(options);
    const connection = await Connection.connect({
      address: connectionOptions.address,
      tls: connectionOptions.tls,
      apiKey: connectionOptions.apiKey,
      metadata: connectionOptions.metadata,
    });
    return new AgentClient({ client: new Client({ connection, namespace }), taskQueue, ownConnection: connection });
  }

  get namespace(): string {
    return this.temporal.options.namespace;
  }

  /** Starts a run and returns its id without waiting. */
  async start(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<{ runId: string }> {
    const { runId = `run-${randomUUID()}`, ...runOptions } = options;
    const input = this.runInput(agentId, prompt, runOptions);
    const searchAttributes: SearchAttributePair[] = [
      { key: AgentIdKey, value: agentId },
      { key: AgentStatusKey, value: 'running' },
    ];
    if (input.options.threadId) searchAttributes.push({ key: AgentThreadIdKey, value: input.options.threadId });
    if (input.options.resourceId) searchAttributes.push({ key: AgentResourceIdKey, value: input.options.resourceId });
    await this.temporal.workflow.start<typeof agentRun>('agentRun', {
      workflowId: runId,
      taskQueue: this.taskQueue,
      args: [input],
      typedSearchAttributes: searchAttributes,
    });
    return { runId };
  }

  /** Waits for a run to finish and returns its result; throws {@link RunFailedError} if it failed. */
  async result(runId: string): Promise<RunResult> {
    const handle: WorkflowHandle<typeof agentRun> = this.temporal.workflow.getHandle(runId);
    try {
      return RunResultSchema.parse(await handle.result());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(runId, this.namespace);
      if (err instanceof WorkflowFailedError) {
        const cause = err.cause;
        const reason = cause?.message ?? err.message;
        throw new RunFailedError(runId, reason, cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined);
      }
      throw err;
    }
  }

  /** Starts a run and waits for its result. */
  async generate(agentId: string, prompt: RunPrompt, options: StartOptions = {}): Promise<RunResult> {
    const { runId } = await this.start(agentId, prompt, options);
    return this.result(runId);
  }

  /** Closes the connection this client opened (none when it was given a Temporal client). */
  async close(): Promise<void> {
    await this.ownConnection?.close();
  }

  private runInput(agentId: string, prompt: RunPrompt, options: RunOptions): RunInput {
    if (!agentId) throw new InvalidRunOptionsError('agentId must be a non-empty string');
    const parsedOptions = RunOptionsSchema.safeParse(options);
    if (!parsedOptions.success) throw new InvalidRunOptionsError(z.prettifyError(parsedOptions.error));
    const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
    const parsedMessages = z.array(MessageSchema).min(1).safeParse(messages);
    if (!parsedMessages.success) throw new InvalidRunOptionsError(`messages: ${z.prettifyError(parsedMessages.error)}`);
    return { agentId, messages: parsedMessages.data, options: parsedOptions.data };
  }
}
