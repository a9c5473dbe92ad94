// The user's worker: bundles the run workflows from the installed package (its workflowsPath).
import { runWorker } from 'durable-agents/worker';
import { greeter } from './agent.ts';

await runWorker({ agents: [greeter], enableScriptedModel: true });
