/**
 * What adopting the package costs a process: the cold import time of each entry beside
 * `@temporalio/client`'s (each import in a fresh Node process, the entries interleaved so that a noisy
 * moment hits them all), and the installed size and package count of a client-only application
 * (the packed package and its peers, nothing else). `npm run bench -- --only entries`, or alone:
 * `tsx bench/entries.ts [--reps N] [--compare <path to an earlier checkout with lib/ built>]`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fmt, summarize, type Summary } from './stats.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('..', import.meta.url));

/** The entries, by the module a user imports, resolved in this repository's lib/ (built first). */
const ENTRIES: Record<string, string> = {
  '@temporalio/client': '@temporalio/client',
  'durable-agents': './lib/index.js',
  'durable-agents/client': './lib/client/index.js',
  'durable-agents/workflow': './lib/workflow.js',
  'durable-agents/worker': './lib/worker/index.js',
};

/** One cold import in a fresh process: milliseconds from before `import()` to after it. */
async function coldImport(specifier: string, cwd: string): Promise<number> {
  const target = specifier.startsWith('.') ? pathToFileURL(join(cwd, specifier)).href : specifier;
  const code = `const t=performance.now();await import(${JSON.stringify(target)});console.log(performance.now()-t)`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd });
  return Number(stdout.trim());
}

/** Cold import times of every entry, `reps` rounds, the entries in a different order each round. */
export async function entryImports(reps: number, cwd = repo): Promise<Record<string, Summary>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ENTRIES).map((e) => [e, []]));
  const names = Object.keys(ENTRIES);
  for (let round = 0; round < reps; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) times[name]!.push(await coldImport(ENTRIES[name]!, cwd));
  }
  return Object.fromEntries(Object.entries(times).map(([e, t]) => [e, summarize(t)]));
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** Installs the package packed from `checkout` alone (with its required peers) and measures node_modules. */
export async function clientOnlyInstall(checkout = repo): Promise<{ bytes: number; packages: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'durable-agents-install-'));
  try {
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: checkout,
    });
    const { filename } = (JSON.parse(stdout) as { filename: string }[])[0]!;
    const app = join(dir, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}');
    // npm installs required peers (zod, ai) itself; optional peers (the server's, tracing's) are left out.
    await run('npm', ['install', join(dir, filename), '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app });
    const { stdout: tree } = await run('npm', ['ls', '--all', '--parseable'], { cwd: app });
    const packages = new Set(tree.trim().split('\n').slice(1)).size;
    return { bytes: await folderBytes(join(app, 'node_modules')), packages };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Prints the section's markdown and returns its figures. */
export async function entriesSection(
  say: (line: string) => void,
  options: { reps: number; compare?: string },
): Promise<Record<string, unknown>> {
  await run(process.execPath, ['build.js', 'lib'], { cwd: repo });
  const imports = await entryImports(options.reps);
  const client = imports['@temporalio/client']!.median;
  say(`## Cold import of each entry (${options.reps} fresh processes each, interleaved)`);
  say('');
  say('| entry | median ms | min-max ms | × `@temporalio/client` |');
  say('|---|---|---|---|');
  for (const [entry, s] of Object.entries(imports)) {
    say(`| \`${entry}\` | ${fmt(s.median, 0)} | ${fmt(s.min, 0)}-${fmt(s.max, 0)} | ${fmt(s.median / client, 2)} |`);
  }
  say('');
  const now = await clientOnlyInstall();
  const before = options.compare ? await clientOnlyInstall(options.compare) : undefined;
  say('## A client-only application: `npm install durable-agents` and its required peers');
  say('');
  say('| build | installed MiB | packages |');
  say('|---|---|---|');
  say(`| this one | ${fmt(now.bytes / 2 ** 20, 1)} | ${now.packages} |`);
  if (before) say(`| ${options.compare} | ${fmt(before.bytes / 2 ** 20, 1)} | ${before.packages} |`);
  say('');
  return { imports, install: now, ...(before ? { installBefore: before } : {}) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  await entriesSection(console.log, { reps: Number(arg('--reps') ?? 5), compare: arg('--compare') });
}
