/**
 * The run workflow's bundle, built once and kept by content: webpack runs in a child process on the
 * first start (the worker never loads it, so it idles at about 300 MiB rather than 500), and later
 * starts read the bundle from the cache as long as every file in it is unchanged.
 *
 * A bundle is named by what it was built from (its options and the SDK's version) and kept with a
 * manifest of every module it holds and the SHA-256 of that file; a worker uses it only when each file
 * still hashes the same, so an upgraded dependency or an edited workflow file builds a new bundle.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { lstat, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warnWorker } from '../runtime-log.js';

/** What the run workflow's bundle is built from: paths only, so that a child process can build it. */
export interface RunBundleOptions {
  workflowsPath: string;
  workflowInterceptorModules: string[];
  preloadModules: string[];
  failureConverterPath?: string;
}

/** The environment variable that names the cache folder, or `off`. */
export const BUNDLE_CACHE_ENV = 'DURABLE_AGENTS_WORKFLOW_BUNDLE_CACHE';

/** The cache folder: `given`, else the environment's, else `~/.cache/durable-agents/workflow-bundles`. */
export function bundleCacheDir(given: string | false | undefined): string | undefined {
  if (given === false) return undefined;
  if (given !== undefined) {
    if (typeof given !== 'string' || !isAbsolute(given)) {
      throw new TypeError(
        `createWorker: workflowBundleCache is an absolute folder or false, not ${JSON.stringify(given)}`,
      );
    }
    return given;
  }
  const env = process.env[BUNDLE_CACHE_ENV]?.trim();
  if (env === 'off') return undefined;
  if (env) {
    if (!isAbsolute(env))
      throw new TypeError(`${BUNDLE_CACHE_ENV} is an absolute folder or off, not ${JSON.stringify(env)}`);
    return env;
  }
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'durable-agents', 'workflow-bundles');
}

/** A bundle's manifest: the code's SHA-256, and each module file it holds with its SHA-256 when it was built. */
interface Manifest {
  code: string;
  files: Array<[path: string, sha256: string]>;
}

/**
 * The module files a bundle holds, absolute: webpack names each `/***\/ "./path"` relative to the
 * folder it ran in (`context`). Modules it replaced by nothing (`?1a2b`) are no files.
 */
export function bundledFiles(code: string, context: string): string[] {
  const files = new Set<string>();
  for (const [, id] of code.matchAll(/^\/\*{3}\/ "(\.{1,2}\/[^"?!]+)"/gm)) files.add(resolve(context, id!));
  return [...files].sort();
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

async function fileHash(path: string): Promise<string | undefined> {
  return readFile(path).then(sha256, () => undefined);
}

/** Whether every file of the manifest is still what the bundle was built from. */
function manifestOf(value: unknown): Manifest | undefined {
  const { code, files } = (value ?? {}) as Partial<Manifest>;
  const pairs = Array.isArray(files) && files.every((f) => Array.isArray(f) && f.every((x) => typeof x === 'string'));
  return typeof code === 'string' && pairs ? { code, files } : undefined;
}

async function stillFresh(manifest: Manifest): Promise<boolean> {
  if (manifest.files.length === 0) return false;
  const hashes = await Promise.all(manifest.files.map(([path]) => fileHash(path)));
  return manifest.files.every(([, hash], i) => hashes[i] === hash);
}

function bundleKey(options: RunBundleOptions): string {
  const sdk = (createRequire(import.meta.url)('@temporalio/worker/package.json') as { version: string }).version;
  return sha256(JSON.stringify({ options, sdk })).slice(0, 32);
}

/**
 * The run workflow's bundle for `Worker.create({ workflowBundle })`: from the cache when it is fresh,
 * else built (in a child process when it can be, else here) and cached. Where the folder cannot be
 * trusted or written (others may write it, a read-only home), the bundle is used from memory.
 */
export async function cachedRunBundle(
  options: RunBundleOptions,
  dir: string,
): Promise<{ codePath: string } | { code: string }> {
  const key = bundleKey(options);
  const codePath = join(dir, `${key}.js`);
  const manifestPath = join(dir, `${key}.json`);
  const trusted = await ownFolder(dir);
  if (trusted === true) {
    // A manifest that is not one (damaged, or written by hand) means: build again, never a worker that fails.
    const manifest = await readFile(manifestPath, 'utf8')
      .then((text) => manifestOf(JSON.parse(text)))
      .catch(() => undefined);
    // The code is the manifest's own (two workers writing at once cannot pair one's code with the other's files).
    if (manifest && (await fileHash(codePath)) === manifest.code && (await stillFresh(manifest))) return { codePath };
  }

  const startedAt = Date.now();
  const code = await buildInChild(options).catch((err: unknown) => {
    warnWorker(`bundling in a child process failed, so the worker bundles itself: ${(err as Error).message}`);
    return buildHere(options);
  });
  const files = bundledFiles(code, process.cwd());
  const hashes = await Promise.all(files.map(async (path) => [path, (await fileHash(path)) ?? ''] as [string, string]));
  // A file saved while webpack read it may be newer than the code: keep such a bundle for this start only.
  const stamps = await Promise.all(
    files.map((path) =>
      stat(path).then(
        (s) => s.mtimeMs,
        () => Infinity,
      ),
    ),
  );
  if (stamps.some((mtime) => mtime >= startedAt - 1000)) return { code };
  if (trusted !== true) {
    warnWorker(`not caching the workflow bundle in ${dir}: ${trusted}; the worker bundles at every start`);
    return { code };
  }
  try {
    // Written beside under a name nobody can foresee, then renamed: a worker starting at the same time
    // reads a whole file or none.
    const tmp = `.${randomUUID()}.tmp`;
    await writeFile(codePath + tmp, code, { mode: 0o600, flag: 'wx' });
    await rename(codePath + tmp, codePath);
    const manifest: Manifest = { code: sha256(code), files: hashes };
    await writeFile(manifestPath + tmp, JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
    await rename(manifestPath + tmp, manifestPath);
    return { codePath };
  } catch (err) {
    warnWorker(
      `cannot cache the workflow bundle in ${dir} (${(err as Error).message}): the worker bundles at every start; ` +
        `name a writable folder with ${BUNDLE_CACHE_ENV}`,
    );
    return { code };
  }
}

/**
 * Whether the folder may hold code this worker runs: created for this user alone if missing, else a real
 * folder of this user's that nobody else may write. Otherwise why not.
 */
async function ownFolder(dir: string): Promise<true | string> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const info = await lstat(dir);
    if (!info.isDirectory()) return 'it is not a folder (a link, or a file)';
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid) return `it belongs to user ${info.uid}, not to this worker's (${uid})`;
    if ((info.mode & 0o022) !== 0) return `others may write it (mode ${(info.mode & 0o777).toString(8)})`;
    return true;
  } catch (err) {
    return `it cannot be made (${(err as Error).message})`;
  }
}

const childPath = fileURLToPath(new URL(`./child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

/** Bundles in a child process, so that webpack's memory goes with it; the code comes back on stdout. */
async function buildInChild(options: RunBundleOptions): Promise<string> {
  // The parent's loaders (tsx) come along; a debugger's port would clash.
  const nodeArgs = process.execArgv.filter((arg) => !/^--(inspect|debug)/.test(arg));
  const child = spawn(process.execPath, [...nodeArgs, childPath, JSON.stringify(options)], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2000)));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the bundling process exited with ${code}: ${err.trim()}`);
  return Buffer.concat(out).toString('utf8');
}

async function buildHere(options: RunBundleOptions): Promise<string> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  return (await bundleWorkflowCode({ ...options, logger: quietLogger })).code;
}

const ignore = () => undefined;
/** The bundler's progress lines are noise in a worker's log; its warnings and errors are not. */
export const quietLogger = {
  log: ignore,
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: (message: string) => warnWorker(message),
  error: (message: string) => warnWorker(message),
};
