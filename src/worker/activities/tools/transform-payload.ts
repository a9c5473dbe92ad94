/**
 * Transforms and output shaping on the worker: local activities for the workflow, and the same
 * functions in-process for the model and tool activities.
 */
import { Context } from '@temporalio/activity';
import { toolModelMessageSchema } from 'ai';
import type { Agent } from '../../../agent.js';
import { errorMessage } from '../../../errors.js';
import type { AgentRegistry } from '../../registry.js';
import { truncate, type JsonValue } from '../../../schemas/json.js';
import type { ToolModelOutput } from '../../../schemas/tool-output.js';
import type { AnyTool } from '../../../tools/create-tool.js';
import { RequestContext } from '../../../tools/request-context.js';
import type { Message } from '../../../schemas/message.js';
import {
  applyTransforms,
  transformInputDelta,
  type ToolTransforms,
  type TransformContext,
} from '../../../tools/transforms.js';
import type {
  CallModelInput,
  ShapeOutputInput,
  ShapeOutputOutput,
  TransformPayloadInput,
} from '../../../protocol/activities.js';

/** The tool of an agent by its name on the agent, when it is one of the agent's own tools with code on the worker. */
export function ownTool(agent: Agent, toolName: string): AnyTool | undefined {
  const tool = Object.hasOwn(agent.tools, toolName) ? agent.tools[toolName] : undefined;
  return tool?.kind === 'tool' ? tool : undefined;
}

/** The transforms that apply to a call, in order: the tool's own, then the agent's. */
export function transformsOf(agent: Agent, toolName: string): Array<ToolTransforms | undefined> {
  return [ownTool(agent, toolName)?.transform, agent.transform];
}

/** Applies the transforms of one stage; a transform that throws hides the value, and the worker logs why. */
export async function transformed(agent: Agent, context: TransformContext, value: JsonValue): Promise<JsonValue> {
  const result = await applyTransforms(transformsOf(agent, context.toolName), context, value);
  if ('hidden' in result) {
    Context.current().log.warn(
      `the ${context.target} transform of stage "${context.stage}" of tool "${context.toolName}" threw; ` +
        'the payload is hidden',
      { toolCallId: context.toolCallId, error: result.hidden },
    );
  }
  return result.value;
}

/** The local activity: one stage of one call, transformed. */
export async function transformPayload(
  registry: AgentRegistry,
  { value, requestContext, ...ids }: TransformPayloadInput,
): Promise<{ value: JsonValue }> {
  const context = { ...ids, requestContext: new RequestContext(requestContext) };
  return { value: await transformed(registry.get(context.agentId), context, value) };
}

/**
 * What the model is shown of an output: the transcript's form of it, shaped by the tool's
 * `toModelOutput` when it has one; text as text, anything else as JSON otherwise.
 */
export async function modelOutputOf(
  agent: Agent,
  context: Omit<TransformContext, 'target' | 'stage'>,
  output: JsonValue,
): Promise<ToolModelOutput> {
  const kept = await transformed(agent, { ...context, target: 'transcript', stage: 'output' }, output);
  const shape = ownTool(agent, context.toolName)?.toModelOutput as ((output: unknown) => unknown) | undefined;
  if (shape) return checkedModelOutput(await shape(kept), context);
  return typeof kept === 'string' ? { type: 'text', value: kept } : { type: 'json', value: kept };
}

/** The local activity: an output that did not come from the tool's `execute` (a client's, a skip's), shaped. */
export async function shapeOutput(registry: AgentRegistry, input: ShapeOutputInput): Promise<ShapeOutputOutput> {
  const { output, requestContext, ...ids } = input;
  const context = { ...ids, requestContext: new RequestContext(requestContext) };
  try {
    return { modelOutput: await modelOutputOf(registry.get(context.agentId), context, output) };
  } catch (err) {
    return { error: `toModelOutput of tool "${context.toolName}" failed: ${errorMessage(err)}` };
  }
}

/**
 * What `toModelOutput` returned, if the model can be shown it: any of the AI SDK's tool result outputs,
 * multimodal `content` included, checked as the AI SDK checks a tool message.
 */
function checkedModelOutput(shaped: unknown, context: { toolCallId: string; toolName: string }): ToolModelOutput {
  const output = toJson(shaped);
  const message = {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: context.toolCallId, toolName: context.toolName, output }],
  };
  const parsed = toolModelMessageSchema.safeParse(message);
  if (!parsed.success) {
    throw new Error(
      `it returned ${truncate(JSON.stringify(output), 200)}, which is no tool result output of the AI SDK`,
    );
  }
  return output as ToolModelOutput;
}

/**
 * The assistant message as the transcript keeps it: the input of each tool call as the transcript's
 * input transform makes it. The calls themselves run with the model's input.
 */
export async function transcribedCalls(agent: Agent, input: CallModelInput, message: Message): Promise<Message> {
  const { runId, agentId } = input;
  const requestContext = new RequestContext(input.requestContext);
  if (message.role !== 'assistant' || typeof message.content === 'string') return message;
  const content = await Promise.all(
    message.content.map(async (part) => {
      if (part.type !== 'tool-call') return part;
      const call = part as { toolCallId: string; toolName: string; input: unknown };
      const context = { runId, agentId, toolCallId: call.toolCallId, toolName: call.toolName, requestContext };
      const where = { ...context, target: 'transcript' as const, stage: 'input' as const };
      return { ...part, input: await transformed(agent, where, toJson(call.input)) };
    }),
  );
  return { ...message, content } as Message;
}

/**
 * Which pieces of streamed tool input the stream shows: each through the input-delta transforms, none
 * for a call whose displayed input is transformed without one.
 */
export function inputDeltaShown(agent: Agent, input: CallModelInput) {
  const names = new Map<string, string>();
  const requestContext = new RequestContext(input.requestContext);
  return {
    started: (id: string, toolName: string) => names.set(id, toolName),
    shown: (id: string, delta: string): string | null => {
      const toolName = names.get(id) ?? '';
      const context = { runId: input.runId, agentId: input.agentId, toolCallId: id, toolName, requestContext };
      return transformInputDelta(
        transformsOf(agent, toolName),
        { ...context, target: 'display', stage: 'inputDelta' },
        delta,
      );
    },
  };
}

/** Activity results travel as JSON; this makes that explicit (undefined dropped, dates as strings). */
export function toJson(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}
