/**
 * A namespace without the runs' search attributes: a worker refuses to start, naming what is missing and
 * the command that creates it, rather than take runs whose workflow tasks would fail on the first
 * search-attribute write (a wedged run). Run on a namespace this test registers, as an operator's new
 * namespace would be.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/index.js';
import { SearchAttributesMissingError } from '../../src/index.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createWorker, DurableAgentsPlugin } from '../../src/worker/index.js';
import { toolboxAgent } from '../fixtures/agents.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl } from '../processes.js';
import { startServer } from '../../src/server/index.js';

const namespace = `fresh-${randomUUID().slice(0, 8)}`;
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address: temporalAddress() });
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await waitFor('the namespace to answer', async () =>
    connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => undefined,
    ),
  );
}, 120_000);
afterAll(async () => {
  await connection?.close();
});

it('refuses to start a worker on a namespace without them, with the command; with them, runs go through', async () => {
  const taskQueue = `sa-${randomUUID()}`;
  const options = {
    agents: [toolboxAgent],
    address: temporalAddress(),
    namespace,
    taskQueue,
    enableScriptedModel: true,
    notifications: false as const,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  };
  const error = await createWorker(options).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(SearchAttributesMissingError);
  expect((error as Error).message).toBe(
    `namespace "${namespace}" lacks the search attributes agent runs need: AgentId (Keyword), AgentStatus ` +
      '(Keyword), AgentThreadId (Keyword), AgentResourceId (Keyword), AgentPendingToolCalls (KeywordList). ' +
      `Create them with: temporal operator search-attribute create --namespace ${namespace} --name AgentId ` +
      '--type Keyword --name AgentStatus --type Keyword --name AgentThreadId --type Keyword --name ' +
      'AgentResourceId --type Keyword --name AgentPendingToolCalls --type KeywordList (on Temporal Cloud: tcld ' +
      'namespace search-attributes add, or the Cloud UI)',
  );

  // A team's own worker with the plugin: it does not run, with the same error.
  const teamConnection = await NativeConnection.connect({ address: temporalAddress() });
  const teamWorker = await Worker.create({
    connection: teamConnection,
    namespace,
    taskQueue: `team-${taskQueue}`,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    plugins: [new DurableAgentsPlugin({ agents: [toolboxAgent], enableScriptedModel: true, notifications: false })],
  });
  await expect(teamWorker.run()).rejects.toBeInstanceOf(SearchAttributesMissingError);
  expect(teamWorker.getState()).not.toBe('RUNNING');
  await teamConnection.close();

  // agentctl and the HTTP server refuse the namespace too, with the same line.
  const listed = await agentctl(['runs', 'list', '--address', temporalAddress(), '--namespace', namespace]);
  expect(listed.code).toBe(1);
  expect(listed.stderr.trim()).toBe(`agentctl: ${(error as Error).message}`);
  const client = await AgentClient.connect({
    address: temporalAddress(),
    namespace,
    taskQueue,
    externalStorage: false,
    tracing: false,
  });
  await expect(startServer(client, { port: 0 })).rejects.toThrow((error as Error).message);

  // Asked to, the worker creates them (the dev server's operator API allows it), and runs go through.
  const accepted = await createWorker({ ...options, createSearchAttributes: true });
  const running = accepted.run();
  try {
    const result = await client.generate('toolbox-agent', 'hello', { script: [{ text: 'hi' }] });
    expect(result.text).toBe('hi');
    await expect(client.checkSearchAttributes()).resolves.toBe('checked');
    const after = await agentctl(['runs', 'list', '--address', temporalAddress(), '--namespace', namespace]);
    expect(after).toMatchObject({ code: 0, stderr: '' });
    expect(after.stdout).toContain(result.runId);
  } finally {
    await client.close();
    accepted.shutdown();
    await running;
  }
});
