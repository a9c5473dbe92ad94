// The user's own test of their agent, with the package's test kit (against the server the test names).
import { startTestKit } from 'durable-agents/testing';
import { gatekeeper } from './agent.ts';

const kit = await startTestKit({ agents: [gatekeeper], address: process.env.TEMPORAL_ADDRESS });
try {
  const { runId } = await kit.client.start('gatekeeper', 'Greet Bo', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'greet', args: { name: 'Bo' } }] }, { text: 'I greeted Bo.' }],
  });
  const [call] = await kit.waitForPendingCalls(runId);
  const result = await kit.client.decide({ kind: 'approve', runId }, { then: 'result' });
  console.log(JSON.stringify({ waitedOn: call?.toolName, text: result.text }));
} finally {
  await kit.stop();
}
