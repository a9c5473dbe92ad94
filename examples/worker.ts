/** `npm run worker`: a worker for the example agents, configured from the environment. */
import { runWorker } from '../src/index.js';
import { exampleAgents } from './agents.js';

await runWorker({ agents: exampleAgents });
