/**
 * The child process that bundles the run workflow for the bundle cache (cache.ts): webpack's
 * memory is this process's and goes when it exits. Takes the bundle options as JSON in its first
 * argument and writes the bundle's code to stdout.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import type { RunBundleOptions } from './cache.js';

const options = JSON.parse(process.argv[2] ?? '{}') as RunBundleOptions;
const ignore = () => undefined;
const logger = { log: ignore, trace: ignore, debug: ignore, info: ignore, warn: console.error, error: console.error };
const { code } = await bundleWorkflowCode({ ...options, logger });
process.stdout.write(code);
