/**
 * The closing line of `npm test` is what tools and people read: a file whose hooks fail or that fails to
 * load must count as failed there (a fresh machine once printed "797 passed, 0 failed" on a red run).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('counts a failed beforeAll and a file that fails to load as failures in the closing line', async () => {
  const root = join(import.meta.dirname, '../fixtures/reporter');
  const vitest = join(import.meta.dirname, '../../node_modules/vitest/vitest.mjs');
  const outcome = await run(process.execPath, [vitest, 'run', '--root', root], { cwd: root }).then(
    (done) => ({ code: 0, stdout: done.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  expect(outcome.code).not.toBe(0);
  expect(outcome.stdout.trim().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
});
