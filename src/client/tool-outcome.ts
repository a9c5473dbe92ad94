/**
 * How a tool run's call ended, read from its result: plain data, apart from tools.ts (which checks
 * input with zod), so that the client's entry exports it without loading zod.
 */
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';

/** How a tool run's call ended, from the run's result; undefined while it waits. */
export function toolRunOutcome(
  result: RunResult,
): { type: 'result'; output: JsonValue } | { type: 'error'; error: string; declined: boolean } | undefined {
  if (result.pendingToolCalls.length > 0) return undefined;
  const outcome = result.steps[0]?.toolResults[0];
  if (!outcome) return undefined;
  if (!outcome.isError) return { type: 'result', output: outcome.output };
  return { type: 'error', error: outcome.error, declined: outcome.declined === true };
}
