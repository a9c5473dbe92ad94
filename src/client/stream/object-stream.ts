/**
 * A run's structured output as its stream shows it: partial objects while the model writes its JSON, and
 * the finished run's object. Loaded on the first read, with the AI SDK's partial JSON parser.
 */
import { RunFailedError, StructuredOutputError } from '../../errors.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RunStreamChunk } from '../../schemas/stream-chunks.js';
import { checkObjectWith, type StructuredOutput } from '../../structured-output.js';

/**
 * The partial objects of the model's JSON answer, each one deeper than the last, as the AI SDK's
 * `partialOutputStream` parses them. Each step, and each retried attempt of one, starts over.
 */
export async function* partialObjects(chunks: AsyncIterable<RunStreamChunk>): AsyncGenerator<JsonValue> {
  const { parsePartialJson } = await import('ai');
  let text = '';
  let at = '';
  let last: string | undefined;
  for await (const chunk of chunks) {
    if (chunk.type === 'start-step') text = '';
    if (chunk.type !== 'text-delta') continue;
    const attempt = `${chunk.stepNumber}/${chunk.attempt}`;
    if (attempt !== at) [text, at, last] = ['', attempt, undefined];
    text += chunk.delta;
    const { value, state } = await parsePartialJson(text);
    if (state !== 'successful-parse' && state !== 'repaired-parse') continue;
    if (typeof value !== 'object' || value === null) continue;
    const seen = JSON.stringify(value);
    if (seen === last) continue;
    last = seen;
    yield value as JsonValue;
  }
}

/**
 * The object the segment's `finish` chunk carries: undefined when the run paused (or has no output
 * schema); {@link StructuredOutputError} when it finished without one, or the caller's schema refuses it.
 */
export async function finishedObject(
  runId: string,
  chunks: AsyncIterable<RunStreamChunk>,
  output: StructuredOutput | undefined,
): Promise<unknown> {
  for await (const chunk of chunks) {
    if (chunk.type === 'error') throw new RunFailedError(runId, chunk.error, chunk.failureType);
    if (chunk.type !== 'finish') continue;
    const { text } = chunk;
    if (chunk.objectError !== undefined) throw new StructuredOutputError(runId, chunk.objectError, text);
    if (chunk.object === undefined || output === undefined) return chunk.object;
    const checked = await checkObjectWith(output.schema, chunk.object);
    if (checked.ok) return checked.value;
    const reason = `the answer does not match the schema: ${checked.pretty.replace(/\n\s*/g, ' ')}`;
    throw new StructuredOutputError(runId, reason, text);
  }
  return undefined;
}
