// A team's own Temporal worker: its workflows and activity, with agent runs added by the plugin.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableAgentsPlugin } from 'durable-agents/worker';
import { gatekeeper } from './agent.ts';

const plugin = await DurableAgentsPlugin.fromEnvironment({ agents: [gatekeeper], enableScriptedModel: true });
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS }),
  taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
  workflowsPath: fileURLToPath(new URL('./team-workflows.ts', import.meta.url)),
  activities: { shout: async (text: string) => text.toUpperCase() },
  plugins: [plugin],
});
console.error('worker: serving the team workflows and the gatekeeper agent');
await worker.run();
