/**
 * Where the run workflow's bundle comes from, and what every bundle of it needs: plain paths and
 * numbers, loaded without the worker (the root entry's deprecated names read them).
 */
import { fileURLToPath } from 'node:url';

/** The workflow bundle's entry file (`.ts` under tsx and vitest, `.js` once compiled). */
export const workflowsPath = fileURLToPath(
  new URL(`../../workflows/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * The workflow interceptor modules every bundle of the run workflow must include (tracing: see
 * src/workflows/trace-interceptors.ts). `createWorker` adds them when it bundles; give them to
 * `bundleWorkflowCode({ workflowsPath, workflowInterceptorModules })` when you bundle yourself.
 */
export const workflowInterceptorModules = [
  fileURLToPath(
    new URL(`../../workflows/trace-interceptors${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
  ),
];

/**
 * The modules every run of a bundle shares instead of instantiating its own (Temporal's
 * `preloadModules`): the schema modules and zod, most of what a run held in the worker (see
 * src/workflows/shared-schemas.ts). `createWorker` preloads them when it bundles.
 */
export const workflowPreloadModules = [
  fileURLToPath(
    new URL(`../../workflows/shared-schemas${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
  ),
];

/**
 * What a workflow bundle of the run workflow needs beside its `workflowsPath`: give it to
 * `bundleWorkflowCode({ workflowsPath, ...workflowBundleOptions })` when you bundle yourself.
 */
export const workflowBundleOptions = {
  workflowInterceptorModules,
  preloadModules: workflowPreloadModules,
};

/**
 * How many runs a worker keeps in its workflow cache by default (`workerOptions.maxCachedWorkflows`).
 * The SDK's default is sized by the heap (about 2,300 runs on a 4 GiB heap), so a worker with many
 * runs waiting for a decision kept every one of them. The least recently used run goes first, which
 * is a run that waits: when its decision arrives, the next workflow task replays its history (about
 * 50 ms more for a short run here; see bench/README.md). Raise it for a worker that runs more than
 * this many runs at once (each step of an evicted run would replay).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 100;
