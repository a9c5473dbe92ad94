import { defineAgent, type RunOptions } from '../src/index.js';
import { deleteRecordScript, recordsAgent } from './records-agent.js';

/** The middle of the chain: it delegates record work to records-agent (`agent-records`). */
export const opsAgent = defineAgent({
  id: 'ops-agent',
  name: 'Operations agent',
  description: 'Handles operational requests by delegating to specialists',
  instructions: 'You handle operations. Delegate anything about stored records to the records agent.',
  model: 'scripted',
  // The demo runs it on the scripted model, or with DEMO_MODEL on another one.
  overridable: ['model'],
  agents: { records: recordsAgent },
});

/**
 * The top of a three-level chain: supervisor -> ops-agent -> records-agent. A deletion three levels
 * down waits for approval, and the approval is asked for, and given, at the supervisor's run.
 */
export const supervisorAgent = defineAgent({
  id: 'supervisor',
  name: 'Supervisor',
  description: 'Takes requests and hands them to the operations agent',
  instructions: 'You supervise. Hand every request to the operations agent and report its answer.',
  model: 'scripted',
  // The demo runs it on the scripted model, or with DEMO_MODEL on another one.
  overridable: ['model'],
  agents: { ops: opsAgent },
});

/** Scripts for the whole chain, as run options: each level's script, and its sub-agents' options. */
export const supervisorDeleteOptions: RunOptions = {
  model: 'scripted',
  script: [
    { toolCalls: [{ toolName: 'agent-ops', args: { prompt: 'Delete the old customer list (record r2).' } }] },
    { text: 'The operations agent deleted r2.' },
  ],
  subAgentOptions: {
    ops: {
      model: 'scripted',
      script: [
        { toolCalls: [{ toolName: 'agent-records', args: { prompt: 'Delete record r2.' } }] },
        { text: 'Records agent confirmed: r2 is deleted.' },
      ],
      subAgentOptions: { records: { model: 'scripted', script: deleteRecordScript } },
    },
  },
};
