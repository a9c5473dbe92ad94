import { describe, expect, it } from 'vitest';
import { runBuild } from '../../src/client/runs/run-build.js';
import { checkVersioning, versioningFromEnv } from '../../src/worker/versioning.js';

describe('versioning settings from the environment', () => {
  it('is unversioned when nothing is set', () => {
    expect(versioningFromEnv({})).toBeUndefined();
  });

  it('reads the deployment, the build, the behaviour and set-current', () => {
    expect(
      versioningFromEnv({
        TEMPORAL_DEPLOYMENT_NAME: 'agents',
        TEMPORAL_BUILD_ID: '0.2.0',
        TEMPORAL_VERSIONING_BEHAVIOR: 'AUTO_UPGRADE',
        TEMPORAL_SET_CURRENT_VERSION: 'true',
      }),
    ).toEqual({ deploymentName: 'agents', buildId: '0.2.0', behavior: 'AUTO_UPGRADE', setCurrent: true });
    expect(versioningFromEnv({ TEMPORAL_DEPLOYMENT_NAME: 'agents', TEMPORAL_BUILD_ID: 'abc123' })).toEqual({
      deploymentName: 'agents',
      buildId: 'abc123',
    });
  });

  it('refuses half a configuration and unknown values, naming them', () => {
    expect(() => versioningFromEnv({ TEMPORAL_DEPLOYMENT_NAME: 'agents' })).toThrow(
      'TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID go together',
    );
    expect(() => versioningFromEnv({ TEMPORAL_VERSIONING_BEHAVIOR: 'PINNED' })).toThrow(
      'need TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID',
    );
    expect(() =>
      versioningFromEnv({
        TEMPORAL_DEPLOYMENT_NAME: 'a',
        TEMPORAL_BUILD_ID: 'b',
        TEMPORAL_VERSIONING_BEHAVIOR: 'pinned',
      }),
    ).toThrow('"pinned" is neither PINNED nor AUTO_UPGRADE');
    expect(() =>
      versioningFromEnv({ TEMPORAL_DEPLOYMENT_NAME: 'a', TEMPORAL_BUILD_ID: 'b', TEMPORAL_SET_CURRENT_VERSION: 'yes' }),
    ).toThrow('"yes" is neither true nor false');
  });

  it('refuses names Temporal cannot take and unknown keys', () => {
    expect(() => checkVersioning({ deploymentName: 'a:b', buildId: 'v1' })).toThrow(/versioning: .*deploymentName/s);
    expect(() => checkVersioning({ deploymentName: 'a', buildId: '' })).toThrow(/buildId/);
    expect(() => checkVersioning({ deploymentName: 'a', buildId: 'v1', pinned: true } as never)).toThrow(/pinned/);
  });
});

describe("a run's build", () => {
  const keyword = (value: unknown) => ({ data: Buffer.from(JSON.stringify(value)) });

  it('comes from the versioning info that describe returns', () => {
    expect(
      runBuild({
        versioningInfo: { behavior: 1, deploymentVersion: { deploymentName: 'agents', buildId: '0.1.0' } },
      }),
    ).toEqual({ deploymentName: 'agents', buildId: '0.1.0', behavior: 'PINNED' });
    expect(
      runBuild({
        versioningInfo: {
          behavior: 2,
          deploymentVersion: { deploymentName: 'agents', buildId: '0.1.0' },
          versioningOverride: { pinned: { version: { deploymentName: 'agents', buildId: '0.2.0' } } },
        },
      }),
    ).toEqual({ deploymentName: 'agents', buildId: '0.2.0', behavior: 'AUTO_UPGRADE', pinnedByOverride: true });
  });

  it("comes from Temporal's search attributes in a visibility list, and is absent for unversioned runs", () => {
    const fields = (behavior: string) => ({
      searchAttributes: {
        indexedFields: {
          TemporalWorkerDeployment: keyword('my.agents'),
          TemporalWorkerDeploymentVersion: keyword('my.agents:build:7'),
          TemporalWorkflowVersioningBehavior: keyword(behavior),
        },
      },
    });
    expect(runBuild(fields('Pinned'))).toEqual({ deploymentName: 'my.agents', buildId: 'build:7', behavior: 'PINNED' });
    expect(runBuild(fields('AutoUpgrade'))?.behavior).toBe('AUTO_UPGRADE');
    expect(runBuild({ searchAttributes: { indexedFields: {} } })).toBeUndefined();
    expect(runBuild(undefined)).toBeUndefined();
  });
});
