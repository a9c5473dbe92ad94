/**
 * Worker Versioning against the dev server: two builds of one Worker Deployment serve the same task
 * queue; a run started on build v1 that waits for approval stays pinned to v1 (its tool runs v1's code)
 * while new runs go to v2; agentctl shows each run's build and which builds still have runs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../../src/index.js';
import { createWorker } from '../../src/worker/index.js';
import { AgentClient } from '../../src/client/index.js';
import { runBuild } from '../../src/client/runs/run-build.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { temporalAddress } from '../helpers.js';
import { agentctl, spawnWorker } from '../processes.js';
import { weatherDemoScript } from '../../examples/weather-agent.js';

/** The same agent as two builds ship it: its tool says which build's code ran it. */
function agentOfBuild(build: string) {
  return defineAgent({
    id: 'versioned-agent',
    name: 'Versioned agent',
    instructions: 'Look up the weather.',
    model: 'scripted',
    tools: {
      weather: createTool({
        id: 'weather',
        description: 'Weather for a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, answeredBy: build }),
      }),
    },
  });
}

const script: Script = [{ toolCalls: [{ toolName: 'weather', args: { city: 'Paris' } }] }, { text: 'Done.' }];

const deploymentName = `agents-${randomUUID()}`;
const taskQueue = `versioned-${randomUUID()}`;
const thread = { threadId: `versioned-${randomUUID()}`, resourceId: 'versioned-resource' };

interface Running {
  stop(): Promise<void>;
}

async function startBuild(buildId: string): Promise<Running> {
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const agentWorker = await createWorker({
    agents: [agentOfBuild(buildId)],
    enableScriptedModel: true,
    tracing: false,
    notifications: false,
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    versioning: { deploymentName, buildId, setCurrent: true },
  });
  const running = agentWorker.run();
  // run() makes the build current once the server has seen its pollers.
  await vi.waitFor(
    async () => {
      const builds = await client.listBuilds({ deploymentName });
      expect(builds.find((b) => b.buildId === buildId)?.status).toBe('current');
    },
    { timeout: 30_000, interval: 200 },
  );
  return {
    async stop() {
      agentWorker.shutdown();
      await running;
      await connection.close();
    },
  };
}

const ctl = (...args: string[]) => agentctl(['--address', temporalAddress(), '--namespace', 'default', ...args]);

let client: AgentClient;
const workers: Running[] = [];

beforeAll(async () => {
  client = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue, tracing: false });
});

afterAll(async () => {
  for (const w of workers) await w.stop();
  await client?.close();
});

describe('worker versioning', () => {
  it('keeps a waiting run on the build that started it while new runs go to the new build', async () => {
    workers.push(await startBuild('v1'));
    const { runId: waiting } = await client.start('versioned-agent', 'Weather in Paris?', {
      script,
      requireToolApproval: true,
      ...thread,
    });
    expect((await client.next(waiting)).finishReason).toBe('suspended');
    expect((await client.getRun(waiting)).build).toEqual({ deploymentName, buildId: 'v1', behavior: 'PINNED' });
    // The run's thread takes the worker's behaviour too (an AUTO_UPGRADE annotation would wedge threads on
    // unversioned workers: see docs/upgrading.md).
    const threadInfo = await client.temporal.workflow
      .getHandle(threadWorkflowId(thread.resourceId, thread.threadId))
      .describe();
    expect(runBuild(threadInfo.raw.workflowExecutionInfo)?.behavior).toBe('PINNED');

    workers.push(await startBuild('v2'));
    const fresh = await client.generate('versioned-agent', 'Weather in Paris?', { script });
    expect(fresh.toolResults[0]).toMatchObject({ output: { city: 'Paris', answeredBy: 'v2' } });
    expect((await client.getRun(fresh.runId)).build).toMatchObject({ buildId: 'v2', behavior: 'PINNED' });

    const shown = await ctl('runs', 'show', waiting);
    expect(shown.stdout).toContain(`build:     ${deploymentName}/v1 (pinned)`);
    const listed = await ctl('--task-queue', taskQueue, 'runs', 'list', '--status', 'suspended', '--json');
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ runId: waiting, build: { deploymentName, buildId: 'v1', behavior: 'PINNED' } }),
    );

    await vi.waitFor(
      async () => {
        const builds = await ctl('builds', '--deployment', deploymentName, '--json');
        expect(JSON.parse(builds.stdout)).toEqual([
          expect.objectContaining({ buildId: 'v2', status: 'current', retirable: false }),
          // Running: the run's thread, pinned like the run (a known limit: it holds v1 until it continues as new).
          expect.objectContaining({ buildId: 'v1', pinned: { running: 1, waiting: 1 }, retirable: false }),
        ]);
      },
      { timeout: 15_000, interval: 200 },
    );
    const table = await ctl('builds', '--deployment', deploymentName);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^DEPLOYMENT +BUILD +STATUS +PINNED RUNNING +PINNED WAITING +AUTO-UPGRADE +RETIRE$/m);
    expect(table.stdout).toMatch(new RegExp(`^${deploymentName} +v1 +draining +1 +1 +\\d+ +no$`, 'm'));

    // Approved after v2 became current: the tool still runs v1's code, where the run started.
    const done = await client.approveToolCallGenerate({ runId: waiting });
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults[0]).toMatchObject({ output: { city: 'Paris', answeredBy: 'v1' } });

    await vi.waitFor(
      async () => {
        const builds = await client.listBuilds({ deploymentName });
        // No run waits on v1 any more; its thread still holds it (see docs/upgrading.md).
        expect(builds.find((b) => b.buildId === 'v1')).toMatchObject({
          pinned: { running: 1, waiting: 0 },
          retirable: false,
        });
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it('takes its deployment and build from the environment (npm run worker), and agentctl shows them', async () => {
    const queue = `versioned-env-${randomUUID()}`;
    const deployment = `agents-env-${randomUUID()}`;
    const worker = await spawnWorker({
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: queue,
      TEMPORAL_DEPLOYMENT_NAME: deployment,
      TEMPORAL_BUILD_ID: '0.2.0',
      TEMPORAL_SET_CURRENT_VERSION: 'true',
    });
    try {
      expect(worker.output()).toContain(
        `build "0.2.0" of deployment "${deployment}", runs PINNED, made current once it polls`,
      );
      const file = join(await mkdtemp(join(tmpdir(), 'versioned-')), 'script.json');
      await writeFile(file, JSON.stringify(weatherDemoScript));
      // The run waits in the task queue until the worker has made its build current.
      const started = await ctl(
        '--task-queue',
        queue,
        'start',
        'weather-agent',
        '--prompt',
        'Paris?',
        '--script',
        file,
      );
      expect(started.code).toBe(0);
      const runId = /^run (\S+): finished/m.exec(started.stdout)?.[1];
      const shown = await ctl('runs', 'show', runId!);
      expect(shown.stdout).toContain(`build:     ${deployment}/0.2.0 (pinned)`);
      const builds = JSON.parse((await ctl('builds', '--deployment', deployment, '--json')).stdout) as unknown;
      expect(builds).toEqual([expect.objectContaining({ buildId: '0.2.0', status: 'current', retirable: false })]);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });

  it('refuses half a configuration, naming what is missing', async () => {
    await expect(
      createWorker({
        agents: [agentOfBuild('v3')],
        taskQueue,
        versioning: { deploymentName, buildId: 'has space' },
      }),
    ).rejects.toThrow(/versioning: .*buildId/s);
  });
});
