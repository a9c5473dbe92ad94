/**
 * A run whose model step is being retried because its provider fails: read from the workflow's pending
 * activity (Temporal keeps the attempt, the last failure and the next attempt's time), so an operator
 * sees it with no query to the run and no worker up.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

/** The model step of a run that its provider keeps failing, while Temporal retries it. */
export interface ModelStepRetry {
  /** The attempt running or next to run (2 after one failure). */
  attempt: number;
  /** The last attempt's failure, as the worker wrote it: the provider, the HTTP status and kind, its reason. */
  lastFailure: string | undefined;
  /** When the next attempt starts, while it waits (a provider's `Retry-After` sets it). */
  nextAttemptAt: Date | undefined;
  /** When the step's retry window ends (the agent's or worker's `modelRetry.window`). */
  windowEndsAt: Date | undefined;
}

type Description = proto.temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse;

function dateOf(ts: proto.google.protobuf.ITimestamp | null | undefined): Date | undefined {
  if (!ts?.seconds) return undefined;
  return new Date(Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6));
}

/** The retried model step of a described run, when its model activity has failed at least once. */
export async function modelStepRetry(temporal: Client, raw: Description): Promise<ModelStepRetry | undefined> {
  const pending = raw.pendingActivities?.find((a) => a.activityType?.name === 'callModel' && (a.attempt ?? 1) > 1);
  if (!pending) return undefined;
  return {
    attempt: pending.attempt ?? 1,
    lastFailure: await failureMessage(temporal, pending.lastFailure),
    nextAttemptAt: dateOf(pending.nextAttemptScheduleTime),
    windowEndsAt: dateOf(pending.expirationTime),
  };
}

/** The failure's message; a worker with a codec encrypts it, and this client's converter reads it again. */
async function failureMessage(
  temporal: Client,
  failure: proto.temporal.api.failure.v1.IFailure | null | undefined,
): Promise<string | undefined> {
  if (!failure) return undefined;
  if (!failure.encodedAttributes) return failure.message ?? undefined;
  // Only an encoded failure needs the SDK's decoding helpers, so only it loads them.
  const { decodeOptionalFailureToOptionalError } =
    await import('@temporalio/common/lib/internal-non-workflow/index.js');
  const error = await decodeOptionalFailureToOptionalError(temporal.options.loadedDataConverter, failure).catch(
    () => undefined,
  );
  return error?.message ?? failure.message ?? undefined;
}

/** How many runs {@link retryingRuns} describes at once. */
const DESCRIBE_AT_ONCE = 8;

/**
 * The runs of `listed` whose model step is being retried, each with its `modelRetry`, in their order:
 * each is described (a few at a time), since visibility does not show an activity's attempts. A run
 * that ended meanwhile is left out. A run that cannot be described fails the list, unless `skip` is
 * given: then it is told the run and the error, and the run is left out.
 */
export async function* retryingRuns<R extends { runId: string }>(
  temporal: Client,
  listed: AsyncIterable<R> | Iterable<R>,
  skip?: (run: R, err: unknown) => void,
): AsyncGenerator<R & { modelRetry: ModelStepRetry }> {
  const retryOf = async (run: R) => {
    try {
      const described = await temporal.workflow
        .getHandle(run.runId)
        .describe()
        .catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined; // gone past its retention meanwhile
          throw err;
        });
      const retry = described && (await modelStepRetry(temporal, described.raw));
      return retry ? { ...run, modelRetry: retry } : undefined;
    } catch (err) {
      if (!skip) throw err;
      skip(run, err);
      return undefined;
    }
  };
  let batch: R[] = [];
  const flush = async function* () {
    for (const found of await Promise.all(batch.map(retryOf))) if (found) yield found;
    batch = [];
  };
  for await (const run of listed) {
    batch.push(run);
    if (batch.length >= DESCRIBE_AT_ONCE) yield* flush();
  }
  yield* flush();
}
