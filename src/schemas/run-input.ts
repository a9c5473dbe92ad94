/** The input of a run's workflow. Sandbox-safe. */
import { z } from 'zod';
import { PrincipalSchema } from './access.js';
import { AgentSpecSchema } from './agent-spec.js';
import { DecisionRecordSchema, RefusalSummarySchema } from './decisions.js';
import { boundedJson, IdSchema, MAX_ID, MAX_PROGRESS_BYTES, MAX_QUALIFIED_ID, MAX_RUN_REF } from './limits.js';
import { MessageSchema } from './message.js';
import { ReceiptHeadSchema } from './receipts.js';
import { MAX_RUN_MESSAGES } from './run-message.js';
import { RunOptionsSchema } from './run-options.js';
import { StepRecordSchema } from './run-result.js';
import { StreamGraceMsSchema } from './stream-grace.js';
import { TURN_KEY_CHARS } from './thread.js';
import { MAX_WORKING_MEMORY_CHARS } from './working-memory.js';

/** What a run that continued as new carries over (the conversation is in `messages`). */
export const RunCarrySchema = z
  .object({
    spec: AgentSpecSchema,
    steps: z.array(StepRecordSchema),
    decisions: z.array(DecisionRecordSchema),
    /** What the run refused so far (runs from before kept refusals in `decisions`). */
    refusals: RefusalSummarySchema.optional(),
    /** Where the run's receipts stand (runs from before receipts carry none: their chain starts again at 0). */
    receipts: ReceiptHeadSchema.optional(),
    version: z.number(),
    /** The run stream's chunks (see `ChunkLog`; runs from before it carried a `WorkflowStreamState`). */
    stream: z.record(z.string(), z.unknown()),
    /** Set for a run on a thread: how many of its messages came first from the thread. */
    threadMessages: z.number().int().nonnegative().optional(),
    /** Set for a run on a thread whose agent keeps a working memory, when there is one: as the run knows it. */
    workingMemory: z.string().max(MAX_WORKING_MEMORY_CHARS).optional(),
    /** Set for a run that began its turn on a thread with a key: its writes there carry it (see thread-writers.ts). */
    threadKey: z.string().length(TURN_KEY_CHARS).optional(),
    /**
     * Set for a run whose model calls carry the conversation by reference: the messages its last model
     * call held with its answer (see workflows/conversation-ref.ts), which its continuation's first call
     * references.
     */
    sent: z
      .object({ count: z.number().int().nonnegative(), digest: z.string().max(64) })
      .strict()
      .optional(),
    /** The ids of the messages the run took (see run-message-queue.ts): one sent again is not taken twice. */
    messageIds: z.array(z.string().min(1).max(MAX_ID)).max(MAX_RUN_MESSAGES).optional(),
  })
  .strict();
export type RunCarry = z.infer<typeof RunCarrySchema>;

/**
 * Where a sub-agent's run sends its progress: the run that streams it (its parent, or the streamed run
 * above), the secret of the delegation there, the delegating call as that run names it (qualified by
 * the calls between), and the bytes of progress it may send, with everything it delegates to.
 */
export const ProgressTargetSchema = z
  .object({
    runId: z.string().min(1).max(MAX_RUN_REF),
    token: z.string().min(1).max(128),
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
    budgetBytes: z.number().int().nonnegative().max(MAX_PROGRESS_BYTES),
  })
  .strict();
export type ProgressTarget = z.infer<typeof ProgressTargetSchema>;

export const RunInputSchema = z
  .object({
    agentId: IdSchema,
    messages: z.array(MessageSchema).min(1, 'a run needs at least one message'),
    options: RunOptionsSchema,
    /**
     * Set by `stream()`: the model activity streams token deltas, and the finished run stays
     * readable for `graceMs` so that subscribers can read its last chunks.
     */
    stream: z.object({ graceMs: StreamGraceMsSchema }).strict().optional(),
    /** Who started the run (a sub-agent's run: who started the top run), when known. */
    startedBy: PrincipalSchema.optional(),
    /**
     * Set for a sub-agent's run: the run and the tool call that delegated to it, and whether its model
     * is shown the thread's recent messages (`threadContext`, from the supervisor's
     * `memory.subAgentContext`; it never records a turn there).
     */
    parent: z
      .object({ runId: z.string(), toolCallId: z.string(), threadContext: z.literal(true).optional() })
      .strict()
      .optional(),
    /** Set for a sub-agent's run below a streamed run: where its progress goes. */
    progress: ProgressTargetSchema.optional(),
    carry: RunCarrySchema.optional(),
    /**
     * Set for a tool run (`AgentClient.runTool`, `agentctl tools run`): the run's one step is this call,
     * made by the caller instead of a model and then handled like any call under the agent's policy
     * (approval, hooks, transforms); the run ends with its outcome.
     */
    toolCall: z.object({ toolName: IdSchema, args: boundedJson() }).strict().optional(),
  })
  .strict();
export type RunInput = z.infer<typeof RunInputSchema>;
