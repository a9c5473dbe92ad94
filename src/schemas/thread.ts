/**
 * Threads: the conversation that runs started with the same `threadId` (within one `resourceId`)
 * share, kept by one long-lived thread workflow per thread. Sandbox-safe: ids, bounds and schemas.
 */
import { z } from 'zod';
import { JsonValueSchema } from './json.js';
import { IdSchema } from './limits.js';
import { MessageSchema, type Message } from './message.js';
import { WorkingMemoryOptionsSchema, WorkingMemoryRecordSchema } from './working-memory.js';
import { TaskListSchema } from './tasks.js';

/** How many earlier messages of its thread a run's model sees, unless the agent says (`memory.lastMessages`). */
export const DEFAULT_LAST_MESSAGES = 10;
/** The most earlier messages an agent may show its model. */
export const MAX_LAST_MESSAGES = 1000;
/**
 * Bytes of JSON of the earlier messages a run takes from its thread: the rest of the run's conversation
 * budget (`MAX_CONVERSATION_BYTES`) is its own.
 */
export const MAX_HISTORY_BYTES = 256 * 1024;
/** The most messages a thread keeps; the oldest whole turns go first. */
export const MAX_THREAD_MESSAGES = 2000;
/** Bytes of JSON a thread keeps (its workflow carries them when it continues as new, under Temporal's 2 MiB). */
export const MAX_THREAD_BYTES = 1024 * 1024;
/** The most recent messages the thread's memo shows, for readers with no worker up. */
export const MEMO_MESSAGES = 100;
/** The most (agent, starter) pairs the memo lists; a thread with more is read by those its agents let read. */
export const MEMO_PARTICIPANTS = 100;
/** Bytes of JSON of the messages the memo shows. */
export const MEMO_MESSAGE_BYTES = 256 * 1024;
/** The memo key of a thread workflow. */
export const THREAD_MEMO_KEY = 'agentThread';

/**
 * What a sub-agent's model sees when its supervisor delegates on a thread: only what the supervisor
 * passes (`prompt`, the default), or the thread's recent messages before it (`thread`, read-only).
 */
export const SUB_AGENT_CONTEXTS = ['prompt', 'thread'] as const;
export const SubAgentContextSchema = z.enum(SUB_AGENT_CONTEXTS);
export type SubAgentContext = z.infer<typeof SubAgentContextSchema>;

/** An agent's memory options, with Mastra's names. */
export const MemoryOptionsSchema = z
  .object({
    /** How many earlier messages of the thread the model sees (default 10; 0: none). */
    lastMessages: z.number().int().min(0).max(MAX_LAST_MESSAGES).optional(),
    /**
     * A supervisor's: what its sub-agents' models see of its thread, for all of them or by their key
     * in `agents` (a key left out: `prompt`).
     */
    subAgentContext: z.union([SubAgentContextSchema, z.record(z.string(), SubAgentContextSchema)]).optional(),
    /**
     * A working memory the agent keeps per thread and replaces with its `updateWorkingMemory` tool,
     * shown to its model on every run of the thread (see `WorkingMemoryOptionsSchema`).
     */
    workingMemory: WorkingMemoryOptionsSchema.optional(),
  })
  .strict();
export type MemoryOptions = z.infer<typeof MemoryOptionsSchema>;

/** What the sub-agent under `key` in a supervisor's `agents` sees of the supervisor's thread. */
export function subAgentContextOf(memory: MemoryOptions | undefined, key: string): SubAgentContext {
  const context = memory?.subAgentContext;
  if (typeof context === 'string') return context;
  return (context && Object.hasOwn(context, key) ? context[key] : undefined) ?? 'prompt';
}

/** How a run's turn stands: the run is going on, waits on a decision, or ended. */
export const TurnStatusSchema = z.enum(['running', 'suspended', 'completed', 'failed', 'cancelled']);
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/**
 * What a run's stream showed of a call whose tool has a display transform (its input, output or
 * error): HTTP answers and pages show the thread's messages so. `null`: not known (shown as not shown).
 */
export const ShownCallSchema = z
  .object({ input: JsonValueSchema.optional(), output: JsonValueSchema.optional(), error: z.string().optional() })
  .strict()
  .nullable();
export type ShownCall = z.infer<typeof ShownCallSchema>;
/** The display forms of a turn's calls, by tool call id (calls of tools without a display transform have none). */
export const ShownCallsSchema = z.record(z.string(), ShownCallSchema);
export type ShownCalls = z.infer<typeof ShownCallsSchema>;

/** Bytes of JSON of the display forms a turn records; calls beyond are recorded as not known. */
export const MAX_SHOWN_BYTES = 64 * 1024;

/** One run's part of a thread: the messages it was started with and those it made, kept together. */
export const ThreadTurnSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  /** The id of who started the run, when known: they may read the thread's messages of it. */
  startedBy: z.string().optional(),
  status: TurnStatusSchema,
  messages: z.array(MessageSchema),
  /** What the run's stream showed of its calls where a display transform changes them. */
  shown: ShownCallsSchema.optional(),
  at: z.string(),
});
export type ThreadTurn = z.infer<typeof ThreadTurnSchema>;

/** What the thread workflow starts with (and continues as new with). */
export const ThreadInputSchema = z
  .object({
    threadId: IdSchema,
    resourceId: IdSchema.optional(),
    createdAt: z.string().optional(),
    turns: z.array(ThreadTurnSchema).optional(),
    /** Turns dropped so far to keep the thread within its bounds. */
    droppedTurns: z.number().int().optional(),
    /** The thread's working memory, when a run stored one. */
    workingMemory: WorkingMemoryRecordSchema.optional(),
    /** The task list, once a task tool wrote one. */
    taskList: TaskListSchema.optional(),
    /**
     * Who the thread belongs to: the id of who started the run that began it, when known. A server that
     * keeps threads per user (`threadPrivacy: 'user'`) lets only them (and the agents' readers) use it.
     */
    owner: IdSchema.optional(),
    /** The digests of the turn keys of the turns still open (see {@link TurnWriterSchema}), by run id. */
    writers: z.record(z.string(), z.string().length(64)).optional(),
  })
  .strict();
export type ThreadInput = z.infer<typeof ThreadInputSchema>;

/** Characters of a turn key: a SHA-256 in hex. */
export const TURN_KEY_CHARS = 64;

/**
 * What a write to a thread carries besides the write itself: the run whose turn it is, and the secret
 * that run began its turn with (its turn key). The thread takes `recordTurn`, `updateWorkingMemory` and
 * `changeTasks` only with the key of an open turn it began, and begins a turn only for a run that vouches
 * for the key itself (see `verifyThreadWriter`); writes from before the keys carry none and replay as
 * they ran.
 */
export const TurnWriterSchema = z
  .object({
    runId: z.string().min(1).max(1000),
    key: z.string().length(TURN_KEY_CHARS),
  })
  .strict();
export type TurnWriter = z.infer<typeof TurnWriterSchema>;

/** What a run answers the thread that asks whether it began a turn with a key: its thread and the key's digest. */
export interface TurnKeyProof {
  threadWorkflowId: string;
  digest: string;
}

/** A run's turn begins: its starting messages join the thread, and it gets the earlier messages. */
export const BeginTurnSchema = z
  .object({
    runId: z.string().min(1).max(1000),
    agentId: IdSchema,
    startedBy: IdSchema.optional(),
    messages: z.array(MessageSchema),
    lastMessages: z.number().int().min(0).max(MAX_LAST_MESSAGES),
    /** Set when the run's agent keeps a working memory: the answer carries the thread's, if it has one. */
    workingMemory: z.literal(true).optional(),
  })
  .strict();
export type BeginTurn = z.infer<typeof BeginTurnSchema>;

/** A run's messages so far (those it started with, then its own), replacing what its turn held. */
export const RecordTurnSchema = z
  .object({
    runId: z.string().min(1).max(1000),
    agentId: IdSchema,
    status: TurnStatusSchema,
    messages: z.array(MessageSchema),
    /** What the run's stream showed of its calls where a display transform changes them. */
    shown: ShownCallsSchema.optional(),
  })
  .strict();
export type RecordTurn = z.infer<typeof RecordTurnSchema>;

/** A thread as its memo shows it to any process, with no worker up. */
export const ThreadMemoSchema = z.object({
  threadId: z.string(),
  resourceId: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Messages the thread keeps, and turns (runs). */
  messageCount: z.number().int(),
  turnCount: z.number().int(),
  /** Turns dropped to keep the thread within its bounds. */
  droppedTurns: z.number().int(),
  /** The agents whose runs took part, and the most recent run. */
  agentIds: z.array(z.string()),
  /** Who the thread belongs to (the starter of the run that began it), when known; threads from before have none. */
  owner: z.string().optional(),
  /**
   * Each agent with who started its runs here (distinct pairs, at most {@link MEMO_PARTICIPANTS}): who
   * may read is checked against them.
   */
  participants: z.array(z.object({ agentId: z.string(), startedBy: z.string().optional() })),
  lastRunId: z.string().optional(),
  /** The most recent messages ({@link MEMO_MESSAGES}, {@link MEMO_MESSAGE_BYTES}), oldest first. */
  messages: z.array(MessageSchema),
  /** How many older messages the thread keeps that `messages` leaves out. */
  omittedMessages: z.number().int(),
  /** The display forms of the calls in `messages` whose tools have a display transform. */
  shown: ShownCallsSchema.optional(),
  /** The thread's working memory, when a run stored one (at most `MAX_WORKING_MEMORY_CHARS`). */
  workingMemory: WorkingMemoryRecordSchema.optional(),
  /**
   * The whole task list (it is bounded to fit), once a task tool wrote one. A list this version cannot
   * read leaves the rest of the memo readable.
   */
  taskList: TaskListSchema.optional().catch(undefined),
});
export type ThreadMemo = z.infer<typeof ThreadMemoSchema>;

/** The id of the thread workflow of a thread: ids are escaped, so no two threads share one. */
export function threadWorkflowId(resourceId: string | undefined, threadId: string): string {
  return `thread:${encodeURIComponent(resourceId ?? '')}:${encodeURIComponent(threadId)}`;
}

export type { Message };
