/** `npm run worker`: a worker for the example agents, configured from the environment. */
import { runWorker } from '../src/worker/index.js';
import { exampleAgents } from './agents.js';

// The example agents run on the offline scripted model.
await runWorker({ agents: exampleAgents, enableScriptedModel: true });
