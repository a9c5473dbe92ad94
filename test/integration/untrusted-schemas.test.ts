/**
 * Schemas a run brings from outside (its client tools here; an MCP server's tools the same way) never
 * stall the run: workflow code checks changed arguments without the schema's patterns, and the worker
 * checks the model's arguments against them within a time budget. `^(a|aa)+$` passes every static check
 * and backtracks for about 30 s on 44 a's and a b.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../../src/index.js';
import { approveToolCallSignal } from '../../src/protocol/run-messages.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const backtracks = 'a'.repeat(44) + 'b';
const clientTools = (requireApproval: boolean) => ({
  lookup: {
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string', pattern: '^(a|aa)+$' } },
      required: ['q'],
    },
    requireApproval,
  },
});
const calling = (q: string): Script => [{ toolCalls: [{ toolName: 'lookup', args: { q } }] }, { text: 'Done.' }];

describe('a schema with a pattern that backtracks', () => {
  it('takes changed arguments without running the pattern in the workflow: no workflow task fails', async () => {
    const paused = await w.client.generate('toolbox-agent', 'go', {
      model: 'scripted',
      script: calling('aaaa'),
      clientTools: clientTools(true),
    });
    const { fingerprint } = paused.pendingToolCalls[0]!;
    // A raw signal, as anyone with signal rights could send: the client's own check is not in the way.
    await w.client.temporal.workflow
      .getHandle(paused.runId)
      .signal(approveToolCallSignal, { decisionId: `raw-${randomUUID()}`, fingerprint, args: { q: backtracks } });
    const waiting = await waitFor('the call to wait for its result', async () => {
      const run = await w.client.getRun(paused.runId);
      return run.pendingToolCalls.find((c) => c.kind === 'client');
    });
    expect(waiting.args).toEqual({ q: backtracks });
    expect(await historyEventTypes(w.client, paused.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });

  it("marks the model's call invalid when its arguments cannot be checked within the budget, and the run goes on", async () => {
    const result = await w.client.generate('toolbox-agent', 'go', {
      model: 'scripted',
      script: calling(backtracks),
      clientTools: clientTools(false),
    });
    expect(result.text).toBe('Done.');
    expect(result.pendingToolCalls).toEqual([]);
    expect(JSON.stringify(result.steps[0]!.toolResults)).toMatch(
      /could not be checked against the input schema of tool \\"lookup\\" within 2 s/,
    );
  });
});
