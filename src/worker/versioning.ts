/**
 * Worker Versioning (Temporal Worker Deployments): which deployment and build a worker is, how the runs
 * it starts move between builds, and making a build the deployment's current one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { VersioningBehavior } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';

/**
 * How the runs a versioned worker starts move between builds. `PINNED` (the default): a run stays on the
 * build that started it until it ends, so a run that waits days for an approval resumes on the code
 * that recorded its history, and a new build needs no replay compatibility with runs in flight; the
 * old build's workers must be kept until its runs drain (`agentctl builds`). `AUTO_UPGRADE`: a run moves
 * to the deployment's current build at its next workflow task, so old workers can go at once, but every
 * change to the run loop must then replay the old histories (patches, see docs/upgrading.md).
 */
export const DEFAULT_VERSIONING_BEHAVIOR: VersioningBehavior = 'PINNED';

const NAME = /^[A-Za-z0-9_\-.]{1,255}$/;

export const VersioningSettingsSchema = z
  .object({
    deploymentName: z
      .string()
      .regex(NAME, 'letters, digits, "_", "-" and "." only (Temporal joins it with the build id), 1-255'),
    buildId: z.string().regex(NAME, 'letters, digits, "_", "-" and "." only, 1-255'),
    behavior: z.enum(['PINNED', 'AUTO_UPGRADE']).optional(),
    setCurrent: z.boolean().optional(),
  })
  .strict();

/** A versioned worker: its deployment, its build, and how the runs it starts move between builds. */
export interface VersioningSettings {
  /** The Worker Deployment (one per application; every build of it shares the name). */
  deploymentName: string;
  /** This build, e.g. the release version or the commit. */
  buildId: string;
  /** How agent runs move between builds; default {@link DEFAULT_VERSIONING_BEHAVIOR} (why: see there). */
  behavior?: VersioningBehavior;
  /**
   * Make this build the deployment's current version once the worker polls, so new runs go to it.
   * Without it, tasks reach the build only after `temporal worker deployment set-current-version`. For
   * development and single-worker setups: a restarted worker of an older build would take the current
   * version back.
   */
  setCurrent?: boolean;
}

/** Checks the settings, naming the offending value. */
export function checkVersioning(settings: VersioningSettings): VersioningSettings {
  const parsed = VersioningSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new TypeError(`versioning: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * The worker's versioning from the environment: `TEMPORAL_DEPLOYMENT_NAME` and `TEMPORAL_BUILD_ID`
 * (both, or neither: then the worker is unversioned), `TEMPORAL_VERSIONING_BEHAVIOR` (`PINNED` or
 * `AUTO_UPGRADE`), and `TEMPORAL_SET_CURRENT_VERSION=true` for {@link VersioningSettings.setCurrent}.
 */
export function versioningFromEnv(env: NodeJS.ProcessEnv = process.env): VersioningSettings | undefined {
  const deploymentName = env.TEMPORAL_DEPLOYMENT_NAME;
  const buildId = env.TEMPORAL_BUILD_ID;
  const behavior = env.TEMPORAL_VERSIONING_BEHAVIOR;
  const setCurrent = env.TEMPORAL_SET_CURRENT_VERSION;
  if (!deploymentName && !buildId) {
    if (behavior || setCurrent)
      throw new TypeError(
        'TEMPORAL_VERSIONING_BEHAVIOR and TEMPORAL_SET_CURRENT_VERSION ' +
          'need TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID',
      );
    return undefined;
  }
  if (!deploymentName || !buildId)
    throw new TypeError('TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID go together: a versioned worker needs both');
  if (behavior !== undefined && behavior !== 'PINNED' && behavior !== 'AUTO_UPGRADE')
    throw new TypeError(`TEMPORAL_VERSIONING_BEHAVIOR: "${behavior}" is neither PINNED nor AUTO_UPGRADE`);
  if (setCurrent !== undefined && setCurrent !== 'true' && setCurrent !== 'false')
    throw new TypeError(`TEMPORAL_SET_CURRENT_VERSION: "${setCurrent}" is neither true nor false`);
  return checkVersioning({
    deploymentName,
    buildId,
    ...(behavior ? { behavior } : {}),
    ...(setCurrent === 'true' ? { setCurrent: true } : {}),
  });
}

type WorkflowService = Pick<
  temporal.api.workflowservice.v1.WorkflowService,
  'setWorkerDeploymentCurrentVersion' | 'describeWorkerDeployment'
>;

/** gRPC status codes that mean "the version is not known or polled yet": worth another try. */
const NOT_YET = new Set([5 /* NOT_FOUND */, 9 /* FAILED_PRECONDITION */]);

/**
 * Makes `buildId` the current version of its deployment. The server refuses a version no worker has
 * polled with yet, so this tries again (for at most `timeoutMs`) while the worker's pollers reach it.
 */
export async function setCurrentVersion(
  service: WorkflowService,
  namespace: string,
  version: Pick<VersioningSettings, 'deploymentName' | 'buildId'>,
  { identity = 'durable-agents', timeoutMs = 60_000 }: { identity?: string; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity,
      });
      return;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === undefined || !NOT_YET.has(code) || Date.now() + wait > deadline)
        throw new Error(
          `could not make build "${version.buildId}" the current version of deployment "${version.deploymentName}": ` +
            `${(err as Error).message}; set it with \`temporal worker deployment set-current-version ` +
            `--deployment-name ${version.deploymentName} --build-id ${version.buildId}\``,
          { cause: err },
        );
      await sleep(wait);
    }
  }
}
