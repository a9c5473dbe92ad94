/** Runs an agent's hook around a tool call: a local activity, since hooks are code on the worker. */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { errorMessage } from '../../../errors.js';
import type { AgentRegistry } from '../../registry.js';
import { truncate } from '../../../schemas/json.js';
import { toJson } from './transform-payload.js';
import { RequestContext } from '../../../tools/request-context.js';
import type { ToolCallHookInput, ToolCallHookOutput } from '../../../protocol/activities.js';

const BeforeResultSchema = z.union([
  z.undefined(),
  z.object({ proceed: z.literal(true) }).loose(),
  z.object({ proceed: z.literal(false), output: z.unknown() }).loose(),
]);

export async function toolCallHook(registry: AgentRegistry, input: ToolCallHookInput): Promise<ToolCallHookOutput> {
  const hooks = registry.get(input.agentId).hooks ?? {};
  const { hook, end, requestContext, ...ids } = input;
  const context = { ...ids, input: ids.args, requestContext: new RequestContext(requestContext) };
  if (hook === 'beforeToolCall') {
    let answer: unknown;
    try {
      answer = await hooks.beforeToolCall?.(context);
    } catch (err) {
      return { failed: errorMessage(err) };
    }
    const parsed = BeforeResultSchema.safeParse(answer);
    if (!parsed.success) {
      return {
        failed:
          `it returned ${truncate(JSON.stringify(answer) ?? String(answer), 200)}; ` +
          'return nothing, { proceed: true }, or { proceed: false, output }',
      };
    }
    const result = parsed.data;
    return result?.proceed === false ? { proceed: false, output: toJson(result.output) } : { proceed: true };
  }
  try {
    await hooks.afterToolCall?.({ ...context, ...(end ?? { output: null }) });
  } catch (err) {
    Context.current().log.warn(`afterToolCall of agent "${input.agentId}" threw; ignored`, {
      error: errorMessage(err),
    });
  }
  return { proceed: true };
}
