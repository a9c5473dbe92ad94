// Bundles workflows.ts as a worker given `workflowBundle` would be: proof that the workflow entry is sandbox-safe.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from 'durable-agents';

const { code } = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  ...workflowBundleOptions,
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
});
console.log(`bundled ${code.length} bytes`);
