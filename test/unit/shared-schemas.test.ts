import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';

/** The schema modules (src/schemas/NAME.ts) a text names, as webpack ids or as imports. */
function schemaModules(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))].sort();
}

describe('the workflow bundle shares its schema modules between runs', () => {
  it('preloads every schema module the run workflows import', async () => {
    // The bundle the tests' workers run, built with workflowBundleOptions as createWorker builds its own.
    const bundle = await readFile(inject('workflowBundlePath'), 'utf8');
    expect(bundle).toMatch(
      /exports\.preloadModules = function preloadModules\(\) \{\s*__webpack_require__\([^)]*"\.\/src\/workflows\/shared-schemas\.ts"\)/,
    );
    const inBundle = schemaModules(bundle, /"\.\/src\/schemas\/([a-z-]+)\.ts"/g).filter((m) => m !== 'warm-schemas');
    const shared = await readFile(new URL('../../src/workflows/shared-schemas.ts', import.meta.url), 'utf8');
    const preloaded = schemaModules(shared, /from '\.\.\/schemas\/([a-z-]+)\.js'/g).filter((m) => m !== 'warm-schemas');
    // A schema module missing from shared-schemas.ts would be instantiated again by every run.
    expect(preloaded).toEqual(inBundle);
  });
});
