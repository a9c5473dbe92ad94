/** The workflows a worker registers; this file is the workflow bundle's entry point. */
import { setWorkflowOptions } from '@temporalio/workflow';
import { agentThread } from './agent-thread.js';

export { agentRun } from './agent-run.js';
export { listAgentTools } from './list-tools.js';
export { agentThread };

// A thread lives as long as its conversation and continues as new on and on: pinned, it would keep its
// first build's workers alive forever. It moves to the current build instead (on a versioned worker;
// unversioned ones ignore this), so its code must replay the histories of earlier builds. Runs take the
// worker's default behaviour (see DEFAULT_VERSIONING_BEHAVIOR in src/versioning.ts).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, agentThread);
