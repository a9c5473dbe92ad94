/** The input of a run as the client starts it: options checked, stored as plain data. */
import { z } from 'zod';
import { storableApprovalPolicy, type ToolApprovalFunction } from '../../approvals/policy.js';
import { InvalidInputError, InvalidRunOptionsError } from '../../errors.js';
import { unknownKeyMessage } from '../../options.js';
import { oneLine } from '../../schemas/json.js';
import { IdSchema, jsonBytes, kib, MAX_INPUT_BYTES, measureJson } from '../../schemas/limits.js';
import { checkInput } from '../checks.js';
import { storableClientTools, type ClientToolInput } from './client-tools.js';
import { structuredOutputSpec, type OutputSchema, type StructuredOutput } from '../../structured-output.js';
import { MessageSchema, type Message } from '../../schemas/message.js';
import type { RunInput } from '../../schemas/run-input.js';
import type { PrincipalInput } from '../identity.js';
import { RunOptionsSchema, type RunOptions } from '../../schemas/run-options.js';
import { StreamGraceMsSchema } from '../../schemas/stream-grace.js';
import { DEFAULT_STREAM_GRACE_MS } from '../../schemas/stream-grace.js';

export { DEFAULT_STREAM_GRACE_MS } from '../../schemas/stream-grace.js';

/** A prompt, or the conversation so far as AI SDK `ModelMessage`s. */
export type RunPrompt = string | Message[];

/** Options of `AgentClient.start` and `AgentClient.generate`. */
export interface StartOptions<S extends OutputSchema = OutputSchema> extends Omit<
  RunOptions,
  'requireToolApproval' | 'clientTools' | 'structuredOutput'
> {
  /** The run id (the Temporal workflow id); default `run-<uuid>`. */
  runId?: string;
  /** Who starts the run (default: the client's principal): they may read it, and the agent's policy is checked. */
  principal?: PrincipalInput;
  /**
   * Pause every tool call for approval. A function cannot be stored with the run: the run then
   * requires approval for every call (fail safe), and the client logs a warning saying so.
   */
  requireToolApproval?: boolean | ToolApprovalFunction;
  /**
   * Not supported: per-call hooks are functions, which cannot be stored with a durable run. Passing them
   * is refused ({@link InvalidRunOptionsError}); put the hooks on the agent (`defineAgent({ hooks })`),
   * where they run on the worker around every call.
   */
  hooks?: never;
  /**
   * Tools of this run that the caller runs (Mastra's `clientTools`), by the name the model calls them:
   * stored with the run as JSON schemas; the run pauses at each call for the caller's result
   * (`submitToolResult`). An `execute` cannot be stored: a tool with one is refused.
   */
  clientTools?: Record<string, ClientToolInput>;
  /**
   * More tools for this run, in named sets (Mastra's `toolsets`, e.g. what an MCP client lists): each
   * tool is offered by its own key, as a client tool, exactly as `clientTools` are. For MCP tools that
   * run on the worker, give the agent `mcpServers`.
   */
  toolsets?: Record<string, Record<string, ClientToolInput>>;
  /**
   * Not supported: a function cannot be stored with a durable run, and a step's options must be the
   * same when the run replays. Passing one is refused ({@link InvalidRunOptionsError}); set `activeTools`,
   * `toolChoice` or `modelSettings` for the whole run instead.
   */
  prepareStep?: never;
  /**
   * The final answer is an object that fits `schema` (a zod schema, or a Standard Schema with a JSON
   * schema): `result.object`, typed, checked by the worker against its JSON schema and here by the schema
   * itself. A run that finishes without it throws `StructuredOutputError`. Replaces the agent's own.
   */
  structuredOutput?: StructuredOutput<S>;
}

/** Options of `AgentClient.stream`. */
export interface StreamOptions<S extends OutputSchema = OutputSchema> extends StartOptions<S> {
  /**
   * How long the finished run stays open so that subscribers can read its last chunks (default
   * 10 s, at most 10 minutes; cancelling the run ends it). A subscriber that comes later still gets
   * the final result, as a `finish` chunk.
   */
  streamGraceMs?: number;
}

/** Why a run is refused `prepareStep`. */
export const PREPARE_STEP_REFUSAL =
  'prepareStep: a function cannot be stored with a durable run, and each step must be the same when the run ' +
  'replays, so it is not supported. Set activeTools, toolChoice or modelSettings for the whole run, or ' +
  'start a new run with other options.';

/** Why a run is refused per-call hooks. */
export const PER_CALL_HOOKS_REFUSAL =
  'hooks: functions cannot be stored with a durable run, so per-call hooks are not supported. Put them on the ' +
  'agent (defineAgent({ hooks })), where they run on the worker around every call; to pause every call for ' +
  'approval instead, pass requireToolApproval: true';

/** A stream's grace period, checked; throws {@link InvalidRunOptionsError} for one past the bound. */
export function streamGrace(ms: number = DEFAULT_STREAM_GRACE_MS): number {
  const grace = StreamGraceMsSchema.safeParse(ms);
  if (!grace.success) throw new InvalidRunOptionsError(`streamGraceMs ${ms}: ${oneLine(grace.error.issues)}`);
  return grace.data;
}

/** The run's input, checked; throws {@link InvalidRunOptionsError} naming what does not fit. */
export function buildRunInput(
  agentId: string,
  prompt: RunPrompt,
  options: Omit<StartOptions, 'runId' | 'principal'>,
  warn: (message: string) => void,
): RunInput {
  checkInput('agentId', IdSchema, agentId);
  const { requireToolApproval, hooks, clientTools, toolsets, prepareStep, structuredOutput, ...rest } = options;
  const known = [...Object.keys(RunOptionsSchema.shape), 'hooks', 'toolsets', 'prepareStep'];
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new InvalidRunOptionsError(unknown.map((k) => unknownKeyMessage(k, known)).join('; '));
  if (prepareStep !== undefined) throw new InvalidRunOptionsError(PREPARE_STEP_REFUSAL);
  if (hooks !== undefined) throw new InvalidRunOptionsError(PER_CALL_HOOKS_REFUSAL);
  const storedTools = storableClientTools(clientTools, toolsets);
  const output = structuredOutput === undefined ? undefined : structuredOutputSpec(structuredOutput);
  if (output && 'problem' in output) throw new InvalidRunOptionsError(`structuredOutput: ${output.problem}`);
  // Input nested too deep to check or to serialise is refused before a schema recurses into it.
  const walked = measureJson({ prompt, options: rest });
  if (!walked.ok) throw new InvalidInputError('the run input', `not JSON data that can be sent: ${walked.problem}`);
  const approval = storableApprovalPolicy(requireToolApproval, warn);
  const parsedOptions = RunOptionsSchema.safeParse({
    ...rest,
    ...(storedTools ? { clientTools: storedTools } : {}),
    ...(output ? { structuredOutput: output.spec } : {}),
    ...(approval !== undefined ? { requireToolApproval: approval } : {}),
  });
  if (!parsedOptions.success) throw new InvalidRunOptionsError(oneLine(parsedOptions.error.issues));
  const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
  const parsedMessages = z.array(MessageSchema).min(1).safeParse(messages);
  if (!parsedMessages.success) throw new InvalidRunOptionsError(`messages: ${oneLine(parsedMessages.error.issues)}`);
  const input = { agentId, messages: parsedMessages.data, options: parsedOptions.data };
  // Larger input would leave the run's conversation no room.
  const bytes = jsonBytes(input);
  if (bytes > MAX_INPUT_BYTES) {
    const problem = `${kib(bytes)} of JSON (prompt, messages and options); at most ${kib(MAX_INPUT_BYTES)}`;
    throw new InvalidInputError('the run input', problem, true);
  }
  return input;
}
