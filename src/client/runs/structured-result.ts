/** A finished run's structured output as `generate` returns it: checked by the caller's schema, or a typed error. */
import { StructuredOutputError } from '../../errors.js';
import type { RunResult } from '../../schemas/run-result.js';
import {
  checkObjectWith,
  type OutputSchema,
  type StructuredObject,
  type StructuredOutput,
} from '../../structured-output.js';

/**
 * The result with its object, as the caller's schema makes it (a zod transform applies here). A run that
 * pauses has no object yet; one that finished without it throws {@link StructuredOutputError} with the
 * reason and the model's text.
 */
export async function withObject<S extends OutputSchema>(
  result: RunResult,
  output?: StructuredOutput<S>,
): Promise<RunResult<StructuredObject<S>>> {
  if (result.pendingToolCalls.length > 0) return result as RunResult<StructuredObject<S>>;
  if (result.objectError !== undefined) throw new StructuredOutputError(result.runId, result.objectError, result.text);
  if (output === undefined) return result as RunResult<StructuredObject<S>>;
  if (result.object === undefined) {
    // The run was asked for no output schema: a message on its thread resumed a run started without one.
    const reason = 'the run has no structured output: it was not asked for one (e.g. a run its thread resumed)';
    throw new StructuredOutputError(result.runId, reason, result.text);
  }
  const checked = await checkObjectWith(output.schema, result.object);
  if (!checked.ok) {
    const reason = `the answer does not match the schema: ${checked.pretty.replace(/\n\s*/g, ' ')}`;
    throw new StructuredOutputError(result.runId, reason, result.text);
  }
  return { ...result, object: checked.value };
}
