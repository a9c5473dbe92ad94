// The build (`npm run build`; `npm ci` runs it as `prepare`):
// - lib/: the library compiled by tsc, JavaScript with type declarations, the layout of src/ (the package's
//   exports point here; the worker finds the workflow bundle's entry, lib/workflows/index.js, beside it), and
//   the inbox page's files (src/server/inbox: HTML, its ES modules, CSS), copied as they are;
//   and the chat page's HTML and CSS (src/server/chat);
// - dist/: agentctl bundled by esbuild, so that bin/agentctl.js starts JavaScript, not TypeScript through tsx;
// - dist/chat/: the chat page's script (React and the AI SDK's useChat) bundled by esbuild for browsers. The
//   server finds it at ../../dist/chat from src/server and from lib/server alike.
// `node build.js agentctl`, `node build.js lib` or `node build.js chat` builds one of them (the tests' global
// setup rebuilds agentctl and the chat page before every run; the package test compiles lib/ before it packs).
import { execFile } from 'node:child_process';
import { cp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, transform } from 'esbuild';

// Paths are this folder's, whatever the working directory: it removes folders.
const root = import.meta.dirname;
const targets = { lib: buildLib, agentctl: buildAgentctl, chat: buildChat };
const asked = process.argv.slice(2);
const unknown = asked.filter((t) => !(t in targets));
if (unknown.length > 0) {
  console.error(`build.js: unknown target ${unknown.join(', ')}; the targets are ${Object.keys(targets).join(', ')}`);
  process.exit(2);
}
for (const target of asked.length > 0 ? asked : Object.keys(targets)) await targets[target]();

async function buildLib() {
  // A file removed from src/ must not linger in lib/ (tsc never deletes).
  await rm(join(root, 'lib'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root }).catch((err) => {
    console.error(err.stdout || err.message);
    process.exit(1);
  });
  await guardEntries();
  // The inbox page's files are served as they are (no build step): tsc does not copy them.
  await cp(join(root, 'src/server/inbox'), join(root, 'lib/server/inbox'), { recursive: true });
  for (const file of ['chat.html', 'chat.css']) {
    await cp(join(root, 'src/server/chat', file), join(root, 'lib/server/chat', file));
  }
}

/**
 * The entries whose packages are optional peers (lib/peers.js lists them): their index.js first checks
 * that the peers are installed, naming any that is not with the command that installs it, then loads
 * the entry's own module (compiled as entry-api.js) with require, which Node 22 does for ES modules. A
 * static import would fail before any check could run, with Node's "Cannot find package".
 */
async function guardEntries() {
  const { SERVER_PEERS, TRACING_PEERS, WORKER_PEERS } = await import(pathToFileURL(join(root, 'lib/peers.js')).href);
  const guarded = {
    server: ['durable-agents/server', SERVER_PEERS],
    worker: ['durable-agents/worker', WORKER_PEERS],
    testing: ['durable-agents/testing', WORKER_PEERS],
    tracing: ['durable-agents/tracing', TRACING_PEERS],
  };
  for (const [folder, [entry, peers]] of Object.entries(guarded)) {
    const dir = join(root, 'lib', folder);
    await rename(join(dir, 'index.js'), join(dir, 'entry-api.js'));
    const names = Object.keys(await import(pathToFileURL(join(dir, 'entry-api.js')).href));
    const code = [
      `// The ${entry} entry: its peers checked, then its module loaded (see build.js, guardEntries).`,
      "import { createRequire } from 'node:module';",
      "import { requirePeers } from '../peers.js';",
      `requirePeers(${JSON.stringify(entry)}, ${JSON.stringify(peers)});`,
      "const api = createRequire(import.meta.url)('./entry-api.js');",
      `export const { ${names.join(', ')} } = api;`,
      '',
    ];
    await writeFile(join(dir, 'index.js'), code.join('\n'));
  }
}

async function buildAgentctl() {
  // Chunk names carry a hash of their content: without this, every change would leave old chunks behind.
  // The chat page's bundle (dist/chat) is another target's.
  const old = await readdir(join(root, 'dist')).catch(() => []);
  for (const name of old.filter((n) => n !== 'chat'))
    await rm(join(root, 'dist', name), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { agentctl: 'src/cli/agentctl.ts' },
    outdir: 'dist',
    bundle: true,
    // Every lazy import() gets chunks of its own, so --help reads the command line's code and nothing of
    // the Temporal client.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // Packages are bundled too: loaded from node_modules, the Temporal client, gRPC and protobufjs are
    // hundreds of CommonJS files to resolve and read, about 300 ms of every command. Their require() calls
    // of Node built-ins need a require, which ES modules do not have.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    // The S3 payload store's packages are optional: loaded from node_modules where installed, only when
    // DURABLE_AGENTS_PAYLOAD_STORE names a bucket; so is the MCP SDK, loaded only by `agentctl mcp`.
    external: [
      '@aws-sdk/client-s3',
      '@temporalio/external-storage-s3',
      '@temporalio/external-storage-s3-aws-sdk',
      '@modelcontextprotocol/sdk',
    ],
    plugins: [clientProtos()],
    logLevel: 'warning',
  });
  await eagerWrappers(join(root, 'dist'));
}

/**
 * esbuild wraps every bundled CommonJS module (and lazily initialised ES module) in a method that V8
 * compiles only when it is first called, so the compile cache bin/agentctl.js enables never holds them and
 * every command compiles them again: about 20 ms. A function in parentheses is compiled eagerly, and
 * cached. A wrapper of another shape fails the build: the rewrite must reach every one.
 */
async function eagerWrappers(dir) {
  const wrapper =
    /^(var \w+ = __(?:commonJS|esm)\(\{\n {2})("[^"\n]+")\(([\w, ]*)\) \{\n(?:([\s\S]*?)\n)?? {2}\}\n\}\);$/gm;
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dir, name);
    const code = await readFile(file, 'utf8');
    const wrappers = code.match(/= __(?:commonJS|esm)\(\{$/gm)?.length ?? 0;
    let rewritten = 0;
    const eager = code.replace(wrapper, (_, head, key, params, body) => {
      rewritten++;
      return `${head}${key}: (function(${params}) {\n${body === undefined ? '' : `${body}\n`}  })\n});`;
    });
    if (rewritten !== wrappers) {
      throw new Error(
        `${file}: ${rewritten} of ${wrappers} module wrappers made eager: esbuild's output has changed shape; ` +
          'update the pattern in eagerWrappers (build.js) to it',
      );
    }
    if (rewritten === 0) continue;
    // A rewrite that broke the code (a module holding a wrapper's closing lines as text) fails here, not at load.
    await transform(eager, { loader: 'js', format: 'esm', logLevel: 'silent' }).catch((err) => {
      throw new Error(
        `${file}: the eager module wrappers do not parse (${err.message}); fix eagerWrappers in build.js`,
      );
    });
    await writeFile(file, eager);
  }
}

/**
 * The Temporal protocol's descriptor without what a client never sends or reads: the worker's core SDK
 * messages (`coresdk`) and Temporal Cloud's operations API (`temporal.api.cloud`), a third of its 1.4 MB.
 * protobufjs reads the whole descriptor at load (`Root.addJSON`), about 45 ms of every agentctl command.
 * A descriptor of another shape fails the build rather than shipping untrimmed: the figure is a promise.
 */
function clientProtos() {
  return {
    name: 'client-protos',
    setup: (b) =>
      b.onLoad({ filter: /@temporalio[\\/]proto[\\/]protos[\\/]json-module\.js$/ }, async ({ path }) => {
        const source = await readFile(path, 'utf8');
        const start = source.indexOf('.addJSON(') + '.addJSON('.length;
        const end = source.lastIndexOf('});');
        const descriptor = start > '.addJSON('.length && end > start ? JSON.parse(source.slice(start, end + 1)) : {};
        const api = descriptor.temporal?.nested?.api?.nested;
        if (!descriptor.coresdk || !api?.cloud || !api.workflowservice) {
          throw new Error(
            `${path}: not the descriptor build.js trims (no coresdk, cloud or workflowservice): ` +
              '@temporalio/proto has changed shape; update clientProtos in build.js to it',
          );
        }
        delete descriptor.coresdk;
        delete api.cloud;
        return { contents: source.slice(0, start) + JSON.stringify(descriptor) + source.slice(end + 1), loader: 'js' };
      }),
  };
}

async function buildChat() {
  await rm(join(root, 'dist/chat'), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { chat: 'src/server/chat/chat.js' },
    outdir: 'dist/chat',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    // React's production build: its development one is larger and slower.
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'linked',
    logLevel: 'warning',
  });
}
