/**
 * What a client reads of runs, builds and threads from Temporal alone (describe, visibility, the memo),
 * with no worker needed: the reading half of `AgentClient`, which has these methods from here.
 */
import { rejectUnknownKeys } from '../options.js';
import type { ClientContext } from './context.js';
import type { BuildInfo } from './runs/builds.js';
import type { RunFilter, RunInfo, RunPage, RunPageRequest, SuspendedRun } from './runs/runs.js';
import type { ThreadFilter, ThreadInfo, ThreadMessages, ThreadTasks, WorkingMemory } from './threads.js';

// Each read imports its module when first called, as `AgentClient`'s methods do (see agent-client.ts).

const THREAD_TARGET_KEYS = ['threadId', 'resourceId'];

/** `AgentClient`'s reads that need no worker, in a class of their own that `AgentClient` extends. */
export class ClientReads {
  /**
   * What every part of the client needs; protected, as `AgentClient`'s own methods use it too.
   *
   * @internal
   */
  protected readonly ctx: ClientContext;

  constructor(ctx: ClientContext) {
    this.ctx = ctx;
  }

  /** A run's status, pending calls and decision trail, from Temporal (no worker needed). */
  async getRun(runId: string): Promise<RunInfo> {
    const { getRun } = await import('./runs/runs.js');
    return getRun(this.ctx, runId);
  }

  /**
   * Every run that waits on tool calls, with the calls, found through Temporal visibility (search
   * attributes and memo), so it works from any process and after any restart.
   */
  async listSuspendedRuns(
    filter: Pick<RunFilter, 'agentId' | 'threadId' | 'resourceId'> = {},
  ): Promise<SuspendedRun[]> {
    rejectUnknownKeys('listSuspendedRuns', filter, ['agentId', 'threadId', 'resourceId']);
    const { listSuspendedRuns } = await import('./runs/runs.js');
    return listSuspendedRuns(this.ctx, filter);
  }

  /** Lists runs by status (any when omitted), in the order visibility returns them (newest first on the dev server). */
  async listRuns(filter: RunFilter = {}): Promise<RunInfo[]> {
    rejectUnknownKeys('listRuns', filter, ['status', 'agentId', 'threadId', 'resourceId', 'modelRetrying', 'limit']);
    const { listRuns } = await import('./runs/runs.js');
    return listRuns(this.ctx, filter);
  }

  /**
   * One page of the runs {@link listRuns} lists, and the token of the next page when there are more:
   * how an inbox or a script walks 10,000 waiting runs, one request to visibility a page.
   *
   * @example
   * ```ts
   * let pageToken: string | undefined;
   * do {
   *   const page = await client.listRunsPage({ status: 'suspended', pageSize: 500, pageToken });
   *   for (const run of page.runs) console.log(run.runId, run.pendingToolCalls.length);
   *   pageToken = page.nextPageToken;
   * } while (pageToken);
   * ```
   */
  async listRunsPage(request: RunPageRequest = {}): Promise<RunPage> {
    rejectUnknownKeys('listRunsPage', request, [
      'status',
      'agentId',
      'threadId',
      'resourceId',
      'pageSize',
      'pageToken',
    ]);
    const { listRunsPage } = await import('./runs/runs.js');
    return listRunsPage(this.ctx, request);
  }

  /**
   * The builds of the namespace's Worker Deployments (or of one), newest first, with the open
   * workflows each still has: a build that is neither current nor ramping and has nothing pinned to it
   * is `retirable`, its workers can go (see docs/upgrading.md).
   */
  async listBuilds(filter: { deploymentName?: string } = {}): Promise<BuildInfo[]> {
    rejectUnknownKeys('listBuilds', filter, ['deploymentName']);
    const { listBuilds } = await import('./runs/builds.js');
    return listBuilds(this.ctx, filter);
  }

  /**
   * The threads of a resource (of every resource when none is given), most recently updated first:
   * from Temporal visibility, with no worker needed.
   */
  async listThreads(filter: ThreadFilter = {}): Promise<ThreadInfo[]> {
    rejectUnknownKeys('listThreads', filter, ['resourceId', 'limit']);
    const { listThreads } = await import('./threads.js');
    return listThreads(this.ctx, filter);
  }

  /**
   * A thread's most recent messages (the last 100, within 256 KiB; `omittedMessages` says how many
   * older ones it keeps), oldest first, from the thread's memo: no worker needed.
   * `ThreadNotFoundError` when no run was started on it.
   */
  async getThreadMessages(target: { threadId: string; resourceId?: string }): Promise<ThreadMessages> {
    rejectUnknownKeys('getThreadMessages', target, THREAD_TARGET_KEYS);
    const { getThreadMessages } = await import('./threads.js');
    return getThreadMessages(this.ctx, target);
  }

  /**
   * A thread's working memory (`{ content, updatedAt, runId, agentId, ... }`), as the last
   * `updateWorkingMemory` call of a run on it stored it; null while none did. From the thread's memo:
   * no worker needed. `ThreadNotFoundError` when no run was started on it.
   */
  async getWorkingMemory(target: { threadId: string; resourceId?: string }): Promise<WorkingMemory | null> {
    rejectUnknownKeys('getWorkingMemory', target, THREAD_TARGET_KEYS);
    const { getWorkingMemory } = await import('./threads.js');
    return getWorkingMemory(this.ctx, target);
  }

  /**
   * A thread's task list (what `task_write`, `task_update` and `task_complete` made of it), whole, with
   * its summary, from the thread's memo: no worker needed. Empty until a task tool wrote one.
   * `ThreadNotFoundError` when no run was started on the thread.
   */
  async getThreadTasks(target: { threadId: string; resourceId?: string }): Promise<ThreadTasks> {
    rejectUnknownKeys('getThreadTasks', target, THREAD_TARGET_KEYS);
    const { getThreadTasks } = await import('./threads.js');
    return getThreadTasks(this.ctx, target);
  }
}
