/** The workflows a worker registers; this file is the workflow bundle's entry point. */
export { agentRun } from './run/agent-run.js';
export { listAgentTools } from './list-tools.js';
export { agentThread } from './thread/agent-thread.js';
export { agentGrants } from './grants/grant-book.js';
