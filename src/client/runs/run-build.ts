/**
 * Which build of which Worker Deployment a run is on, read from describe or from visibility.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { decodeVersioningBehavior, type VersioningBehavior } from '@temporalio/common';

/** Which build of which Worker Deployment a run is on, and whether it stays there. */
export interface RunBuild {
  deploymentName: string;
  buildId: string;
  /** `PINNED`: it stays on this build until it ends; `AUTO_UPGRADE`: it moves to the current build. */
  behavior: VersioningBehavior | undefined;
  /** Set when an operator pinned it to this build (a versioning override), whatever its behaviour. */
  pinnedByOverride?: true;
}

/**
 * The build of a workflow: from its versioning info (describe), else from the search attributes
 * Temporal sets on a versioned workflow (visibility lists carry no versioning info).
 */
export function runBuild(raw: WorkflowExecutionInfo['raw'] | null | undefined): RunBuild | undefined {
  const versioning = raw?.versioningInfo;
  const pinnedTo = versioning?.versioningOverride?.pinned?.version;
  const version = pinnedTo ?? versioning?.deploymentVersion;
  if (version?.deploymentName && version.buildId) {
    return {
      deploymentName: version.deploymentName,
      buildId: version.buildId,
      behavior: decodeVersioningBehavior(versioning?.behavior),
      ...(pinnedTo ? { pinnedByOverride: true as const } : {}),
    };
  }
  const fields = raw?.searchAttributes?.indexedFields;
  const deploymentName = systemAttribute(fields?.TemporalWorkerDeployment);
  const canonical = systemAttribute(fields?.TemporalWorkerDeploymentVersion);
  if (!deploymentName || !canonical?.startsWith(`${deploymentName}:`)) return undefined;
  const behavior = systemAttribute(fields?.TemporalWorkflowVersioningBehavior);
  return {
    deploymentName,
    buildId: canonical.slice(deploymentName.length + 1),
    behavior: behavior === 'Pinned' ? 'PINNED' : behavior === 'AutoUpgrade' ? 'AUTO_UPGRADE' : undefined,
  };
}

/** A keyword search attribute Temporal itself sets (JSON, never through the payload codec). */
function systemAttribute(payload: { data?: Uint8Array | null } | null | undefined): string | undefined {
  if (!payload?.data) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
