import { Context } from '@temporalio/activity';
import { streamText } from 'ai';
import type { ChunkPublisher } from '../stream/chunk-publisher.js';
import type { ProgressSender } from '../stream/progress-sender.js';
import type { inputDeltaShown } from '../tools/transform-payload.js';

/** What one attempt of a step has streamed so far, across the models that tried it. */
export interface StepStreamState {
  /** Whether any delta went out: a step that streamed something is not answered by another model. */
  streamed: boolean;
  /** Whether the attempt's `model-retry` marker went out (once, whichever model tries first). */
  retryMarked: boolean;
  /** Told at the model's first delta of any kind (reasoning too): it is answering, not hanging. */
  heard?: () => void;
}

/**
 * Streams one model step, publishing its deltas to the run's stream, its text to the run that streams
 * a sub-agent; they are all there when it returns.
 */
export async function streamed(
  request: Parameters<typeof streamText>[0],
  { publisher, progress }: { publisher?: ChunkPublisher; progress?: ProgressSender },
  at: { stepNumber: number; attempt: number },
  inputDelta: ReturnType<typeof inputDeltaShown>,
  state: StepStreamState,
): Promise<ReturnType<typeof streamText>> {
  const activity = Context.current();
  if (at.attempt > 1 && !state.retryMarked) {
    state.retryMarked = true;
    const error = `attempt ${at.attempt - 1} of this model call failed`;
    publisher?.publish({ type: 'model-retry', ...at, error }, { now: true });
    progress?.event({ type: 'model-retry', ...at }, { now: true });
  }
  // The error reaches the loop below as an `error` part and is classified there; the SDK's default
  // handler would also print it, provider response body and all, to the worker's console.
  const result = streamText({ ...request, onError: () => undefined });
  const flush = () => Promise.all([publisher?.flush(), progress?.flush()]);
  try {
    for await (const part of result.stream) {
      if (part.type === 'text-delta' || part.type === 'tool-input-start') state.streamed = true;
      if (part.type.endsWith('-delta') || part.type === 'tool-input-start') state.heard?.();
      if (part.type === 'text-delta') {
        publisher?.publish({ type: 'text-delta', ...at, id: part.id, delta: part.text });
        progress?.text(at.stepNumber, part.text);
      } else if (part.type === 'tool-input-start') {
        inputDelta.started(part.id, part.toolName);
        // A provider's own call (a web search) starts: the UI shows it running; its result comes with the step.
        const provider = part.providerExecuted ? { providerExecuted: true as const } : {};
        publisher?.publish({
          type: 'tool-input-start',
          ...at,
          toolCallId: part.id,
          toolName: part.toolName,
          ...provider,
        });
      } else if (part.type === 'tool-input-delta') {
        const delta = inputDelta.shown(part.id, part.delta);
        if (delta !== null) publisher?.publish({ type: 'tool-input-delta', ...at, toolCallId: part.id, delta });
      } else if (part.type === 'tool-input-end')
        publisher?.publish({ type: 'tool-input-end', ...at, toolCallId: part.id });
      else if (part.type === 'error') throw part.error;
      activity.heartbeat();
    }
  } catch (err) {
    // What the model wrote before it failed reaches the run too: a UI shows it until `model-retry`.
    await flush().catch(() => undefined);
    throw err;
  }
  // Every delta is in the stream before the step's result is: the workflow publishes after it.
  await flush();
  return result;
}
