/**
 * A run whose model step its provider will not answer does not fail: it waits, as a call of its own
 * (`@model`), for an authorised principal's resolution: `retry` once the key is fixed or the provider
 * is back, or `fail`. Everything the run holds stays as it was meanwhile.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { toolCallFingerprint } from '../../approvals/fingerprint.js';
import { decidedBy } from '../../approvals/decision-messages.js';
import type { CallModelOutput, ModelToolCall } from '../../protocol/activities.js';
import { clip } from '../../schemas/limits.js';
import { MODEL_STEP_TOOL, modelStepCallId } from '../../schemas/model-step.js';
import { takes } from '../patches.js';
import { runCancelled } from './delegation.js';
import type { RunState } from './run-state.js';

/** The failure types of a provider's failure (src/worker/activities/model/provider-failure.ts). */
const PROVIDER_FAILURES = new Set(['ModelCallRejected', 'ModelProviderUnavailable']);

/** A provider's failure as the run keeps it: what anyone who reads the run sees, and what operators see. */
export interface ProviderFailureSeen {
  /** The provider, the status and the kind, without the provider's own words. */
  shown: string;
  /** With the provider's reason: for the run's failure, which only operators read in full. */
  full: string;
}

/**
 * What a failed model activity says of its provider, when the provider is why it failed: a refusal,
 * or failures for the whole window. Anything else (an unknown model, a bug) is not for a person to retry.
 */
export function providerFailureOf(err: unknown): ProviderFailureSeen | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const windowEnded = err.cause instanceof TimeoutFailure;
  const over = windowEnded ? ', for its whole retry window' : '';
  for (let cause: unknown = err.cause; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && PROVIDER_FAILURES.has(cause.type ?? '')) {
      const summary = (cause.details?.[0] as { summary?: unknown } | undefined)?.summary;
      const shown = typeof summary === 'string' ? summary : 'the model provider failed';
      return { shown: `${shown}${over}`, full: cause.message };
    }
  }
  // The window ended with no attempt's failure recorded (each was cut off: a worker down, a provider hung).
  if (windowEnded) {
    const full = `the model step was retried for its whole window: ${err.cause.message}`;
    return { shown: full, full };
  }
  return undefined;
}

/** The model's answer to step `stepNumber`, waiting on a person each time its provider will not give one. */
export async function modelAnswer(
  state: RunState,
  stepNumber: number,
  model: string | undefined,
  call: () => Promise<CallModelOutput>,
): Promise<CallModelOutput> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const failure = runCancelled() ? undefined : providerFailureOf(err);
      // Runs from before this release failed here; their histories replay that way.
      if (failure === undefined || !takes('modelStepWaits')) throw err;
      const toolCallId = modelStepCallId(stepNumber);
      const args = { model: model ?? null, stepNumber };
      const waiting: ModelToolCall = {
        toolCallId,
        toolName: MODEL_STEP_TOOL,
        args,
        fingerprint: toolCallFingerprint({ runId: state.runId, toolCallId, toolName: MODEL_STEP_TOOL, args }),
      };
      const uncertainty = clip(failure.shown, 500);
      // Readers poll a live step fast; a step that waits on a person is not live until it is retried.
      const live = state.stream.log.live;
      state.stream.log.live = false;
      const { decision, record } = await state.waits.forDecision(waiting, {
        kind: 'uncertain',
        uncertainty,
        askedAt: new Date().toISOString(),
      });
      state.stream.log.live = live;
      if (decision.resolution === 'retry') continue;
      const why = record.reason ? `: ${record.reason}` : '';
      throw ApplicationFailure.nonRetryable(
        `the model step was marked failed by ${decidedBy(record)}${why} (its provider: ${clip(failure.full, 500)})`,
        'ModelStepFailed',
      );
    }
  }
}
