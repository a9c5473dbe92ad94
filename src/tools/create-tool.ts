import type { z } from 'zod';
import { rejectUnknownKeys } from '../options.js';
import type { ToolModelOutput } from '../schemas/tool-output.js';
import type { ToolActivityOptions } from '../schemas/agent-spec.js';
import type { JsonValue } from '../schemas/json.js';
import type { RequestContext } from './request-context.js';
import { checkTransforms, type ToolTransforms } from './transforms.js';

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

/** The options of {@link createTool}. */
export interface ToolConfig<
  TInput extends z.ZodType,
  TOutput extends z.ZodType,
  TSuspend extends z.ZodType = z.ZodType<JsonValue>,
  TResume extends z.ZodType = z.ZodType<JsonValue>,
> {
  /** A stable identifier of the tool (the model sees the key the tool is registered under). */
  id: string;
  /** What the tool does; the model reads this to decide when to call it. */
  description: string;
  inputSchema: TInput;
  /** Checked against what `execute` returns; see `outputValidation`. */
  outputSchema?: TOutput;
  /** Checked against the payload given to `context.suspend()`. */
  suspendSchema?: TSuspend;
  /** Checked against resume data, by the client before it signals and by the tool before it runs. */
  resumeSchema?: TResume;
  /**
   * The resume schema of one call, from its input, where the valid data depends on it (a choice among
   * the options the call offers). Resume data must fit both this and `resumeSchema`; `resumeData` is
   * what `resumeSchema` makes of it. Its JSON schema is stored with the suspended call, so the client,
   * agentctl and the HTTP server refuse data that does not fit before they signal, and the worker checks
   * it again before the tool runs.
   */
  resumeSchemaFor?: (input: z.output<TInput>) => z.ZodType;
  /**
   * Runs on the worker, as an activity. A tool without `execute` is a client tool: the run pauses
   * with `finishReason: 'tool-calls'` until the caller submits the result (`submitToolResult`).
   */
  execute?: (
    input: z.output<TInput>,
    context: ToolExecutionContext<z.input<TSuspend>, z.output<TResume>>,
  ) => Promise<z.input<TOutput>> | z.input<TOutput>;
  /** Pause for a decision before every call of this tool. */
  requireApproval?: boolean;
  /**
   * The tool may run twice for one call without harm (it keys its side effect by
   * `context.idempotencyKey`, or has none). An approved call of a tool that is not idempotent runs at
   * most once: if its worker dies while it runs, the run waits for someone to resolve the call
   * (retry, skip, fail) instead of running it again.
   */
  idempotent?: boolean;
  /**
   * `error` (default): an output that fails `outputSchema` reaches the model as an error. `warn`: log it
   * and keep the output.
   */
  outputValidation?: 'error' | 'warn';
  /**
   * Shapes what the model is shown of the output (after `transform.transcript.output`, when there is
   * one); the run's result keeps the full output. It runs for client tools' results too.
   */
  toModelOutput?: (output: z.output<TOutput>) => ToolModelOutput;
  /**
   * What the run's stream shows of this tool's calls (`display`) and what the stored transcript keeps
   * (`transcript`), stage by stage; the run's result keeps the raw values. A transform that throws
   * hides the payload. See the README's "Transforms".
   */
  transform?: ToolTransforms;
  /** Temporal activity settings for this tool's executions. */
  activity?: ToolActivityOptions;
  /** The model started a call of this tool (its input is about to stream). */
  onInputStart?: (context: ToolHookContext) => void | Promise<void>;
  /** A piece of the call's input text arrived (streamed runs). */
  onInputDelta?: (context: ToolHookContext & { inputTextDelta: string }) => void | Promise<void>;
  /** The call's whole input is there. */
  onInputAvailable?: (context: ToolHookContext & { input: unknown }) => void | Promise<void>;
  /** `execute` returned this output (after output validation). */
  onOutput?: (context: ToolHookContext & { output: z.output<TOutput> }) => void | Promise<void>;
}

/** A tool, as {@link createTool} returns it. */
export type Tool<
  TInput extends z.ZodType = z.ZodType,
  TOutput extends z.ZodType = z.ZodType,
  TSuspend extends z.ZodType = z.ZodType,
  TResume extends z.ZodType = z.ZodType,
> = ToolConfig<TInput, TOutput, TSuspend, TResume> & { readonly kind: 'tool' };

/** A tool of any schema, as agents hold them. */
export interface AnyTool {
  readonly kind: 'tool';
  id: string;
  description: string;
  inputSchema: z.ZodType;
  outputSchema?: z.ZodType;
  suspendSchema?: z.ZodType;
  resumeSchema?: z.ZodType;
  resumeSchemaFor?: (input: never) => z.ZodType;
  execute?: (input: never, context: never) => unknown;
  requireApproval?: boolean;
  idempotent?: boolean;
  outputValidation?: 'error' | 'warn';
  toModelOutput?: (output: never) => ToolModelOutput;
  transform?: ToolTransforms;
  activity?: ToolActivityOptions;
  onInputStart?: (context: ToolHookContext) => void | Promise<void>;
  onInputDelta?: (context: ToolHookContext & { inputTextDelta: string }) => void | Promise<void>;
  onInputAvailable?: (context: ToolHookContext & { input: unknown }) => void | Promise<void>;
  onOutput?: (context: never) => void | Promise<void>;
}

/** Every option {@link createTool} takes; any other is refused, naming the nearest. */
const TOOL_OPTIONS = [
  'id',
  'description',
  'inputSchema',
  'outputSchema',
  'suspendSchema',
  'resumeSchema',
  'resumeSchemaFor',
  'execute',
  'requireApproval',
  'idempotent',
  'outputValidation',
  'toModelOutput',
  'transform',
  'activity',
  'onInputStart',
  'onInputDelta',
  'onInputAvailable',
  'onOutput',
] as const satisfies ReadonlyArray<keyof ToolConfig<z.ZodType, z.ZodType>>;
// Fails to compile when ToolConfig gains an option that TOOL_OPTIONS does not list.
const everyToolOption: Record<
  Exclude<keyof ToolConfig<z.ZodType, z.ZodType>, (typeof TOOL_OPTIONS)[number]>,
  never
> = {};
void everyToolOption;

/**
 * Defines a tool, in the shape of Mastra's `createTool`: zod schemas in, `execute(input, context)`
 * run on the worker as a Temporal activity.
 *
 * @example
 * const weather = createTool({
 *   id: 'get-weather',
 *   description: 'Current weather for a city',
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, tempC: 21 }),
 * });
 */
export function createTool<
  TInput extends z.ZodType,
  TOutput extends z.ZodType = z.ZodType<JsonValue>,
  TSuspend extends z.ZodType = z.ZodType<JsonValue>,
  TResume extends z.ZodType = z.ZodType<JsonValue>,
>(config: ToolConfig<TInput, TOutput, TSuspend, TResume>): Tool<TInput, TOutput, TSuspend, TResume> {
  if (!config.id) throw new TypeError('createTool: `id` is required');
  rejectUnknownKeys(`createTool("${config.id}")`, config, TOOL_OPTIONS);
  checkTransforms(`createTool("${config.id}")`, config.transform);
  if (config.execute !== undefined && typeof config.execute !== 'function') {
    throw new TypeError(`createTool("${config.id}"): \`execute\` must be a function, or left out for a client tool`);
  }
  if (config.resumeSchemaFor !== undefined) {
    if (typeof config.resumeSchemaFor !== 'function') {
      throw new TypeError(`createTool("${config.id}"): \`resumeSchemaFor\` must be a function of the input`);
    }
    // A client tool never suspends, so a resume schema of its calls would never be used.
    if (!config.execute) throw new TypeError(`createTool("${config.id}"): \`resumeSchemaFor\` needs \`execute\``);
  }
  return { ...config, kind: 'tool' };
}
