import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

/** The project modules a module imports for their values (not `import type`), as paths. */
function valueImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^import (?!type )[^;]*?from '(\.{1,2}\/[^']+)\.js';/gms)) {
    out.push(fileURLToPath(new URL(`${m[1]}.ts`, pathToFileURL(file))));
  }
  return out;
}

describe('what the runs of a bundle share', () => {
  it('holds no state of its own: no module-level let or var, no Map or Set it changes', async () => {
    // The SDK freezes a shared module's exports, but not what a closure or a Map holds: a module that
    // kept state at its top level would carry one run's state into the next.
    const root = fileURLToPath(new URL('../../src/workflows/shared-schemas.ts', import.meta.url));
    const seen = new Set<string>();
    const stateful: string[] = [];
    for (const todo = [root]; todo.length > 0;) {
      const file = todo.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = await readFile(file, 'utf8');
      for (const [n, line] of text.split('\n').entries()) {
        const collection = /^(?:export )?const (\w+) = new (?:Map|Set|WeakMap|WeakSet)\b/.exec(line)?.[1];
        const changed = collection && new RegExp(`\\b${collection}\\.(add|set|delete|clear)\\(`).test(text);
        if (/^(export )?(let|var) /.test(line) || changed) {
          stateful.push(`${file.slice(file.indexOf('src/'))}:${n + 1}: ${line.trim()}`);
        }
      }
      todo.push(...valueImports(file, text));
    }
    // The run's messages and the fingerprints are shared beside the schemas (shared-schemas.ts).
    const names = [...seen].map((f) => f.slice(f.indexOf('src/')));
    expect(names).toEqual(expect.arrayContaining(['src/protocol/run-messages.ts', 'src/approvals/fingerprint.ts']));
    expect(stateful).toEqual([]);
  });
});
