// A team's own workflow: it runs an agent as a child (which waits for an approval), then its own activity.
import { proxyActivities } from '@temporalio/workflow';
import { executeAgent } from 'durable-agents/workflow';

const { shout } = proxyActivities<{ shout(text: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

export async function greetAndShout(name: string): Promise<string> {
  const run = await executeAgent('gatekeeper', `Greet ${name}`, {
    runId: `greet-${name}`,
    options: {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'greet', args: { name } }] }, { text: `I greeted ${name}.` }],
    },
  });
  return shout(run.text);
}
