/**
 * Working memory: a block of text (Markdown, as in Mastra) that an agent keeps about a thread and
 * replaces through its `updateWorkingMemory` tool. It lives in the thread's workflow, next to the
 * thread's turns, and is shown to the model of every run on the thread. Sandbox-safe: bounds and schemas.
 */
import { z } from 'zod';
import { IdSchema } from './limits.js';

/** The name of the built-in tool that replaces the working memory (Mastra's name). */
export const WORKING_MEMORY_TOOL = 'updateWorkingMemory';
/** Characters of working memory an agent keeps unless it says (`workingMemory.maxChars`). */
export const DEFAULT_WORKING_MEMORY_CHARS = 4000;
/** The most characters of working memory any agent may keep: the thread refuses more, whoever asks. */
export const MAX_WORKING_MEMORY_CHARS = 16_000;

/** The length of a text as working memory counts it: characters (UTF-16 code units, as `String.length`). */
export function memoryChars(text: string): number {
  return text.length;
}

const scopeMessage =
  'working memory is kept per thread, in the thread\'s workflow: scope "resource" (Mastra\'s default) is not ' +
  'supported; leave scope out or set it to "thread"';

/** An agent's `memory.workingMemory`, with Mastra's names. */
export const WorkingMemoryOptionsSchema = z
  .object({
    /** Whether the agent keeps a working memory on its threads. */
    enabled: z.boolean(),
    /** The form of the memory (Markdown), shown to the model while the memory is empty. */
    template: z.string().max(MAX_WORKING_MEMORY_CHARS).optional(),
    /** The most characters the memory may hold (default 4,000, at most 16,000). */
    maxChars: z.number().int().min(1).max(MAX_WORKING_MEMORY_CHARS).optional(),
    /** Only `'thread'`: the memory lives in the thread's workflow. */
    scope: z.literal('thread', { error: scopeMessage }).optional(),
  })
  .strict()
  .superRefine((options, ctx) => {
    const max = options.maxChars ?? DEFAULT_WORKING_MEMORY_CHARS;
    if (options.template !== undefined && memoryChars(options.template) > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['template'],
        message:
          `the template has ${memoryChars(options.template)} characters, over the ${max} the memory may hold ` +
          '(maxChars); shorten it or raise maxChars',
      });
    }
  });
export type WorkingMemoryOptions = z.infer<typeof WorkingMemoryOptionsSchema>;

/**
 * A run's tool replaces the thread's working memory with `memory` (the whole text). The thread checks
 * it against `maxChars`, the agent's bound, and the hard bound; a request that fails is refused
 * (update validator), and the memory stays as it was.
 */
export const UpdateWorkingMemorySchema = z
  .object({
    runId: z.string().min(1).max(1000),
    agentId: IdSchema,
    toolCallId: z.string().min(1).max(2048),
    memory: z.string(),
    maxChars: z.number().int().min(1).max(MAX_WORKING_MEMORY_CHARS),
  })
  .strict();
export type UpdateWorkingMemory = z.infer<typeof UpdateWorkingMemorySchema>;

/** The working memory as the thread keeps it and its memo shows it. */
export const WorkingMemoryRecordSchema = z.object({
  /** The memory's text. */
  content: z.string().max(MAX_WORKING_MEMORY_CHARS),
  /** When it was last replaced, by which run and agent. */
  updatedAt: z.string(),
  runId: z.string(),
  agentId: z.string(),
});
export type WorkingMemoryRecord = z.infer<typeof WorkingMemoryRecordSchema>;

/** Why `memory` may not be stored under `maxChars`, or undefined when it may. */
export function workingMemoryProblem(memory: string, maxChars: number): string | undefined {
  const chars = memoryChars(memory);
  const max = Math.min(maxChars, MAX_WORKING_MEMORY_CHARS);
  if (chars <= max) return undefined;
  return (
    `the working memory would have ${chars} characters, over the ${max} it may hold; ` +
    'keep what still matters, shorten the rest, and call updateWorkingMemory again. The memory is unchanged.'
  );
}
