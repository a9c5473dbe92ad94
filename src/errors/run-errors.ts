/**
 * What a caller meets following a run: one that exists already or not at all, one that failed, a
 * stream read where it cannot be. Sandbox-safe: no Node APIs.
 */

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
 * A run asked for structured output (`structuredOutput`) that finished without the object: the model
 * answered with text that is not JSON or does not fit the schema, or the run ran out of steps first.
 * `text` is what the model answered; the run itself finished, and its result (`result`) is whole.
 */
export class StructuredOutputError extends Error {
  override readonly name = 'StructuredOutputError';
  constructor(
    readonly runId: string,
    readonly reason: string,
    readonly text: string,
  ) {
    super(`Run "${runId}" finished without the structured output it was asked for: ${reason}`);
  }
}

/**
 * A message sent to a run while it works (`AgentClient.sendMessage`) that the run did not take: it waits
 * on a call (`RunNotWorking`: decide the call first), has ended or takes its last step (`RunNotWorking`,
 * `LastStep`: start a new run), already has 20 messages waiting (`QueueFull`), has no room for it in its
 * conversation (`ConversationFull`), the sender may not steer it (`NotAllowed`), or its workflow code is from
 * a release before messages (`NotSupported`).
 */
export class RunMessageRefusedError extends Error {
  override readonly name = 'RunMessageRefusedError';
  constructor(
    readonly runId: string,
    readonly type: 'RunNotWorking' | 'LastStep' | 'QueueFull' | 'ConversationFull' | 'NotAllowed' | 'NotSupported',
    readonly reason: string,
  ) {
    super(`Run "${runId}" did not take the message (${type}): ${reason}`);
  }
}

/**
 * A run's receipts could not be read: a worker of its agent answers the query that reads them (a
 * finished execution is replayed to answer), and none did, or the run's worker is from a release before
 * receipts.
 */
export class ReceiptsUnavailableError extends Error {
  override readonly name = 'ReceiptsUnavailableError';
  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super(
      `The receipts of run "${runId}" could not be read: ${reason}. A worker of the run's agent answers the ` +
        'query that reads them: start one on its task queue, then ask again.',
    );
  }
}
