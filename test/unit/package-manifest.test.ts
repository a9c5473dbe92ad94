/** The published manifest keeps the dependency rules of docs/upgrading.md ("Dependencies"), and its licence. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  license: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/**
 * The SDK's packages. The S3 payload-store driver (`@temporalio/external-storage-s3*`) is contrib, published
 * at 1.22.0 only: an optional peer, given our one copy of `@temporalio/common` by `overrides`.
 */
const temporal = (deps: Record<string, string>) =>
  Object.entries(deps).filter(
    ([name]) => name.startsWith('@temporalio/') && !name.startsWith('@temporalio/external-storage-'),
  );

describe('the package manifest', () => {
  it('pins every @temporalio/* package to one exact version, as they pin each other', () => {
    const all = [...temporal(manifest.dependencies), ...temporal(manifest.devDependencies)];
    expect(all.length).toBeGreaterThan(0);
    const versions = new Set(all.map(([, range]) => range));
    expect([...versions]).toHaveLength(1);
    expect([...versions][0]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('takes every other runtime dependency as a caret range, so an application shares its copy', () => {
    const others = Object.entries(manifest.dependencies).filter(([name]) => !name.startsWith('@temporalio/'));
    expect(others.filter(([, range]) => !/^\^\d+\.\d+\.\d+$/.test(range))).toEqual([]);
  });

  it('is MIT licensed, as its LICENSE file says', () => {
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8')).toMatch(/^MIT License\n/);
  });
});
