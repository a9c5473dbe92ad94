/**
 * The docs cannot drift from the code: every ```ts block of README.md, CONTRIBUTING.md and docs/ type-checks
 * against src/, the README stays under 15 KB, and every relative link of the docs points to a file (and a
 * heading) that exists. The checks are in test/docs/check-docs.ts (`npx tsx test/docs/check-docs.ts` runs
 * them alone).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, checkCode, root } from '../docs/check-docs.js';

describe('the docs', () => {
  it('keep the README at most 15,000 bytes', () => {
    expect(statSync(path.join(root, 'README.md')).size).toBeLessThanOrEqual(15_000);
  });

  it('link only to files and headings that exist', () => {
    const broken = brokenLinks();
    expect(broken.length, `broken links:\n${broken.join('\n')}`).toBe(0);
  });

  it('hold TypeScript blocks that type-check against the code', { timeout: 180_000 }, () => {
    const { blocks, fragments, errors } = checkCode();
    expect(blocks).toBeGreaterThan(0);
    // A fragment is the exception: a complete block is one a reader can copy.
    expect(fragments).toBeLessThanOrEqual(Math.ceil(blocks / 10));
    expect(errors.length, `${errors.length} errors in the docs' code:\n${errors.join('\n')}`).toBe(0);
  });
});
