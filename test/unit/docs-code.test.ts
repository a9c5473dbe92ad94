/**
 * The docs cannot drift from the code: every ```ts block of README.md, CONTRIBUTING.md and docs/ type-checks
 * against src/, the README stays under 15 KB, and every relative link of the docs points to a file (and a
 * heading) that exists, and the agentctl reference is what agentctl's --help says (the global setup has
 * just built it). The checks are in test/docs/check-docs.ts (`npx tsx test/docs/check-docs.ts` runs
 * them alone).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
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

  it("give agentctl's reference as agentctl --help gives it", { timeout: 60_000 }, async () => {
    const PATH = [path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
    const checked = await promisify(execFile)('bash', ['test/docs/agentctl-help.sh', '--check'], {
      cwd: root,
      env: { ...process.env, PATH },
    }).catch((err: { stdout: string; stderr: string }) => err);
    expect('stderr' in checked ? checked.stderr : '').toBe('');
  });
});
