/**
 * What is refused before anything happens: input that does not fit, a caller who may not, a tool that
 * is not there or no worker to ask. Sandbox-safe: no Node APIs.
 */

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
