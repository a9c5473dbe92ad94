/**
 * A tool call's data as the run can carry it: JSON within the bound of a run's payloads (larger where
 * the worker has a payload store), else a tool error the model sees.
 */
import type { Agent } from '../../../agent.js';
import { errorMessage } from '../../../errors.js';
import type { ExecuteToolInput, ExecuteToolOutput } from '../../../protocol/activities.js';
import { kib, MAX_DATA_BYTES, measureJson } from '../../../schemas/limits.js';
import type { RequestContext } from '../../../tools/request-context.js';
import { modelOutputOf, toJson } from './transform-payload.js';

/** A tool's output as the run keeps it: JSON within the bound, with what the model is shown of it. */
export async function resultOf(
  agent: Agent,
  input: ExecuteToolInput,
  requestContext: RequestContext,
  output: unknown,
  maxBytes = MAX_DATA_BYTES,
): Promise<ExecuteToolOutput> {
  const json = toJson(output);
  const tooLarge = oversize(input.toolName, 'output', json, maxBytes);
  if (tooLarge) return { type: 'error', error: tooLarge };
  let modelOutput;
  try {
    const context = {
      runId: input.runId,
      agentId: input.agentId,
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      requestContext,
    };
    modelOutput = await modelOutputOf(agent, context, json);
  } catch (err) {
    return { type: 'error', error: `toModelOutput of tool "${input.toolName}" failed: ${errorMessage(err)}` };
  }
  return (
    oversizeResult(input.toolName, 'what toModelOutput shows the model', modelOutput, maxBytes) ?? {
      type: 'result',
      output: json,
      modelOutput,
      shaped: true,
    }
  );
}

/**
 * Why a tool's data is refused, when it is not JSON that can be checked or is over `maxBytes` (default
 * {@link MAX_DATA_BYTES}): the run carries it in payloads that Temporal limits (more with a payload
 * store), so it becomes a tool error the model sees.
 */
function oversize(toolName: string, what: string, value: unknown, maxBytes = MAX_DATA_BYTES): string | undefined {
  const measured = measureJson(value);
  if (!measured.ok) return `Tool "${toolName}" returned ${what} that is not JSON data: ${measured.problem}.`;
  if (measured.bytes <= maxBytes) return undefined;
  return (
    `Tool "${toolName}" returned ${what} of ${kib(measured.bytes)} of JSON; at most ${kib(maxBytes)} ` +
    'fits in a run. Return less, or keep large data outside the run and return a reference to it.'
  );
}

export function oversizeResult(
  toolName: string,
  what: string,
  value: unknown,
  maxBytes = MAX_DATA_BYTES,
): ExecuteToolOutput | undefined {
  const error = oversize(toolName, what, value, maxBytes);
  return error ? { type: 'error', error } : undefined;
}
