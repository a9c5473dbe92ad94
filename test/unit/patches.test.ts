/**
 * Every patch is listed once, in src/workflows/patches.ts, with the release that added it: no workflow
 * code asks `patched()` by itself, and every patch marker in a release's replay corpus is listed as
 * added by that release or an earlier one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATCHES } from '../../src/workflows/patches.js';
import { readCorpus } from '../histories/corpus.js';

const root = join(import.meta.dirname, '../..');
const histories = join(root, 'test/histories');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The patch ids a recorded history's markers hold. */
function markerIds(file: string): string[] {
  const { events } = JSON.parse(readFileSync(file, 'utf8')) as {
    events: Array<{
      markerRecordedEventAttributes?: { details?: Record<string, { payloads?: Array<{ data?: string }> }> };
    }>;
  };
  return events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data, 'base64').toString()) as { id: string }).id] : [];
  });
}

const byId = new Map(Object.values(PATCHES).map((p) => [p.id as string, p]));
const older = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true }) <= 0;

describe('the patches of the workflows', () => {
  it('are asked only through the list', () => {
    const asking = sourceFiles(join(root, 'src'))
      .filter((f) => !f.endsWith(join('workflows', 'patches.ts')))
      .filter((f) => /\b(patched|deprecatePatch)\s*\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(asking).toEqual([]);
  });

  it('each have their own marker id', () => {
    expect(byId.size).toBe(Object.keys(PATCHES).length);
  });

  it('are each listed with the release whose corpus first holds their marker, or an earlier one', () => {
    const { cases } = readCorpus(histories);
    const unlisted: string[] = [];
    const tooNew: string[] = [];
    for (const { version, file } of cases) {
      for (const id of markerIds(join(histories, version, file))) {
        const patch = byId.get(id);
        if (!patch) unlisted.push(`${id} (${version}/${file})`);
        else if (!older(patch.release, version))
          tooNew.push(`${id}: listed as ${patch.release}, in ${version}/${file}`);
      }
    }
    expect(unlisted).toEqual([]);
    expect(tooNew).toEqual([]);
  });

  it('were each added by a release this package has had, or by the next one', () => {
    const { versions } = readCorpus(histories);
    // The release being made records its corpus when it is cut (test/histories/record.ts).
    const [major, minor] = versions.at(-1)!.split('.').map(Number);
    const next = `${major}.${minor! + 1}.0`;
    const unknown = Object.values(PATCHES).filter((p) => !versions.includes(p.release) && p.release !== next);
    expect(unknown).toEqual([]);
  });
});
