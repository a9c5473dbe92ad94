/** The update, signal and query of a thread workflow, defined once for it, the run, the activities and the client. */
import type { Message } from '../schemas/message.js';
import type { Task, TaskChange, TaskList } from '../schemas/tasks.js';
import type { BeginTurn, RecordTurn, ThreadTurn, TurnKeyProof, TurnWriter } from '../schemas/thread.js';
import type { UpdateWorkingMemory, WorkingMemoryRecord } from '../schemas/working-memory.js';
import { defineQuery, defineSignal, defineUpdate } from './definitions.js';

/**
 * The earlier messages a run's model is shown, as the thread had them when the run's turn began, and
 * the thread's task list then (only when it has tasks: runs recorded before task lists replay as they ran).
 */
export interface BeganTurn {
  history: Message[];
  /** The thread's working memory, when the run asked for it (`BeginTurn.workingMemory`) and there is one. */
  workingMemory?: string;
  tasks?: Task[];
}

/**
 * A run's turn begins: its starting messages join the thread and it gets the earlier messages. An
 * update (through an activity of the run, so the answer is in the run's history); idempotent by run id
 * and key. The second argument is the run's turn key: the thread asks the run whether it holds it
 * (`verifyThreadWriter`) and takes the run's later writes only with it. Updates from before the keys
 * have none.
 */
export const beginTurnUpdate = defineUpdate<BeganTurn, [BeginTurn, TurnWriter?]>('beginTurn');

/**
 * A run's messages so far, replacing what its turn held: sent by the run workflow itself when it
 * pauses and when it ends (a signal, which the server takes with no worker up), with its turn key. A
 * signal without the key of the run it names is dropped.
 */
export const recordTurnSignal = defineSignal<[RecordTurn, TurnWriter?]>('recordTurn');

/**
 * Asked of a run by the thread it asks to begin a turn on (from a local activity): the thread the run
 * is on and the digest of its turn key, or null for a run that holds no key. Only the run itself can
 * answer it, so a turn begins only for a key its run chose.
 */
export const turnKeyQuery = defineQuery<TurnKeyProof | null>('threadTurnKey');

/** Every turn the thread keeps, in order. */
export const threadTurnsQuery = defineQuery<ThreadTurn[]>('threadTurns');

/**
 * A run's `updateWorkingMemory` tool replaces the thread's working memory (an update, from the tool's
 * activity), with the run's turn key. Input over the bounds, or without the run's key, is refused, leaving
 * the memory as it was; the answer is the memory as now stored.
 */
export const updateWorkingMemoryUpdate = defineUpdate<WorkingMemoryRecord, [UpdateWorkingMemory, TurnWriter?]>(
  'updateWorkingMemory',
);

/**
 * A task tool changes the thread's task list (`TaskChangeSchema`), with its run's turn key, and gets the
 * list as it is after. A change without the key of a run on the thread is refused. A
 * change the thread refuses (an unknown id, two tasks in progress, input that does not fit) is refused
 * by the update's validator, with the reason, and changes nothing.
 */
export const changeTasksUpdate = defineUpdate<{ tasks: Task[] }, [TaskChange, TurnWriter?]>('changeTasks');

/** The thread's task list (none until a task tool wrote one). */
export const threadTasksQuery = defineQuery<TaskList | undefined>('threadTasks');
