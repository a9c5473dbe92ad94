/** The replay test replays every release's corpus: a new release's folder is picked up beside the old ones. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCorpus } from '../histories/corpus.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

function corpusOf(files: Record<string, string[]>, stray: string[] = []): string {
  root = mkdtempSync(join(tmpdir(), 'corpus-'));
  for (const [version, names] of Object.entries(files)) {
    mkdirSync(join(root, version));
    for (const name of names) writeFileSync(join(root, version, name), '{}');
  }
  for (const name of stray) writeFileSync(join(root, name), '');
  return root;
}

describe('the replay corpus', () => {
  it('holds every release folder, oldest first by version, and every history in each', () => {
    const corpus = readCorpus(
      corpusOf({
        '0.10.0': ['a.json'],
        '0.1.0': ['weather-agent.json', 'thread-turn.json', 'notes.txt'],
        '0.2.0': ['weather-agent.json'],
      }),
    );
    expect(corpus.versions).toEqual(['0.1.0', '0.2.0', '0.10.0']);
    expect(corpus.cases).toEqual([
      { version: '0.1.0', file: 'thread-turn.json' },
      { version: '0.1.0', file: 'weather-agent.json' },
      // The same history of a later release is replayed too, as its own case.
      { version: '0.2.0', file: 'weather-agent.json' },
      { version: '0.10.0', file: 'a.json' },
    ]);
    expect(corpus.strayHistories).toEqual([]);
  });

  it('tells apart a history left outside every release folder', () => {
    const corpus = readCorpus(corpusOf({ '0.1.0': ['a.json'] }, ['b.json', 'record.ts']));
    expect(corpus.strayHistories).toEqual(['b.json']);
    expect(corpus.cases).toEqual([{ version: '0.1.0', file: 'a.json' }]);
  });
});
