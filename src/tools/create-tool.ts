import { errorMessage } from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import type { ToolModelOutput } from '../schemas/tool-output.js';
import type { ToolActivityOptions } from '../schemas/agent-spec.js';
import type { JsonValue } from '../schemas/json.js';
import { approvalDeadlineSpec, type ApprovalDeadline } from '../schemas/deadline.js';
import {
  jsonSchemaOf,
  schemaProblem,
  type CheckingSchema,
  type SchemaInput,
  type SchemaOutput,
  type ToolSchema,
} from './schema.js';
import { checkTransforms, type ToolTransforms } from './transforms.js';
import type { ToolExecutionContext, ToolHookContext, ToolPreviewContext } from './tool-context.js';

/**
 * The options of {@link createTool}. Schemas are zod, or any Standard Schema library (valibot, arktype,
 * ...); `inputSchema` and `resumeSchema` must also give a JSON schema (see {@link ToolSchema}).
 */
export interface ToolConfig<
  TInput extends ToolSchema,
  TOutput extends CheckingSchema,
  TSuspend extends CheckingSchema = CheckingSchema<unknown, JsonValue>,
  TResume extends ToolSchema = ToolSchema<unknown, JsonValue>,
  TResult extends SchemaInput<TOutput> = SchemaInput<TOutput>,
> {
  /** A stable identifier of the tool (the model sees the key the tool is registered under). */
  id: string;
  /** What the tool does; the model reads this to decide when to call it (give one: none is allowed, as in Mastra). */
  description?: string;
  /** Checked against the model's arguments; the model is shown its JSON schema. */
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
  resumeSchemaFor?: (input: SchemaOutput<TInput>) => ToolSchema;
  /**
   * Runs on the worker, as an activity. A tool without `execute` is a client tool: the run pauses
   * with `finishReason: 'tool-calls'` until the caller submits the result (`submitToolResult`).
   */
  execute?: (
    input: SchemaOutput<TInput>,
    context: ToolExecutionContext<SchemaInput<TSuspend>, SchemaOutput<TResume>>,
  ) => Promise<TResult> | TResult;
  /** Pause for a decision before every call of this tool. */
  requireApproval?: boolean;
  /**
   * A dry run of a call (a diff, the rows it would touch), computed on the worker before the call waits
   * for approval: the approver sees it, and the approval is bound to it (the call's fingerprint covers
   * it). It is computed again just before the call runs and inside the execution itself: if it changed,
   * the call waits again, with both shown; it never runs on a preview nobody approved. JSON, at most 32 KiB.
   */
  preview?: (input: SchemaOutput<TInput>, context: ToolPreviewContext) => Promise<JsonValue> | JsonValue;
  /**
   * How long a call of this tool may wait for approval (`'30m'`, `'2 hours'`, ms): when it passes, the
   * call expires (it does not run, and the model is told it expired), unless `escalate` first hands it
   * to other approvers (`decide`) for another `after`. Overrides the agent's `approvalDeadline`.
   */
  approvalDeadline?: ApprovalDeadline;
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
  toModelOutput?: (output: ToolOutput<TOutput, TResult>) => ToolModelOutput;
  /**
   * What the run's stream shows of this tool's calls (`display`) and what the stored transcript keeps
   * (`transcript`), stage by stage; the run's result keeps the raw values. A transform that throws
   * hides the payload. See docs/guides/tools.md, "Transforms".
   */
  transform?: ToolTransforms;
  /** Temporal activity settings for this tool's executions. */
  activity?: ToolActivityOptions;
  /** The model started a call of this tool (its input is about to stream). */
  onInputStart?: (context: ToolHookContext) => void | Promise<void>;
  /** A piece of the call's input text arrived (streamed runs). */
  onInputDelta?: (context: ToolHookContext & { inputTextDelta: string }) => void | Promise<void>;
  /** The call's whole input is there, as the model wrote it (it fits `inputSchema`). */
  onInputAvailable?: (context: ToolHookContext & { input: SchemaInput<TInput> }) => void | Promise<void>;
  /** `execute` returned this output (after output validation). */
  onOutput?: (context: ToolHookContext & { output: ToolOutput<TOutput, TResult> }) => void | Promise<void>;
}

/**
 * The output `toModelOutput` and `onOutput` see: what `outputSchema` makes of it, or, for a tool
 * without one, what `execute` returns (as Mastra infers it).
 */
export type ToolOutput<TOutput extends CheckingSchema, TResult> =
  JsonValue extends SchemaOutput<TOutput> ? TResult : SchemaOutput<TOutput>;

/** A tool, as {@link createTool} returns it. */
export type Tool<
  TInput extends ToolSchema = ToolSchema,
  TOutput extends CheckingSchema = CheckingSchema,
  TSuspend extends CheckingSchema = CheckingSchema,
  TResume extends ToolSchema = ToolSchema,
  TResult extends SchemaInput<TOutput> = SchemaInput<TOutput>,
> = ToolConfig<TInput, TOutput, TSuspend, TResume, TResult> & { readonly kind: 'tool' };

/** A tool of any schema, as agents hold them. */
export interface AnyTool {
  readonly kind: 'tool';
  id: string;
  description?: string;
  inputSchema: ToolSchema;
  outputSchema?: CheckingSchema;
  suspendSchema?: CheckingSchema;
  resumeSchema?: ToolSchema;
  resumeSchemaFor?: (input: never) => ToolSchema;
  execute?: (input: never, context: never) => unknown;
  requireApproval?: boolean;
  preview?: (input: never, context: ToolPreviewContext) => Promise<JsonValue> | JsonValue;
  approvalDeadline?: ApprovalDeadline;
  idempotent?: boolean;
  outputValidation?: 'error' | 'warn';
  toModelOutput?: (output: never) => ToolModelOutput;
  transform?: ToolTransforms;
  activity?: ToolActivityOptions;
  onInputStart?: (context: ToolHookContext) => void | Promise<void>;
  onInputDelta?: (context: ToolHookContext & { inputTextDelta: string }) => void | Promise<void>;
  onInputAvailable?: (context: never) => void | Promise<void>;
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
  'preview',
  'approvalDeadline',
  'idempotent',
  'outputValidation',
  'toModelOutput',
  'transform',
  'activity',
  'onInputStart',
  'onInputDelta',
  'onInputAvailable',
  'onOutput',
] as const satisfies ReadonlyArray<keyof ToolConfig<ToolSchema, CheckingSchema>>;
// Fails to compile when ToolConfig gains an option that TOOL_OPTIONS does not list.
const everyToolOption: Record<
  Exclude<keyof ToolConfig<ToolSchema, CheckingSchema>, (typeof TOOL_OPTIONS)[number]>,
  never
> = {};
void everyToolOption;

/**
 * Defines a tool, in the shape of Mastra's `createTool`: schemas in (zod, or valibot, arktype and other
 * Standard Schema libraries), `execute(input, context)` run on the worker as a Temporal activity.
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
  TInput extends ToolSchema,
  TOutput extends CheckingSchema = CheckingSchema<unknown, JsonValue>,
  TSuspend extends CheckingSchema = CheckingSchema<unknown, JsonValue>,
  TResume extends ToolSchema = ToolSchema<unknown, JsonValue>,
  TResult extends SchemaInput<TOutput> = SchemaInput<TOutput>,
>(config: ToolConfig<TInput, TOutput, TSuspend, TResume, TResult>): Tool<TInput, TOutput, TSuspend, TResume, TResult> {
  if (!config.id) throw new TypeError('createTool: `id` is required');
  // `kind` comes along when a tool is made from another (`createTool({ ...tool, id: 'other' })`).
  const { kind: _kind, ...options } = config as typeof config & { kind?: unknown };
  rejectUnknownKeys(`createTool("${config.id}")`, options, TOOL_OPTIONS);
  checkTransforms(`createTool("${config.id}")`, config.transform);
  checkSchemas(`createTool("${config.id}")`, config);
  if (config.approvalDeadline !== undefined)
    approvalDeadlineSpec(`createTool("${config.id}")`, config.approvalDeadline);
  if (config.execute !== undefined && typeof config.execute !== 'function') {
    throw new TypeError(`createTool("${config.id}"): \`execute\` must be a function, or left out for a client tool`);
  }
  if (config.preview !== undefined) {
    if (typeof config.preview !== 'function') {
      throw new TypeError(`createTool("${config.id}"): \`preview\` must be a function of the input`);
    }
    // The preview is checked again where the call runs, on the worker: a client tool runs elsewhere.
    if (!config.execute) throw new TypeError(`createTool("${config.id}"): \`preview\` needs \`execute\``);
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

/**
 * Refuses, at definition, a schema the run could not use: something that is not a schema, or an input
 * or resume schema without a JSON schema, which would otherwise reach the model as no schema at all.
 * Their JSON schemas are made here once, so a schema its library cannot convert fails here too.
 */
function checkSchemas(
  where: string,
  config: Pick<AnyTool, 'inputSchema' | 'outputSchema' | 'suspendSchema' | 'resumeSchema'>,
): void {
  if (config.inputSchema === undefined) {
    throw new TypeError(
      `${where}: \`inputSchema\` is required (a schema of the tool's arguments; z.object({}) for none)`,
    );
  }
  for (const option of ['inputSchema', 'resumeSchema', 'outputSchema', 'suspendSchema'] as const) {
    const schema: unknown = config[option];
    if (schema === undefined) continue;
    const json = option === 'inputSchema' || option === 'resumeSchema';
    const problem = schemaProblem(schema, json);
    if (problem) throw new TypeError(`${where}: \`${option}\` ${problem}`);
    if (!json) continue;
    try {
      jsonSchemaOf(schema as ToolSchema);
    } catch (err) {
      throw new TypeError(`${where}: \`${option}\` has no JSON schema: ${errorMessage(err)}`, { cause: err });
    }
  }
}
