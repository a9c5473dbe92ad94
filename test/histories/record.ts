/**
 * `npm run record-histories`: records the histories that test/integration/replay.test.ts replays.
 * Runs against TEMPORAL_ADDRESS (default: the dev server, `npm run dev-server`). Record anew only
 * on purpose: the point of the committed histories is that today's workflow code must replay
 * yesterday's runs.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { weatherAgent, weatherDemoScript } from '../../examples/weather-agent.js';
import { AgentClient, createWorker, type StartOptions } from '../../src/index.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const runs: Record<string, { agentId: string; prompt: string; options: StartOptions }> = {
  'weather-agent': { agentId: 'weather-agent', prompt: 'What is the weather in Paris?', options: { model: 'scripted', script: weatherDemoScript } },
  'invalid-tool-args': {
    agentId: 'weather-agent',
    prompt: 'Weather?',
    options: { model: 'scripted', script: [{ toolCalls: [{ toolName: 'weather', args: { town: 'Paris' } }, { toolName: 'radar', args: {} }] }, { text: 'Sorry.' }] },
  },
  'script-exhausted': { agentId: 'weather-agent', prompt: 'Weather?', options: { model: 'scripted', script: [{ toolCalls: [{ toolName: 'weather', args: { city: 'Oslo' } }] }] } },
};

const taskQueue = `record-${randomUUID()}`;
const client = await AgentClient.connect({ taskQueue });
const { worker, run } = await createWorker({ agents: [weatherAgent], taskQueue });
const running = run();
try {
  for (const [name, { agentId, prompt, options }] of Object.entries(runs)) {
    const { runId } = await client.start(agentId, prompt, { ...options, runId: `history-${name}-${randomUUID()}` });
    await client.result(runId).catch(() => undefined); // failed runs are recorded too
    const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
    const file = new URL(`./${name}.json`, import.meta.url);
    await writeFile(file, historyToJSON(history) + '\n');
    console.log(`recorded ${name}: ${history.events?.length} events -> ${file.pathname}`);
  }
} finally {
  worker.shutdown();
  await running;
  await client.close();
}
