/**
 * The builds of the Worker Deployments in a namespace and the open workflows each still has, from
 * Temporal itself (the deployment APIs and visibility), so an operator knows when old workers can go.
 */
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import proto from '@temporalio/proto';
import { AgentStatusKey } from '../../protocol/search-attributes.js';
import type { ClientContext } from '../context.js';
import { runBuild } from './run-build.js';
import { queryValue } from './visibility-query.js';

/** A build of a Worker Deployment, as {@link listBuilds} finds it. */
export interface BuildInfo {
  deploymentName: string;
  buildId: string;
  /** Temporal's status of the version: current, ramping, draining, drained, inactive. */
  status: string;
  /** Open workflows pinned to this build, which need its workers until they end: running, and waiting on a person. */
  pinned: { running: number; waiting: number };
  /** Open workflows last on this build that move to the current build at their next task. */
  autoUpgrade: number;
  /** Neither current nor ramping and nothing pinned to it: its workers can go. */
  retirable: boolean;
}

const STATUS_PREFIX = 'WORKER_DEPLOYMENT_VERSION_STATUS_';

function statusName(status: proto.temporal.api.enums.v1.WorkerDeploymentVersionStatus | null | undefined): string {
  const name = proto.temporal.api.enums.v1.WorkerDeploymentVersionStatus[status ?? 0] ?? 'UNSPECIFIED';
  return name.replace(STATUS_PREFIX, '').toLowerCase();
}

/** Every build of every Worker Deployment (or of one), newest first, with the open workflows each still has. */
export async function listBuilds(ctx: ClientContext, filter: { deploymentName?: string } = {}): Promise<BuildInfo[]> {
  const { namespace, temporal: client } = ctx;
  const service = client.workflowService;
  const names: string[] = [];
  if (filter.deploymentName) names.push(filter.deploymentName);
  else {
    let nextPageToken: Uint8Array = Buffer.alloc(0);
    do {
      const page = await service.listWorkerDeployments({ namespace, nextPageToken, pageSize: 100 });
      for (const d of page.workerDeployments) if (d.name) names.push(d.name);
      nextPageToken = page.nextPageToken;
    } while (nextPageToken.length > 0);
  }
  const builds: BuildInfo[] = [];
  for (const deploymentName of names.sort()) {
    const { workerDeploymentInfo } = await service.describeWorkerDeployment({ namespace, deploymentName });
    const counts = await openWorkflowsByBuild(ctx, deploymentName);
    const versions = [...(workerDeploymentInfo?.versionSummaries ?? [])].sort(
      (a, b) => Number(b.createTime?.seconds ?? 0) - Number(a.createTime?.seconds ?? 0),
    );
    for (const v of versions) {
      const buildId = v.deploymentVersion?.buildId;
      if (!buildId) continue;
      const status = statusName(v.status);
      const count = counts.get(buildId) ?? { pinned: { running: 0, waiting: 0 }, autoUpgrade: 0 };
      builds.push({
        deploymentName,
        buildId,
        status,
        ...count,
        retirable: status !== 'current' && status !== 'ramping' && count.pinned.running + count.pinned.waiting === 0,
      });
    }
  }
  return builds;
}

/** The open workflows of a deployment by build, from visibility: pinned (running, waiting) and auto-upgrading. */
async function openWorkflowsByBuild(
  ctx: ClientContext,
  deploymentName: string,
): Promise<Map<string, Pick<BuildInfo, 'pinned' | 'autoUpgrade'>>> {
  const { namespace, temporal: client } = ctx;
  const counts = new Map<string, Pick<BuildInfo, 'pinned' | 'autoUpgrade'>>();
  const deployment = queryValue('deploymentName', deploymentName);
  const query = `ExecutionStatus = 'Running' AND TemporalWorkerDeployment = ${deployment}`;
  let nextPageToken: Uint8Array = Buffer.alloc(0);
  do {
    const page = await client.workflowService.listWorkflowExecutions({ namespace, query, nextPageToken });
    for (const raw of page.executions) {
      const build = runBuild(raw);
      if (!build || build.deploymentName !== deploymentName) continue;
      const count = counts.get(build.buildId) ?? { pinned: { running: 0, waiting: 0 }, autoUpgrade: 0 };
      counts.set(build.buildId, count);
      if (build.behavior === 'AUTO_UPGRADE' && !build.pinnedByOverride) {
        count.autoUpgrade++;
        continue;
      }
      // Only the search attributes are read: no memo, so no codec key is needed to count.
      const bare = Object.assign(Object.create(raw) as typeof raw, { memo: null });
      const info = await executionInfoFromRaw(bare, client.options.loadedDataConverter, raw, namespace);
      if (info.typedSearchAttributes.get(AgentStatusKey) === 'suspended') count.pinned.waiting++;
      else count.pinned.running++;
    }
    nextPageToken = page.nextPageToken;
  } while (nextPageToken.length > 0);
  return counts;
}
