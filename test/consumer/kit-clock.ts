// The user's own test of an approval deadline, with the test kit on Temporal's time-skipping test server
// (named by TEMPORAL_TEST_SERVER): a day passes in a second.
import { z } from 'zod';
import { createTool, defineAgent } from 'durable-agents';
import { startTestKit } from 'durable-agents/testing';

const payouts = defineAgent({
  id: 'payouts',
  name: 'Payouts',
  instructions: 'Pay out what you are asked to, once someone approves.',
  model: 'scripted',
  tools: {
    payout: createTool({
      id: 'payout',
      description: 'Pays out an amount',
      inputSchema: z.object({ amount: z.number() }),
      requireApproval: true,
      approvalDeadline: { after: '1 day' },
      execute: async ({ amount }) => ({ paid: amount }),
    }),
  },
});

const kit = await startTestKit({ agents: [payouts], timeSkipping: true });
try {
  const { runId } = await kit.client.start('payouts', 'Pay 30', {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: 'payout', args: { amount: 30 } }] }, { text: 'Nothing was paid.' }],
  });
  const [call] = await kit.waitForPendingCalls(runId);
  await kit.skipTime('25 hours');
  const result = await kit.client.result(runId);
  // Marked: the SDK's core writes its own log lines to stdout too, before and after this one.
  const answer = { expiresAt: call?.expiresAt !== undefined, decisions: result.decisions.map((d) => d.kind) };
  console.log(`kit-clock: ${JSON.stringify(answer)}`);
} finally {
  await kit.stop();
}
