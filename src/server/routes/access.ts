/**
 * What the routes check before they read or start anything: the agents' access policies, the caller's
 * tenant, and who may use a thread. A run or thread the caller may not see is refused naming nothing of it.
 */
import type { Context } from 'hono';
import type { Agent } from '../../agent.js';
import { canRead, canStart, confinedTenant, readers, tenantCheck, type AccessCheck } from '../../approvals/access.js';
import type { AgentClient } from '../../client/agent-client.js';
import { checkInput } from '../../client/checks.js';
import { retryingRuns } from '../../client/runs/model-step.js';
import type { RetryingRun } from '../inbox.js';
import type { RunInfo } from '../../client/runs/runs.js';
import type { ThreadInfo } from '../../client/threads.js';
import { AccessDeniedError, errorMessage, RunNotFoundError, ThreadNotFoundError } from '../../errors.js';
import type { AccessPolicy, Principal } from '../../schemas/access.js';
import { IdSchema } from '../../schemas/limits.js';
import type { ServerEnv } from '../auth/guards.js';
import type { PageSeal } from '../page-seal.js';
import { pageSizeParam } from '../query-params.js';
import { threadAccess, type ThreadPrivacy } from '../auth/thread-access.js';

export function allowOrDeny(check: AccessCheck): void {
  if (!check.allowed) throw new AccessDeniedError(check.message);
}

/** The runs a page of waiting runs holds unless the request says. */
const DEFAULT_PAGE_SIZE = 100;
/** The most runs one request for a page of waiting runs looks at, to fill it with runs the caller may read. */
export const MAX_SCANNED = 1000;
/** The most visibility reads one such request makes: with `pageSize=1`, 1,000 reads of one run each otherwise. */
const MAX_READS = 10;

/** How many running runs a request for the runs being retried describes, at most. */
export const MAX_DESCRIBED = 200;

/** The checks of one server: its agents' policies (sub-agents' included) and its thread privacy. */
export class RouteAccess {
  private readonly policies = new Map<string, AccessPolicy | undefined>();

  constructor(
    private readonly client: AgentClient,
    agents: Agent[],
    private readonly threadPrivacy: ThreadPrivacy,
    private readonly pageSeal: PageSeal,
  ) {
    const addPolicies = (agent: Agent): void => {
      this.policies.set(agent.id, agent.access);
      Object.values(agent.agents).forEach(addPolicies);
    };
    agents.forEach(addPolicies);
  }

  /** Refuses a principal whom the agent's policy does not let start its runs. */
  mayStart(agentId: string, principal: Principal | undefined): void {
    allowOrDeny(canStart(this.policies.get(agentId), agentId, principal));
  }

  /** Whether the principal may read the run: by the run's own read rule, else its agent's. */
  mayRead(run: RunInfo, principal: Principal | undefined): boolean {
    return canRead(run.read ?? readers(this.policies.get(run.agentId ?? '')), run, principal).allowed;
  }

  /**
   * A run the principal may read. Another tenant's run is not found, as a run that does not exist; one
   * the agent's read rule keeps from the principal is refused naming nothing of it.
   */
  async readableRun(runId: string, principal: Principal | undefined): Promise<RunInfo> {
    const info = await this.client.getRun(runId);
    if (!tenantCheck(principal, info.resourceId).allowed) throw new RunNotFoundError(runId, this.client.namespace);
    if (!this.mayRead(info, principal)) {
      throw new AccessDeniedError(`you may not read run "${runId}"`);
    }
    return info;
  }

  /** Whether the principal may use a thread (see thread-access.ts), and if not, why. */
  threadReadable(thread: ThreadInfo, principal: Principal | undefined) {
    return threadAccess(thread, principal, (agentId) => this.policies.get(agentId), this.threadPrivacy);
  }

  /**
   * A run on a thread is shown the thread's messages: the caller must be allowed to read the thread,
   * if it exists already.
   */
  async mayJoinThread(threadId: string, resourceId: string | undefined, principal: Principal | undefined) {
    const thread = await this.client
      .getThreadMessages({ threadId, ...(resourceId ? { resourceId } : {}) })
      .catch((err) => {
        if (err instanceof ThreadNotFoundError) return undefined;
        throw err;
      });
    const access = thread ? this.threadReadable(thread, principal) : undefined;
    if (access && !access.allowed)
      throw new AccessDeniedError(`you may not start a run on thread "${threadId}": ${access.why}`);
  }

  /** The resource a request is about: the caller's tenant (an operator's: every one) unless it names another. */
  threadResource(c: Context<ServerEnv>): string | undefined {
    const principal = c.get('principal');
    const asked = c.req.query('resourceId') || confinedTenant(principal);
    const resourceId = checkInput('resourceId', IdSchema.optional(), asked);
    allowOrDeny(tenantCheck(principal, resourceId));
    return resourceId;
  }

  /**
   * A page of the waiting runs a request may see: of the caller's tenant (or the resource it names,
   * refused for another tenant), filtered by agent and thread when asked, and readable to the caller.
   * Visibility pages are read until `pageSize` readable runs are found (so a page may hold a few more),
   * the list ends, {@link MAX_SCANNED} runs were looked at or {@link MAX_READS} reads made; the token is
   * sealed for this caller and filter, so that it tells nothing of the runs left out.
   */
  async waitingPage(
    c: Context<ServerEnv>,
    agentId: string | undefined,
    query: { threadId?: string; pageSize?: string; pageToken?: string },
  ): Promise<{ runs: RunInfo[]; nextPageToken?: string }> {
    const principal = c.get('principal');
    const resourceId = this.threadResource(c);
    const threadId = checkInput('threadId', IdSchema.optional(), query.threadId);
    const pageSize = pageSizeParam(query.pageSize) ?? DEFAULT_PAGE_SIZE;
    const scope = JSON.stringify([principal?.id ?? null, principal?.tenant ?? null, agentId, threadId, resourceId]);
    const filter = { status: 'suspended' as const, agentId, threadId, resourceId, pageSize };
    let pageToken = query.pageToken === undefined ? undefined : this.pageSeal.open(query.pageToken, scope);
    const runs: RunInfo[] = [];
    let scanned = 0;
    let reads = 0;
    do {
      const page = await this.client.listRunsPage({ ...filter, ...(pageToken ? { pageToken } : {}) });
      runs.push(...page.runs.filter((run) => this.mayRead(run, principal)));
      scanned += page.runs.length;
      reads += 1;
      pageToken = page.nextPageToken;
    } while (pageToken && runs.length < pageSize && scanned < Math.max(MAX_SCANNED, pageSize) && reads < MAX_READS);
    return { runs, ...(pageToken ? { nextPageToken: this.pageSeal.seal(pageToken, scope) } : {}) };
  }

  /**
   * The runs whose model step is being retried that a request may see, as {@link waitingPage} scopes
   * them. Telling takes a describe of each running run: only the first {@link MAX_DESCRIBED} running runs
   * are looked at (`capped` when there were that many), those the caller may read are described a few at
   * a time, and one that cannot be is left out and counted (`skipped`), with the reason in the log.
   */
  async retryingRuns(
    c: Context<ServerEnv>,
    agentId: string | undefined,
  ): Promise<{ runs: RetryingRun[]; skipped: number; capped: boolean }> {
    const principal = c.get('principal');
    const resourceId = this.threadResource(c);
    const threadId = checkInput('threadId', IdSchema.optional(), c.req.query('threadId') || undefined);
    // One more than it describes: to tell "exactly 200" from "more".
    const filter = { status: 'running' as const, agentId, threadId, resourceId, limit: MAX_DESCRIBED + 1 };
    const listed = await this.client.listRuns(filter);
    const readable = listed.slice(0, MAX_DESCRIBED).filter((run) => this.mayRead(run, principal));
    let skipped = 0;
    const runs: RetryingRun[] = [];
    const skip = (run: RunInfo, err: unknown) => {
      skipped++;
      console.error(`server: /inbox/retrying could not describe run ${run.runId}: ${errorMessage(err)}`);
    };
    for await (const run of retryingRuns(this.client.temporal, readable, skip)) runs.push(run);
    return { runs, skipped, capped: listed.length > MAX_DESCRIBED };
  }

  /** A thread the caller may read: within its tenant, every run on it readable to it (else 403). */
  async readableThread<T extends ThreadInfo>(
    c: Context<ServerEnv>,
    read: (target: { threadId: string; resourceId?: string }) => Promise<T>,
  ): Promise<T> {
    const resourceId = this.threadResource(c);
    const threadId = checkInput('threadId', IdSchema, c.req.param('threadId'));
    const thread = await read({ threadId, ...(resourceId ? { resourceId } : {}) });
    const access = this.threadReadable(thread, c.get('principal'));
    if (!access.allowed) throw new AccessDeniedError(`you may not read thread "${threadId}": ${access.why}`);
    return thread;
  }
}
