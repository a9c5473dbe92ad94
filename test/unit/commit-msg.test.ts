/** The commit-msg hook the repository installs (.githooks, `npm install` sets core.hooksPath). */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const hook = join(import.meta.dirname, '../../.githooks/commit-msg');

async function check(message: string): Promise<{ ok: boolean; stderr: string }> {
  const file = join(await mkdtemp(join(tmpdir(), 'commit-msg-')), 'MSG');
  await writeFile(file, message);
  return run('bash', [hook, file]).then(
    () => ({ ok: true, stderr: '' }),
    (err: { stderr: string }) => ({ ok: false, stderr: err.stderr }),
  );
}

it('takes a subject of at most 72 characters with the why in the body', async () => {
  expect(await check(`${'s'.repeat(72)}\n\nWhy, and the figures.\n`)).toEqual({ ok: true, stderr: '' });
  expect(await check('Short subject\n# a comment git strips\n')).toMatchObject({ ok: true });
});

it('refuses a longer subject, an empty one, and a body glued to the subject, saying why', async () => {
  expect((await check(`${'s'.repeat(73)}\n`)).stderr).toMatch(/73 characters, at most 72/);
  expect((await check('\n\nbody\n')).stderr).toMatch(/subject \(first line\) is empty/);
  expect((await check('subject\nbody right after\n')).stderr).toMatch(/leave the second line empty/);
});
