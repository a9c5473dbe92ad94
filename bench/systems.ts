/** The four systems of the comparison, on one dev server, with the same zero-latency scripted model. */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ProviderV4 } from '@ai-sdk/provider';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../src/index.js';
import { createWorker, ScriptedLanguageModel, type AgentWorker, type ModelFactory } from '../src/worker/index.js';
import { AgentClient } from '../src/client/index.js';
import * as activities from './activities.js';
import { fallbackBenchAgent } from './model-failures.js';

/** N steps of one no-op tool call each, then the final text. */
export function benchScript(steps: number): Script {
  return [
    ...Array.from({ length: steps }, (_, i) => ({ toolCalls: [{ toolName: 'noop', args: { i } }] })),
    { text: 'done' },
  ];
}

export const noopTool = createTool({
  id: 'noop',
  description: 'Does nothing',
  inputSchema: z.object({ i: z.number() }),
  execute: ({ i }) => `ok ${i}`,
});
export const guardedNoop = createTool({
  id: 'guarded-noop',
  description: 'Does nothing, after approval',
  inputSchema: z.object({ i: z.number() }),
  requireApproval: true,
  execute: ({ i }) => `ok ${i}`,
});

export const benchAgent = defineAgent({
  id: 'bench-agent',
  name: 'Bench',
  instructions: 'Call the tool.',
  model: 'scripted',
  tools: { noop: noopTool, guarded: guardedNoop },
  // Long runs are what the benchmark measures.
  defaultOptions: { maxSteps: 1000 },
  // The stream figures play a model of their own (bench-stream).
  overridable: ['model'],
});

/** The peer's model provider: `bench-N` is the scripted model playing benchScript(N). */
const benchProvider: ProviderV4 = {
  specificationVersion: 'v4',
  languageModel: (id) => new ScriptedLanguageModel(benchScript(Number(id.replace('bench-', '')))),
  embeddingModel: () => {
    throw new Error('no embedding model in the benchmark');
  },
  imageModel: () => {
    throw new Error('no image model in the benchmark');
  },
};

export interface Systems {
  inProcess(steps: number): Promise<void>;
  engineFloor(steps: number): Promise<string>;
  peer(steps: number): Promise<string>;
  durable(steps: number): Promise<string>;
  client: AgentClient;
  temporal: Client;
  queues: { floor: string; peer: string };
  agentWorker: AgentWorker;
  close(): Promise<void>;
}

/** Starts a worker for each Temporal system (each on its own task queue) and returns how to run one of each. */
export async function startSystems(address: string, extraModels: Record<string, ModelFactory> = {}): Promise<Systems> {
  const suffix = randomUUID().slice(0, 8);
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const temporal = new Client({ connection });

  const floorQueue = `bench-floor-${suffix}`;
  const floor = await Worker.create({
    connection: native,
    taskQueue: floorQueue,
    workflowsPath: fileURLToPath(new URL('./workflows/engine-floor.ts', import.meta.url)),
    activities,
  });
  const peerQueue = `bench-peer-${suffix}`;
  const peer = await Worker.create({
    connection: native,
    taskQueue: peerQueue,
    plugins: [new AiSdkPlugin({ modelProvider: benchProvider })],
    workflowsPath: fileURLToPath(new URL('./workflows/peer.ts', import.meta.url)),
    activities,
  });
  const agentQueue = `bench-agent-${suffix}`;
  const agentWorker = await createWorker({
    agents: [benchAgent, fallbackBenchAgent],
    connection: native,
    namespace: 'default',
    taskQueue: agentQueue,
    models: extraModels,
    enableScriptedModel: true,
  });
  const running = [floor.run(), peer.run(), agentWorker.run()];
  const client = await AgentClient.connect({ address, namespace: 'default', taskQueue: agentQueue });

  return {
    client,
    temporal,
    agentWorker,
    queues: { floor: floorQueue, peer: peerQueue },
    async inProcess(steps) {
      await generateText({
        model: new ScriptedLanguageModel(benchScript(steps)),
        prompt: 'go',
        tools: {
          noop: tool({
            description: 'Does nothing',
            inputSchema: jsonSchema<{ i: number }>({
              type: 'object',
              properties: { i: { type: 'number' } },
              required: ['i'],
            }),
            execute: async ({ i }) => `ok ${i}`,
          }),
        },
        stopWhen: stepCountIs(steps + 1),
      });
    },
    engineFloor: (steps) =>
      temporal.workflow.execute('engineFloor', {
        taskQueue: floorQueue,
        workflowId: `floor-${randomUUID()}`,
        args: [steps],
      }),
    peer: (steps) =>
      temporal.workflow.execute('aiSdkPeer', {
        taskQueue: peerQueue,
        workflowId: `peer-${randomUUID()}`,
        args: [steps],
      }),
    async durable(steps) {
      const result = await client.generate('bench-agent', 'go', {
        model: 'scripted',
        script: benchScript(steps),
        maxSteps: steps + 1,
        activeTools: ['noop'],
      });
      return result.text;
    },
    async close() {
      floor.shutdown();
      peer.shutdown();
      agentWorker.worker.shutdown();
      await Promise.all(running);
      await client.close();
      await connection.close();
      await native.close();
    },
  };
}
