import { recordsAgent } from './records-agent.js';
import { weatherAgent } from './weather-agent.js';

/** The example agents, as the `worker` script and the demo register them. */
export const exampleAgents = [weatherAgent, recordsAgent];
