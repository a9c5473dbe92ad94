/**
 * Typed errors, and how to tell what was thrown. Sandbox-safe: no Node APIs here.
 */
import type { RefusalType } from './schemas/decisions.js';

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Typed errors. Each says what went wrong, with the offending value, and what to do.
 * The `name` of the errors thrown inside activities is also their Temporal failure type.
 */

/** An agent id that no agent registered on the worker has. */
export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';
  constructor(
    readonly agentId: string,
    known: string[],
  ) {
    super(
      `Unknown agent "${agentId}": the worker has ` +
        `${known.length ? known.map((k) => `"${k}"`).join(', ') : 'no agents'}. ` +
        'Register it with createWorker({ agents }).',
    );
  }
}

/** A model name that the worker's model registry cannot resolve. */
export class UnknownModelError extends Error {
  override readonly name = 'UnknownModelError';
  constructor(
    readonly model: string,
    reason: string,
  ) {
    super(`Unknown model "${model}": ${reason}`);
  }
}

/** The scripted model was asked for more steps than its script has. */
export class ScriptExhaustedError extends Error {
  override readonly name = 'ScriptExhaustedError';
  constructor(
    readonly stepsInScript: number,
    readonly requestedStep: number,
  ) {
    super(
      `The scripted model's script has ${stepsInScript} step(s), but model call ${requestedStep} was requested. ` +
        'Add a step to the script (the last step usually gives the final text).',
    );
  }
}

/**
 * An agent offers `webSearchTool`, and the run's model has no native web search. Thrown by the model
 * activity before it sends anything; the run fails with it (`RunFailedError.failureType`).
 */
export class WebSearchUnavailableError extends Error {
  override readonly name = 'WebSearchUnavailableError';
  constructor(
    readonly toolName: string,
    readonly model: string | undefined,
    /** The AI SDK provider id of the run's model, e.g. `openai.chat`. */
    readonly provider: string,
  ) {
    const which = model
      ? `model "${model}" (AI SDK provider "${provider}")`
      : `model instance of provider "${provider}"`;
    super(
      `Tool "${toolName}" is webSearchTool, the model provider's own web search, but the run's ${which} ` +
        'has no native web search here. Use a model that has one: "openai-responses/<model>" ' +
        '(OpenAI\'s Responses API; "openai/<model>" is Chat Completions, which has none), or leave the tool ' +
        'out of the run (activeTools).',
    );
  }
}

/**
 * An agent's MCP server could not be reached, or broke off: it names the server, the agent and the
 * transport's reason. Thrown on the worker (listing the server's tools, or calling one); Temporal
 * retries the activity, and the run fails with it (listing) or the model gets it as a tool error (a call).
 */
export class McpServerUnavailableError extends Error {
  override readonly name = 'McpServerUnavailableError';
  constructor(
    readonly agentId: string,
    readonly server: string,
    readonly where: string,
    reason: string,
    /** It did not answer in time: trying again at once would wait as long. */
    readonly timedOut = false,
  ) {
    super(
      `MCP server "${server}" of agent "${agentId}" (${where}) is unavailable: ${reason}. ` +
        'Check that it runs and that mcpServers.' +
        `${server} in defineAgent points at it.`,
    );
  }
}

/** Run options or input that do not fit their schema. */
export class InvalidRunOptionsError extends Error {
  override readonly name = 'InvalidRunOptionsError';
  constructor(readonly issues: string) {
    super(`Invalid run options: ${issues}`);
  }
}

/**
 * Input that does not fit its schema or is over its limit: which field, and why (a value it quotes is
 * truncated). `tooLarge` says the value was over a size limit (HTTP 413).
 */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
  constructor(
    readonly field: string,
    readonly reason: string,
    readonly tooLarge = false,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** A run id that a run in the namespace has already (running, or finished within its retention). */
export class RunAlreadyExistsError extends Error {
  override readonly name = 'RunAlreadyExistsError';
  constructor(readonly runId: string) {
    super(`A run "${runId}" exists already; choose another run id, or leave it out for a new one.`);
  }
}

/** A run id that no run in the namespace has. */
export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';
  constructor(
    readonly runId: string,
    namespace: string,
  ) {
    super(`No run "${runId}" in namespace "${namespace}". List runs with \`agentctl runs list\`.`);
  }
}

/** A thread that no run has been started on (in this resource). */
export class ThreadNotFoundError extends Error {
  override readonly name = 'ThreadNotFoundError';
  constructor(
    readonly threadId: string,
    readonly resourceId: string | undefined,
  ) {
    const where = resourceId === undefined ? 'with no resource' : `of resource "${resourceId}"`;
    super(`No thread "${threadId}" ${where}: no run was started on it. List threads with \`agentctl threads list\`.`);
  }
}

/** A run that ended in failure; `reason` is why, as the workflow recorded it. */
export class RunFailedError extends Error {
  override readonly name = 'RunFailedError';
  constructor(
    readonly runId: string,
    readonly reason: string,
    readonly failureType: string | undefined,
  ) {
    super(`Run "${runId}" failed: ${reason}`);
  }
}

/** A read of a run's stream from an offset past its end: it names where the stream ends. */
export class StreamOffsetError extends Error {
  override readonly name = 'StreamOffsetError';
  constructor(
    readonly runId: string,
    readonly offset: number,
    readonly end: number,
  ) {
    super(
      `offset ${offset} is past the end of run "${runId}"'s stream, which has ${end} chunk(s) so far: ` +
        `read from an offset of at most ${end} (the offset of the last chunk you have + 1)`,
    );
  }
}

/**
 * A read of a finished run's stream past its start: a run keeps its stream only while it is open (and
 * for its grace period), so what came after an offset can no longer be told. Its result can.
 */
export class StreamClosedError extends Error {
  override readonly name = 'StreamClosedError';
  constructor(
    readonly runId: string,
    readonly offset: number,
  ) {
    super(
      `run "${runId}" has finished and its stream is no longer kept, so nothing can be read from offset ` +
        `${offset}: read the run's result instead (GET /runs/${runId}, agentctl runs show, AgentClient.result)`,
    );
  }
}

/**
 * A chunk a tool wrote with `context.writer.write` was refused: `reason` says which rule it broke
 * (`invalid`: not a `data-<name>` chunk of JSON data, or a reserved name; `too-large`: its data is over
 * the limit; `too-many`: this execution has written all it may; `unavailable`: the call was scheduled by
 * a version of the runner that gave tools no writer). Thrown to the tool, at the call of `write`; the run
 * goes on, and a tool that does not catch it fails as with any error it throws.
 */
export class StreamWriteError extends Error {
  override readonly name = 'StreamWriteError';
  constructor(
    readonly reason: 'invalid' | 'too-large' | 'too-many' | 'unavailable',
    readonly toolName: string,
    problem: string,
  ) {
    super(`context.writer.write of tool "${toolName}" refused a chunk: ${problem}`);
  }
}

/** The principal may not start runs of this agent, or read this run (its policy, or another tenant's run). */
export class AccessDeniedError extends Error {
  override readonly name = 'AccessDeniedError';
  constructor(readonly reason: string) {
    super(`Access denied: ${reason}`);
  }
}

/**
 * The HTTP server cannot tell who is calling: the credentials are missing or invalid, or an authenticator
 * refuses them for a reason it names (a JWT without `exp`, or without exactly one tenant where the
 * deployment has tenants). Authenticators throw it; the server answers 401 with the reason.
 */
export class UnauthenticatedError extends Error {
  override readonly name = 'UnauthenticatedError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A request the edge (the HTTP server, agentctl) refuses before anything happens: what is wrong, and how to fix it. */
export class RequestRefusedError extends Error {
  override readonly name = 'RequestRefusedError';
  constructor(
    readonly type:
      'FingerprintRequired' | 'OptionNotAllowed' | 'IdentityRequired' | 'AgentRequired' | 'ToolNotRunnable',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** A tool id that no tool the workers serve has (or not on the agent named). */
export class UnknownToolError extends Error {
  override readonly name = 'UnknownToolError';
  constructor(
    readonly toolId: string,
    reason: string,
  ) {
    super(`Unknown tool "${toolId}": ${reason}. List the tools with \`agentctl tools list\`.`);
  }
}

/**
 * What only a worker can tell (the tools it serves) found no worker to tell it: none polls the task
 * queue, or none answered in time.
 */
export class NoWorkerError extends Error {
  override readonly name = 'NoWorkerError';
  constructor(
    readonly taskQueue: string,
    reason: string,
  ) {
    super(
      `No worker answered on task queue "${taskQueue}": ${reason}. The tools are known to the workers only: ` +
        'start one on this task queue (npm run worker), or name its queue (--task-queue, TEMPORAL_TASK_QUEUE).',
    );
  }
}

/**
 * Auto-resume could not read a message (the model failed, after retries): nothing was decided, the
 * call still waits; send the message again, or decide the call directly.
 */
export class AutoResumeFailedError extends Error {
  override readonly name = 'AutoResumeFailedError';
  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super(
      `Run "${runId}" still waits: auto-resume could not read the message (${reason}); ` +
        'send it again, or decide the call',
    );
  }
}

/** A decision for a run that has finished. */
export class RunNotWaitingError extends Error {
  override readonly name = 'RunNotWaitingError';
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
    super(`Run "${runId}" has finished (${status}); there is nothing to decide.`);
  }
}

/**
 * An approve, decline or resume that was refused; `type` says which rule it broke. The subclasses
 * name the common cases, e.g. {@link ApprovalMismatchError} for a fingerprint that does not match.
 */
export class DecisionRefusedError extends Error {
  override name = 'DecisionRefusedError';
  constructor(
    readonly runId: string,
    readonly type: RefusalType,
    readonly reason: string,
  ) {
    super(`Refused for run "${runId}": ${reason}`);
  }
}
export class ApprovalMismatchError extends DecisionRefusedError {
  override name = 'ApprovalMismatchError';
}
export class UnknownToolCallError extends DecisionRefusedError {
  override name = 'UnknownToolCallError';
}
export class AlreadyDecidedError extends DecisionRefusedError {
  override name = 'AlreadyDecidedError';
}
export class WrongPauseKindError extends DecisionRefusedError {
  override name = 'WrongPauseKindError';
}
export class NothingPendingError extends DecisionRefusedError {
  override name = 'NothingPendingError';
}
export class InvalidResumeDataError extends DecisionRefusedError {
  override name = 'InvalidResumeDataError';
}
/** The principal may not decide this call (the agent's access policy, or another tenant's run). */
export class NotAllowedError extends DecisionRefusedError {
  override name = 'NotAllowedError';
}
/** The principal started the run, and the call's rule does not let a starter decide it. */
export class SelfApprovalError extends DecisionRefusedError {
  override name = 'SelfApprovalError';
}
/** An approval with changed arguments that do not fit the tool's input schema. */
export class InvalidArgumentsError extends DecisionRefusedError {
  override name = 'InvalidArgumentsError';
}
/** A decision without a valid signature where the worker requires signed decisions. */
export class InvalidSignatureError extends DecisionRefusedError {
  override name = 'InvalidSignatureError';
}

const refusalClasses: Record<RefusalType, typeof DecisionRefusedError> = {
  FingerprintMismatch: ApprovalMismatchError,
  UnknownToolCall: UnknownToolCallError,
  AlreadyDecided: AlreadyDecidedError,
  WrongPauseKind: WrongPauseKindError,
  NothingPending: NothingPendingError,
  InvalidResumeData: InvalidResumeDataError,
  InvalidDecision: DecisionRefusedError,
  NotAllowed: NotAllowedError,
  SelfApproval: SelfApprovalError,
  InvalidArguments: InvalidArgumentsError,
  InvalidSignature: InvalidSignatureError,
};

/** The typed error for a refusal of the given type. */
export function decisionRefused(runId: string, type: RefusalType, reason: string): DecisionRefusedError {
  return new refusalClasses[type](runId, type, reason);
}
