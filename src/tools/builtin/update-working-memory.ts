/**
 * The built-in `updateWorkingMemory` tool (Mastra's name), which an agent with
 * `memory: { workingMemory: { enabled: true } }` offers to the model of its runs on a thread. Each call
 * replaces the thread's working memory through an update to the thread's workflow.
 */
import { Context } from '@temporalio/activity';
import type { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { errorMessage } from '../../errors.js';
import { threadWorkflowId } from '../../schemas/thread.js';
import {
  DEFAULT_WORKING_MEMORY_CHARS,
  WORKING_MEMORY_TOOL,
  workingMemoryProblem,
  type WorkingMemoryOptions,
} from '../../schemas/working-memory.js';
import { updateWorkingMemoryUpdate } from '../../protocol/thread-messages.js';
import { createTool, type AnyTool } from '../create-tool.js';
import { writerArgs } from './turn-writers.js';

export const UpdateWorkingMemoryInputSchema = z.object({
  memory: z.string().describe('The whole new working memory (Markdown). It replaces the old one.'),
});

/** What the model gets: the memory as now stored, or why nothing was stored (the memory is unchanged). */
export const UpdateWorkingMemoryOutputSchema = z.union([
  z.object({ success: z.literal(true), workingMemory: z.string().describe('The working memory as now stored') }),
  z.object({ isError: z.literal(true), content: z.string().describe('Why the memory was not changed') }),
]);
export type UpdateWorkingMemoryOutput = z.output<typeof UpdateWorkingMemoryOutputSchema>;

const made = new WeakSet<object>();

/** Whether `tool` is one {@link workingMemoryTool} made (an agent defined from another carries it along). */
export function isBuiltinWorkingMemoryTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && made.has(tool);
}

function refusal(reason: string): UpdateWorkingMemoryOutput {
  return { isError: true, content: reason };
}

/** The reason a rejected update gives (the thread's validator's message), in one line. */
function rejection(err: WorkflowUpdateFailedError): string {
  return errorMessage(err.cause ?? err).replace(/\s+/g, ' ');
}

/**
 * The `updateWorkingMemory` tool for an agent's working memory options. A memory over the agent's
 * bound is refused here (the model reads why); the thread checks again, whoever asks. A retried call
 * sends the same update id, so the thread applies it once.
 */
export function workingMemoryTool(options: WorkingMemoryOptions): AnyTool {
  const maxChars = options.maxChars ?? DEFAULT_WORKING_MEMORY_CHARS;
  const tool = createTool({
    id: WORKING_MEMORY_TOOL,
    description:
      "Replaces this conversation's working memory, which you are shown on every turn of the thread, with " +
      `\`memory\` (the whole text, at most ${maxChars} characters). ` +
      'Keep what still matters: what you leave out is forgotten.',
    inputSchema: UpdateWorkingMemoryInputSchema,
    outputSchema: UpdateWorkingMemoryOutputSchema,
    // The update is applied once per call (its id), and replacing the memory again changes nothing.
    idempotent: true,
    execute: async ({ memory }, context) => {
      const { runId, agentId, toolCallId, threadId, resourceId } = context;
      if (!threadId) return refusal('this run is not on a thread, so it has no working memory to update');
      const problem = workingMemoryProblem(memory, maxChars);
      if (problem) return refusal(problem);
      const handle = Context.current().client.workflow.getHandle(threadWorkflowId(resourceId, threadId));
      try {
        const stored = await handle.executeUpdate(updateWorkingMemoryUpdate, {
          args: [{ runId, agentId, toolCallId, memory, maxChars }, ...writerArgs(context)],
          updateId: `working-memory:${runId}:${toolCallId}`,
        });
        return { success: true as const, workingMemory: stored.content };
      } catch (err) {
        // Loaded here, in the worker that runs the tool: defining an agent must not load the client.
        const { WorkflowUpdateFailedError } = await import('@temporalio/client');
        if (err instanceof WorkflowUpdateFailedError) return refusal(rejection(err));
        if (err instanceof WorkflowNotFoundError) {
          return refusal(`thread "${threadId}" is gone (its workflow was ended by hand); nothing was stored`);
        }
        throw err;
      }
    },
  });
  made.add(tool);
  return tool;
}
