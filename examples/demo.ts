/**
 * `npm run demo`: one durable run of the example weather agent. It starts a worker in this process,
 * runs the agent (a model call, a tool call executed as a Temporal activity, a final answer), prints
 * each step, and exits. The model is the offline scripted one unless DEMO_MODEL names another
 * (e.g. DEMO_MODEL=openai/gpt-4o-mini with OPENAI_API_KEY set).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient, createWorker, type StepRecord } from '../src/index.js';
import { exampleAgents } from './agents.js';
import { weatherDemoScript } from './weather-agent.js';

const prompt = 'What is the weather in Paris?';
const model = process.env.DEMO_MODEL ?? 'scripted';

function printStep(step: StepRecord): void {
  console.log(`step ${step.stepNumber + 1} (${step.finishReason})`);
  if (step.text) console.log(`  text: ${step.text}`);
  for (const call of step.toolCalls) {
    const result = step.toolResults.find((r) => r.toolCallId === call.toolCallId);
    console.log(`  tool call ${call.toolName}(${JSON.stringify(call.args)}) [${call.toolCallId}]`);
    if (result) console.log(`    -> ${result.isError ? `error: ${result.error}` : JSON.stringify(result.output)}`);
  }
}

// The worker's own INFO logs would drown the steps; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });
const client = await AgentClient.connect();
const { worker, run } = await createWorker({ agents: exampleAgents });
const running = run();
try {
  console.log(`> ${prompt}   (agent weather-agent, model ${model}, task queue ${client.taskQueue})`);
  const result = await client.generate('weather-agent', prompt, {
    model,
    ...(model === 'scripted' ? { script: weatherDemoScript } : {}),
  });
  result.steps.forEach(printStep);
  console.log(`\nfinal text: ${result.text}`);
  console.log(`finish reason: ${result.finishReason}; usage: ${result.usage.totalTokens} tokens; run id: ${result.runId}`);
  if (!process.env.TEMPORAL_ADDRESS) {
    console.log(`history: http://localhost:8233/namespaces/${client.namespace}/workflows/${result.runId} (stop the dev server: npm run dev-server -- stop)`);
  }
} finally {
  worker.shutdown();
  await running;
  await client.close();
}
