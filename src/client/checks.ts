/**
 * The checks a caller's input passes at the client, before anything is sent: the same schemas and
 * limits the workflow applies, so that input the run would refuse is refused here, at once and in
 * one line, and never reported as sent.
 */
import type { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { oneLine } from '../schemas/json.js';
import { isTooLarge, measureJson, clip, RunIdSchema, RunRefSchema } from '../schemas/limits.js';

/** The value, checked against the schema; else an {@link InvalidInputError} naming the field and the problem. */
export function checkInput<T>(field: string, schema: z.ZodType<T>, value: unknown): T {
  // Nesting too deep to walk is refused before a schema recurses into it.
  const measured = measureJson(value === undefined ? null : value);
  if (!measured.ok) throw new InvalidInputError(field, `not JSON data that can be checked: ${measured.problem}`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const tooLarge = parsed.error.issues.some(isTooLarge);
  const problem = oneLine(parsed.error.issues);
  throw new InvalidInputError(field, problem.length > 600 ? `${problem.slice(0, 599)}…` : problem, tooLarge);
}

/** A run id for a new run. */
export function newRunId(runId: string): string {
  return checkInput(`run id "${clip(String(runId), 60)}"`, RunIdSchema, runId);
}

/** A run id a caller refers to. */
export function runRef(runId: string): string {
  return checkInput(`run id "${clip(String(runId), 60)}"`, RunRefSchema, runId);
}
