/**
 * The tools a model step offers the model, as AI SDK tools without `execute`: the agent's own, checked
 * against their own schema and with their lifecycle hooks; sub-agent and workflow tools, checked against
 * their JSON schema; and the provider's tools (a web search) for the run's model.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { jsonSchema, tool, type JSONSchema7, type LanguageModel, type Tool, type ToolSet } from 'ai';
import type { Agent } from '../../../agent.js';
import { errorMessage, WebSearchUnavailableError } from '../../../errors.js';
import type { CallModelInput, ModelToolDefinition } from '../../../protocol/activities.js';
import { z } from 'zod';
import { zodFromJsonSchema } from '../../../schemas/json.js';
import { CHECK_BUDGET_MS, checkBudget, inTime, type CheckBudget } from '../checked-in-time.js';
import type { AnyTool } from '../../../tools/create-tool.js';
import type { ToolHookContext } from '../../../tools/tool-context.js';
import { checkWith } from '../../../tools/schema.js';
import { nativeProviderTool } from '../../models/provider-tools.js';
import { ownTool } from '../tools/transform-payload.js';
import type { ResolvedCall } from './call-conversation.js';

/** The step's tools by the names the model calls them. */
export async function modelTools(agent: Agent, model: LanguageModel, input: ResolvedCall): Promise<ToolSet> {
  const tools: ToolSet = {};
  const budget = checkBudget();
  for (const def of input.tools) {
    if (def.provider) {
      tools[def.name] = await providerTool(model, def.name, def.provider, input.model);
      continue;
    }
    const registered = ownTool(agent, def.name);
    tools[def.name] = tool({
      description: def.description,
      inputSchema: jsonSchema(def.inputSchema as JSONSchema7, {
        validate: async (value) => {
          // Sub-agent, workflow, client and MCP tools have no schema of their own here: check the JSON schema.
          const problem = registered
            ? await ownSchemaProblem(registered, value)
            : jsonSchemaProblem(def, value, budget);
          return problem === undefined ? { success: true, value } : { success: false, error: new Error(problem) };
        },
      }),
      ...(registered ? lifecycleHooks(registered, def.name, input) : {}),
    });
  }
  return tools;
}

async function ownSchemaProblem(registered: AnyTool, value: unknown): Promise<string | undefined> {
  const checked = await checkWith(registered.inputSchema, value);
  return checked.ok ? undefined : checked.pretty;
}

/**
 * Why the arguments do not fit a JSON schema that may come from outside the worker (a run's client
 * tools, an MCP server), checked within the check's budget: its patterns run against the model's output.
 */
function jsonSchemaProblem(def: ModelToolDefinition, value: unknown, budget: CheckBudget): string | undefined {
  const checked = inTime(() => {
    const parsed = zodFromJsonSchema(def.inputSchema).safeParse(value);
    return parsed.success ? undefined : z.prettifyError(parsed.error);
  }, budget);
  if ('value' in checked) return checked.value;
  return (
    `The arguments could not be checked against the input schema of tool "${def.name}" within ` +
    `${CHECK_BUDGET_MS / 1000} s, the time a step has for such checks (a pattern that backtracks on them); ` +
    'the call did not run.'
  );
}

/** The provider's tool for the run's model; a model without one fails the run before anything is sent. */
async function providerTool(
  model: LanguageModel,
  toolName: string,
  spec: NonNullable<ModelToolDefinition['provider']>,
  modelName: string | undefined,
): Promise<Tool> {
  try {
    return await nativeProviderTool(model, spec, { toolName, modelName });
  } catch (err) {
    // No retry gives the model a web search: the run fails with the reason at once.
    if (err instanceof WebSearchUnavailableError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}

/** The tool's lifecycle hooks, as AI SDK tool hooks; they observe, so their errors are logged, not thrown. */
function lifecycleHooks(registered: AnyTool, toolName: string, input: CallModelInput) {
  const base = (toolCallId: string): ToolHookContext => ({
    runId: input.runId,
    agentId: input.agentId,
    toolCallId,
    toolName,
  });
  const guard = async (hook: string, run: () => void | Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (err) {
      Context.current().log.warn(`tool hook ${hook} of "${toolName}" threw; ignored`, {
        error: errorMessage(err),
      });
    }
  };
  const { onInputStart, onInputDelta } = registered;
  // Typed by the tool's own schema; the AI SDK hands it the input it checked against that schema.
  const onInputAvailable = registered.onInputAvailable as
    ((context: ToolHookContext & { input: unknown }) => void | Promise<void>) | undefined;
  return {
    ...(onInputStart
      ? { onInputStart: (o: { toolCallId: string }) => guard('onInputStart', () => onInputStart(base(o.toolCallId))) }
      : {}),
    ...(onInputDelta
      ? {
          onInputDelta: (o: { toolCallId: string; inputTextDelta: string }) =>
            guard('onInputDelta', () => onInputDelta({ ...base(o.toolCallId), inputTextDelta: o.inputTextDelta })),
        }
      : {}),
    ...(onInputAvailable
      ? {
          onInputAvailable: (o: { toolCallId: string; input: unknown }) =>
            guard('onInputAvailable', () => onInputAvailable({ ...base(o.toolCallId), input: o.input })),
        }
      : {}),
  };
}
