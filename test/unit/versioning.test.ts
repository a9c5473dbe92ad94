import { describe, expect, it } from 'vitest';
import { checkVersioning, versioningFromEnv } from '../../src/versioning.js';

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
