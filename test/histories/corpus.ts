/**
 * The replay corpus on disk: test/histories/<version>/*.json, one folder per release (see
 * test/histories/record.ts and docs/upgrading.md). Read by test/integration/replay.test.ts.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A history to replay: the release that recorded it, and its file in that release's folder. */
export interface CorpusCase {
  version: string;
  file: string;
}

/** What a corpus folder holds: the releases with a corpus, oldest first, and stray files beside them. */
export interface Corpus {
  versions: string[];
  /** Histories outside any release's folder: they would replay as no release's, so none may be there. */
  strayHistories: string[];
  cases: CorpusCase[];
}

/** Every release's folder in `root` and every history in each, whatever the releases are called. */
export function readCorpus(root: string): Corpus {
  const entries = readdirSync(root);
  const versions = entries
    .filter((e) => statSync(join(root, e)).isDirectory())
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const cases = versions.flatMap((version) =>
    readdirSync(join(root, version))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => ({ version, file })),
  );
  return { versions, strayHistories: entries.filter((e) => e.endsWith('.json')), cases };
}
