/**
 * A team's own Temporal worker hosts agent runs through `DurableAgentsPlugin`, beside its own workflows
 * and activities, and its own workflow runs an agent with `executeAgent`: the run waits for a person
 * like any other, is found and approved from a client, and the team's workflow goes on with its result.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { DurableAgentsPlugin } from '../../src/worker/index.js';
import { refundAgent, refunds } from '../fixtures/team/agent.js';
import { teamActivities } from '../fixtures/team/activities.js';
import type { badAgentOption, refundOrder } from '../fixtures/team/workflows.js';
import { temporalAddress, waitFor } from '../helpers.js';

const taskQueue = `team-${randomUUID()}`;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let team: Client;
let agents: AgentClient;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: temporalAddress() });
  const plugin = new DurableAgentsPlugin({ agents: [refundAgent], enableScriptedModel: true, notifications: false });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('../fixtures/team/workflows.ts', import.meta.url)),
    activities: teamActivities,
    plugins: [plugin],
  });
  running = worker.run();
  team = new Client({ connection: await Connection.connect({ address: temporalAddress() }), plugins: [plugin] });
  agents = await AgentClient.connect({ address: temporalAddress(), taskQueue, externalStorage: false, tracing: false });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await agents?.close();
  await team?.connection.close();
  await connection?.close();
});

describe('DurableAgentsPlugin on a team’s own worker', () => {
  it('runs an agent from the team’s workflow, waits for an approval from a client, then goes on', async () => {
    const orderId = `o-${randomUUID().slice(0, 8)}`;
    const order = await team.workflow.start<typeof refundOrder>('refundOrder', {
      taskQueue,
      workflowId: `order-${orderId}`,
      args: [orderId],
    });
    const runId = `refund-${orderId}`;
    // The agent's run is a waiting run like any other: listed by its agent and status.
    const waiting = await waitFor('the agent run to wait', async () => {
      const runs = await agents.listSuspendedRuns({ agentId: 'refund-agent' });
      return runs.find((r) => r.runId === runId);
    });
    expect(waiting.pendingToolCalls[0]).toMatchObject({ toolName: 'refund', requiresApproval: true });
    expect(refunds).toEqual([]);

    await agents.decide({ kind: 'approve', runId }, { then: 'sent' });
    expect(await order.result()).toEqual({ agentSaid: 'Refunded 40 on o-1.', recorded: `recorded ${orderId}` });
    expect(refunds).toEqual([{ orderId: 'o-1', amount: 40 }]);
  });

  it('fails the team’s workflow with the reason when it starts an agent with an option runs do not know', async () => {
    const failed = await team.workflow
      .execute<typeof badAgentOption>('badAgentOption', { taskQueue, workflowId: `bad-${randomUUID()}` })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect((failed as WorkflowFailedError).cause?.message).toBe('executeAgent: options: Unrecognized key: "maxStep"');
  });

  it('writes the combined workflows module where only this user can write: the worker runs what it says', () => {
    const plugin = new DurableAgentsPlugin({ agents: [refundAgent], notifications: false });
    const team = fileURLToPath(new URL('../fixtures/team/workflows.ts', import.meta.url));
    const combined = plugin.configureWorker({ taskQueue, workflowsPath: team }).workflowsPath!;
    expect(combined).not.toBe(team);
    expect(readFileSync(combined, 'utf8')).toContain(JSON.stringify(team));
    expect(statSync(dirname(combined)).mode & 0o777).toBe(0o700);
  });

  it('refuses an activity of the team’s that has the name of one of the runs’, and an option it does not know', () => {
    const plugin = new DurableAgentsPlugin({ agents: [refundAgent], notifications: false });
    expect(() => plugin.configureWorker({ taskQueue, activities: { describeAgent: async () => undefined } })).toThrow(
      'DurableAgentsPlugin: the worker\'s activity "describeAgent" clashes with the agent runs\' own',
    );
    expect(() => new DurableAgentsPlugin({ agents: [refundAgent], agent: [] } as unknown as { agents: [] })).toThrow(
      'DurableAgentsPlugin: unknown option "agent"',
    );
  });

  it('refuses to run payloads in clear when the environment asks for encryption or a payload store', () => {
    const saved = { ...process.env };
    try {
      process.env.DURABLE_AGENTS_CODEC_KEYS = 'k1:' + Buffer.alloc(32, 1).toString('base64');
      expect(() => new DurableAgentsPlugin({ agents: [refundAgent], notifications: false })).toThrow(
        'DurableAgentsPlugin: DURABLE_AGENTS_CODEC_KEYS is set, but the plugin was given no codec',
      );
      delete process.env.DURABLE_AGENTS_CODEC_KEYS;
      process.env.DURABLE_AGENTS_PAYLOAD_STORE = '/tmp/payloads';
      expect(() => new DurableAgentsPlugin({ agents: [refundAgent], notifications: false })).toThrow(
        'DurableAgentsPlugin: DURABLE_AGENTS_PAYLOAD_STORE is set, but the plugin was given no externalStorage',
      );
    } finally {
      process.env = saved;
    }
  });
});
