/**
 * The test kit's dev server on a busy machine: the CLI can exit at start with a panic when another process
 * takes one of the inner ports it picked; the kit starts it again rather than failing the user's test.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '@temporalio/client';
import { startDevServer } from '../../src/testing/index.js';

const run = promisify(execFile);
let dir: string;
let realCli: string;

/** A CLI that panics like the dev server does for its first `panics` starts, then is the real one. */
async function flakyCli(name: string, panics: number): Promise<string> {
  const path = join(dir, name);
  const counter = join(dir, `${name}.count`);
  await writeFile(
    path,
    [
      '#!/usr/bin/env bash',
      `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n + 1)) > '${counter}'`,
      `if [ "$n" -lt ${panics} ]; then`,
      '  echo "time=x level=ERROR msg=starting" >&2',
      '  echo "panic: listen tcp 127.0.0.1:4$n: bind: address already in use" >&2',
      '  echo "goroutine 1 [running]:" >&2; exit 2',
      'fi',
      `exec '${realCli}' "$@"`,
    ].join('\n'),
    { mode: 0o755 },
  );
  return path;
}

const starts = async (name: string) => Number((await readFile(join(dir, `${name}.count`), 'utf8')).trim());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dev-server-start-'));
  realCli = (await run('bash', ['temporal-dev.sh', 'cli'])).stdout.trim();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('startDevServer on a busy machine', () => {
  it('starts the server again when it exits at start, and the server it returns answers', async () => {
    const cli = await flakyCli('twice', 2);
    const server = await startDevServer({ cli });
    try {
      expect(await starts('twice')).toBe(3);
      const connection = await Connection.connect({ address: server.address });
      await expect(connection.workflowService.getSystemInfo({})).resolves.toBeDefined();
      await connection.close();
    } finally {
      await server.stop();
    }
  });

  it('gives up after three starts, naming each panic', async () => {
    const cli = await flakyCli('always', 99);
    const failure = startDevServer({ cli });
    await expect(failure).rejects.toThrow(/exited at start 3 times/);
    await expect(failure).rejects.toThrow(
      /panic: listen tcp 127\.0\.0\.1:40: bind.*\| .*panic: listen tcp 127\.0\.0\.1:41/,
    );
    expect(await starts('always')).toBe(3);
  });
});
