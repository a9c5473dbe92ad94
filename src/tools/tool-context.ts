/**
 * What a tool's code is handed on the worker: `execute`'s context (its logger, its writer to the run's
 * stream, `suspend`) and what its lifecycle hooks are told of the call.
 */
import type { JsonValue } from '../schemas/json.js';
import type { RequestContext } from './request-context.js';

/** A logger for tool code; messages go to the worker's Temporal activity logger with the run's context. */
export interface ToolLogger {
  debug(message: string, attrs?: Record<string, unknown>): void;
  info(message: string, attrs?: Record<string, unknown>): void;
  warn(message: string, attrs?: Record<string, unknown>): void;
  error(message: string, attrs?: Record<string, unknown>): void;
}

/**
 * A chunk a tool writes to its run's stream, in the AI SDK's data-part form: a UI gets it as a
 * `data-<name>` part of the UI message stream. `id`: a later chunk with the same type and id replaces
 * this one in the UI's message; `transient`: the UI gets it (`onData`) but does not keep it in the message.
 */
export interface ToolDataChunk<TData = JsonValue> {
  type: `data-${string}`;
  data: TData;
  id?: string;
  transient?: boolean;
}

/** Where a tool writes custom chunks to its run's stream; see {@link ToolExecutionContext.writer}. */
export interface ToolStreamWriter {
  /**
   * Writes a chunk to the run's stream, after the call's `tool-call` and before its result. Checked at
   * once: a chunk that is not `{ type: 'data-<name>', data, id?, transient? }` with JSON `data` of at
   * most 16 KiB, a name the runner reserves (`data-tool-*`, `data-agent-*`), or a write past 200 chunks
   * or 256 KiB in this execution throws a `StreamWriteError` here. Resolves once the chunk is queued;
   * chunks go to the run in batches, all before the call's result. Each execution writes anew, so a
   * retried or resumed call writes again.
   */
  write(chunk: ToolDataChunk<unknown>): Promise<void>;
}

/** What `execute` gets besides its input. */
export interface ToolExecutionContext<TSuspend = JsonValue, TResume = JsonValue> {
  runId: string;
  agentId: string;
  toolCallId: string;
  /** The tool's registration key on the agent. */
  toolName: string;
  threadId: string | undefined;
  resourceId: string | undefined;
  /**
   * `<runId>:<toolCallId>`, the same on every attempt of this call. Tool executions are Temporal
   * activities and run at least once (a worker that dies mid-call means a retry), so a tool with
   * side effects should use this key to make them happen once.
   */
  idempotencyKey: string;
  /** 1 on the first attempt, more on retries. */
  attempt: number;
  /** Aborted when the activity is cancelled or times out. */
  abortSignal: AbortSignal;
  logger: ToolLogger;
  /**
   * Pauses the run until someone resumes this call: `return await context.suspend(payload)`. The
   * payload is checked against `suspendSchema`. On resume the tool runs again from the start, with
   * `resumeData` set. `await suspend()` throws to unwind `execute`, so code after it does not run;
   * a `suspend()` that is not awaited suspends the call all the same once `execute` settles, and what
   * `execute` returned is dropped. The first call of `suspend()` counts.
   */
  suspend: (payload: TSuspend) => Promise<never>;
  /** The data this call was resumed with (checked against `resumeSchema`); undefined on a first run. */
  resumeData: TResume | undefined;
  /** The run's request context (`requestContext.get('tier')`): what the caller or the server set for the run. */
  requestContext: RequestContext;
  /**
   * Writes custom chunks (`data-<name>` parts) to the run's stream, for UIs: progress, previews,
   * partial results. In a sub-agent's run they go to its parent's stream too, as its progress.
   */
  writer: ToolStreamWriter;
  /** The same, where Mastra's tools look for them: `const { suspend, resumeData } = context.agent`. */
  agent: { toolCallId: string; suspend: (payload: TSuspend) => Promise<never>; resumeData: TResume | undefined };
}

/**
 * What the tool lifecycle hooks get. Hooks run on the worker, at least once, and only observe: an error
 * they throw is logged.
 */
export interface ToolHookContext {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
}

/**
 * What `preview` gets besides its input: the call and the run, to read what the call would change. No
 * writer and no `suspend`: a preview is a dry run, shown to the approver, and may run more than once.
 */
export type ToolPreviewContext = Pick<
  ToolExecutionContext,
  | 'runId'
  | 'agentId'
  | 'toolCallId'
  | 'toolName'
  | 'threadId'
  | 'resourceId'
  | 'abortSignal'
  | 'logger'
  | 'requestContext'
>;
