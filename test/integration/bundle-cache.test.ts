/**
 * The workflow bundle cache: the first worker builds the bundle and keeps it with a manifest of its
 * files; the next one reads it; one whose files changed since (here: a manifest whose hash no longer
 * matches its file) is built again. Every worker runs a run to its end on the bundle it got.
 */
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { defineAgent } from '../../src/index.js';
import { createWorker, workflowsPath } from '../../src/worker/index.js';
import { temporalAddress } from '../helpers.js';

const agent = defineAgent({ id: 'bundled-agent', name: 'Bundled', instructions: 'Say hi.', model: 'scripted' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundle-cache-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts a worker on the cache, runs one run to its end, stops; the run's text. */
async function runOnce(cacheDir = dir): Promise<string> {
  const common = { address: temporalAddress(), namespace: 'default', taskQueue: `bundle-${Date.now()}` };
  const worker = await createWorker({
    ...common,
    agents: [agent],
    enableScriptedModel: true,
    notifications: false,
    tracing: false,
    externalStorage: false,
    workflowBundleCache: cacheDir,
  });
  const running = worker.run();
  const client = await AgentClient.connect({ ...common, tracing: false, externalStorage: false });
  try {
    const result = await client.generate('bundled-agent', 'hi', { model: 'scripted', script: [{ text: 'hi there' }] });
    return result.text;
  } finally {
    worker.shutdown();
    await running;
    await client.close();
  }
}

async function cached() {
  const names = await readdir(dir);
  const code = join(
    dir,
    names.find((n) => n.endsWith('.js'))!,
  );
  const manifest = join(
    dir,
    names.find((n) => n.endsWith('.json'))!,
  );
  return { names, code, manifest, builtAt: (await stat(code)).mtimeMs };
}

describe('the workflow bundle cache', () => {
  it('builds the bundle once, reads it on the next start, and builds again when a file in it changed', async () => {
    expect(await runOnce()).toBe('hi there');
    const first = await cached();
    expect(first.names.sort()).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.js$/), expect.stringMatching(/\.json$/)]);
    const { files } = JSON.parse(await readFile(first.manifest, 'utf8')) as { files: [string, string][] };
    expect(files.map(([path]) => path)).toContain(workflowsPath);

    expect(await runOnce()).toBe('hi there');
    expect((await cached()).builtAt).toBe(first.builtAt);

    const { code } = JSON.parse(await readFile(first.manifest, 'utf8')) as { code: string };
    const changed = files.map(([path, hash]) => [path, path === workflowsPath ? '0'.repeat(64) : hash]);
    await writeFile(first.manifest, JSON.stringify({ code, files: changed }));
    expect(await runOnce()).toBe('hi there');
    const rebuilt = await cached();
    expect(rebuilt.builtAt).toBeGreaterThan(first.builtAt);
    expect(JSON.parse(await readFile(rebuilt.manifest, 'utf8'))).toEqual({ code, files });

    // Code that is not the manifest's (another worker's, or changed by hand) is not run: it is built again.
    await writeFile(rebuilt.code, `${await readFile(rebuilt.code, 'utf8')}\n// changed`);
    const changedAt = (await cached()).builtAt;
    expect(await runOnce()).toBe('hi there');
    expect((await cached()).builtAt).toBeGreaterThan(changedAt);
    expect(await readFile(rebuilt.code, 'utf8')).not.toContain('// changed');

    // A damaged manifest is built again, not a worker that fails to start.
    await writeFile(rebuilt.manifest, '{"files": nul');
    expect(await runOnce()).toBe('hi there');
    expect(JSON.parse(await readFile(rebuilt.manifest, 'utf8'))).toEqual({ code: expect.any(String), files });
  });

  it('neither reads nor writes a folder that others may write', async () => {
    const shared = await mkdtemp(join(tmpdir(), 'bundle-shared-'));
    await chmod(shared, 0o777);
    try {
      expect(await runOnce(shared)).toBe('hi there');
      expect(await readdir(shared)).toEqual([]);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  it('refuses a cache folder that is not absolute, before it connects', async () => {
    await expect(
      createWorker({ agents: [agent], address: '127.0.0.1:1', workflowBundleCache: 'cache' }),
    ).rejects.toThrow('createWorker: workflowBundleCache is an absolute folder or false, not "cache"');
  });
});
