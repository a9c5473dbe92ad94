/**
 * `npm run demo`: durable runs of the example agents, with a worker in this process.
 * 1. weather-agent: a model call, a tool call executed as a Temporal activity, a final answer.
 * 2. records-agent: the delete pauses for approval; the demo approves it the way an operator would
 *    (`agentctl approve`), bound to the call's fingerprint, and the run finishes.
 * 3. supervisor -> ops-agent -> records-agent: the same delete, three levels down, surfaces at the
 *    supervisor's run and is approved there.
 * 4. support-agent: the built-in `ask_user` asks which colour, with options; the demo answers from the
 *    command line (`agentctl resume`, a process of its own), and the run finishes with the answer.
 * The model is the offline scripted one unless DEMO_MODEL names another (e.g.
 * DEMO_MODEL=openai/gpt-4o-mini with OPENAI_API_KEY set).
 *
 * It also serves the approval inbox and the chat page (the HTTP server, on a free loopback port, with a
 * development token made for this demo) and prints their addresses first. At a terminal it then leaves a
 * call waiting in the inbox and keeps serving until Ctrl-C: an address that closed as soon as the demo had
 * printed it would show nothing. Anywhere else (CI, a pipe) it exits when done, as a script should.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { askUserTool, defineAgent, type RunResult } from '../src/index.js';
import { createWorker, ScriptedLanguageModel } from '../src/worker/index.js';
import { AgentClient, type StartOptions } from '../src/client/index.js';
import { bearerTokens, startServer } from '../src/server/index.js';
import { exampleAgents } from './agents.js';
import { deleteRecordScript } from './records-agent.js';
import { supervisorDeleteOptions } from './supervisor-agent.js';
import { chooseColourScript } from './support-agent.js';
import { recordsPath } from './records-store.js';
import { weatherDemoScript } from './weather-agent.js';

const model = process.env.DEMO_MODEL ?? 'scripted';

function options(script: StartOptions['script']): StartOptions {
  return model === 'scripted' ? { model, script } : { model };
}

function printSteps(result: RunResult): void {
  for (const step of result.steps) {
    console.log(`step ${step.stepNumber + 1} (${step.finishReason})`);
    if (step.text) console.log(`  text: ${step.text}`);
    for (const call of step.toolCalls) {
      const r = step.toolResults.find((t) => t.toolCallId === call.toolCallId);
      console.log(`  tool call ${call.toolName}(${JSON.stringify(call.args)}) [${call.toolCallId}]`);
      if (r) console.log(`    -> ${r.isError ? `error: ${r.error}` : JSON.stringify(r.output)}`);
    }
  }
}

// The worker's own INFO logs would drown the steps; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });
// The demo's runs are started by "demo-app"; a person approves (the run's starter may not approve its own call).
const client = await AgentClient.connect({ principal: 'demo-app' });

/**
 * The chat page's agent: the chat sends what the person types, not a script, so it plays a model of its
 * own that asks which colour (its options are buttons in the chat) and then answers.
 */
const chatAgent = defineAgent({
  id: 'demo-chat',
  name: 'Demo chat',
  instructions: 'You help with the site theme.',
  model: 'demo-chat',
  tools: { ask_user: askUserTool },
});
const worker = await createWorker({
  agents: [...exampleAgents, chatAgent],
  enableScriptedModel: true,
  models: { 'demo-chat': (_id, { priorSteps }) => new ScriptedLanguageModel(chooseColourScript, priorSteps) },
});
const running = worker.run();
// A development token made for this run of the demo: the pages sign in with it.
const token = randomBytes(18).toString('base64url');
const server = await startServer(client, {
  port: 0,
  authenticate: bearerTokens({ [token]: { id: 'you', name: 'You' } }),
  agents: [...exampleAgents, chatAgent],
});
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
console.log(`Approval inbox: ${base}/inbox`);
console.log(`Chat:           ${base}/chat?agent=demo-chat`);
console.log(`Sign in with the development token ${token}\n`);
const interactive = process.stdout.isTTY && process.stdin.isTTY;
try {
  console.log(
    `> What is the weather in Paris?   (agent weather-agent, model ${model}, task queue ${client.taskQueue})`,
  );
  const weather = await client.generate('weather-agent', 'What is the weather in Paris?', options(weatherDemoScript));
  printSteps(weather);
  console.log(`final text: ${weather.text}\n`);

  await rm(recordsPath(), { force: true }); // start from the seeded records
  console.log('> Delete the old customer list.   (agent records-agent; deleteRecord needs approval)');
  const paused = await client.generate('records-agent', 'Delete the old customer list.', options(deleteRecordScript));
  printSteps(paused);
  const waiting = paused.suspendPayload;
  if (paused.finishReason !== 'suspended' || !waiting)
    throw new Error(`expected the run to pause for approval, got ${paused.finishReason}`);
  console.log(
    `paused (${paused.finishReason}): ${waiting.toolName}(${JSON.stringify(waiting.args)}) [${waiting.toolCallId}] ` +
      'awaits approval',
  );
  console.log(`  fingerprint ${waiting.fingerprint}`);
  console.log(
    `  from any shell: npx agentctl --as you approve ${paused.runId} --tool-call ${waiting.toolCallId} ` +
      `--fingerprint ${waiting.fingerprint}`,
  );
  const waitingRuns = await client.listSuspendedRuns({ agentId: 'records-agent' });
  console.log(`  listSuspendedRuns finds it: ${waitingRuns.some((r) => r.runId === paused.runId)}`);

  console.log('approving as "alice" ...');
  const done = await client.decide(
    {
      kind: 'approve',
      runId: paused.runId,
      toolCallId: waiting.toolCallId,
      fingerprint: waiting.fingerprint,
      principal: 'alice',
    },
    { then: 'result' },
  );
  printSteps({ ...done, steps: done.steps.slice(paused.steps.length - 1) });
  console.log(`final text: ${done.text}`);
  console.log(`finish reason: ${done.finishReason}; usage: ${done.usage.totalTokens} tokens; run id: ${done.runId}`);
  console.log(`decision trail: npx agentctl runs show ${done.runId}\n`);

  await rm(recordsPath(), { force: true });
  console.log('> Delete the old customer list.   (agent supervisor -> ops-agent -> records-agent)');
  const chain = await client.generate(
    'supervisor',
    'Delete the old customer list.',
    model === 'scripted' ? supervisorDeleteOptions : { model },
  );
  const deep = chain.pendingToolCalls[0];
  if (chain.finishReason !== 'suspended' || !deep)
    throw new Error(`expected the chain to pause for approval, got ${chain.finishReason}`);
  console.log(`paused at the top: ${deep.toolName}(${JSON.stringify(deep.args)}) [${deep.toolCallId}] awaits approval`);
  console.log(`  waits in: ${deep.path.map((hop) => `${hop.agentId} (${hop.runId})`).join(' > ')}`);
  const chainDone = await client.decide(
    {
      kind: 'approve',
      runId: chain.runId,
      toolCallId: deep.toolCallId,
      fingerprint: deep.fingerprint,
      principal: 'alice',
    },
    { then: 'result' },
  );
  console.log(`approved at the top; final text: ${chainDone.text}\n`);

  console.log('> Give the site a new theme.   (agent support-agent; the built-in ask_user asks which colour)');
  const thread = { threadId: `demo-theme-${randomUUID()}`, resourceId: 'demo-user' };
  const asked = await client.generate('support-agent', 'Give the site a new theme.', {
    ...options(chooseColourScript),
    ...thread,
  });
  const question = asked.suspendPayload;
  if (asked.finishReason !== 'suspended' || question?.toolName !== 'ask_user')
    throw new Error(`expected the run to ask the user, got ${asked.finishReason}`);
  console.log(`asks (${question.toolName}): ${JSON.stringify(question.payload)}`);
  // The answer comes from another process, as an operator's or a script's would: agentctl.
  const data = '{"answer":"green"}';
  const answer = ['--as', 'you', 'resume', asked.runId, '--data', data, '--latest', '--wait'];
  console.log(`answering from the command line: npx agentctl ${answer.join(' ').replace(data, `'${data}'`)}`);
  const agentctl = fileURLToPath(new URL('../bin/agentctl.js', import.meta.url));
  const env = { ...process.env, TEMPORAL_TASK_QUEUE: client.taskQueue, TEMPORAL_NAMESPACE: client.namespace };
  const { stdout } = await promisify(execFile)(process.execPath, [agentctl, ...answer], { env });
  for (const line of stdout.trim().split('\n')) console.log(`  ${line}`);
  const answered = await client.result(asked.runId);
  console.log(`final text: ${answered.text}`);
  if (!process.env.TEMPORAL_ADDRESS) {
    console.log(
      `history: http://localhost:8233/namespaces/${client.namespace}/workflows/${chainDone.runId} (stop the dev server: npm run dev-server -- stop)`,
    );
  }
  if (interactive) {
    await rm(recordsPath(), { force: true });
    const left = await client.generate('records-agent', 'Delete the old customer list.', options(deleteRecordScript));
    console.log(`\nA call waits for you in the inbox (run ${left.runId}): ${base}/inbox`);
    console.log(`Chat with an agent that asks: ${base}/chat?agent=demo-chat`);
    console.log(`Sign in with ${token}. The demo serves them until Ctrl-C.`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
} finally {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  worker.shutdown();
  await running;
  await client.close();
}
