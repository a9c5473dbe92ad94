// The team's application: `start NAME` starts its workflow; `result NAME` waits for and prints its result.
import { Client, Connection } from '@temporalio/client';
import type { greetAndShout } from './team-workflows.ts';

const [command, name] = process.argv.slice(2) as [string, string];
const client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS }) });
const workflowId = `team-${name}`;
if (command === 'start') {
  await client.workflow.start<typeof greetAndShout>('greetAndShout', {
    taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
    workflowId,
    args: [name],
  });
  console.log(workflowId);
} else {
  console.log(await client.workflow.getHandle<typeof greetAndShout>(workflowId).result());
}
await client.connection.close();
