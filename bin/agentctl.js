#!/usr/bin/env node
// The agentctl executable: runs the compiled CLI in dist/ (see build.js), not the TypeScript source,
// whose start through tsx took most of a second.
import { existsSync } from 'node:fs';
import module from 'node:module';

const built = new URL('../dist/agentctl.js', import.meta.url);
if (!existsSync(built)) {
  console.error('agentctl: not built (dist/agentctl.js is missing): run `npm run build`, which `npm ci` also runs');
  process.exit(1);
}
// V8's compiled code for dist/, kept between runs (in the OS temp folder): about 15% off a command that
// loads the Temporal client. Node 20 has no such cache and runs without it.
module.enableCompileCache?.();
// A reader that stops early (`agentctl runs list | head -1`) closes the pipe: that ends the output, quietly,
// with the command's own exit code, rather than crashing on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}
const { main } = await import(built.href);
process.exitCode = await main(process.argv.slice(2));
