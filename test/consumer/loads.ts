// What importing one entry of the package loads, in a fresh process: the packages and how long it took.
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
// In-thread hooks see every resolution, by import and by require alike.
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    loaded.add(resolved.url);
    return resolved;
  },
});
const entry = process.argv[2]!;
const started = performance.now();
await import(entry);
const ms = Math.round(performance.now() - started);
const packages = new Set<string>();
for (const url of loaded) {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (name && name !== 'durable-agents') packages.add(name);
}
console.log(JSON.stringify({ packages: [...packages].sort(), ms }));
