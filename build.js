// The build (`npm run build`; `npm ci` runs it as `prepare`, the tests' global setup before every run):
// compiles agentctl to dist/, so that bin/agentctl.js starts JavaScript, not TypeScript through tsx.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

// Paths are this folder's, whatever the working directory: it removes a folder.
const root = import.meta.dirname;
// Chunk names carry a hash of their content: without this, every change would leave old chunks behind.
await rm(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { agentctl: 'src/client/agentctl.ts' },
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
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  logLevel: 'warning',
});
