import { recordsAgent } from './records-agent.js';
import { supervisorAgent } from './supervisor-agent.js';
import { supportAgent } from './support-agent.js';
import { weatherAgent } from './weather-agent.js';

/** The example agents, as the `worker` script and the demo register them (sub-agents come along). */
export const exampleAgents = [weatherAgent, recordsAgent, supervisorAgent, supportAgent];
