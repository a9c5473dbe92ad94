/**
 * Tracing: a run started by a tracing client is one OpenTelemetry trace, from the client's start through
 * the workflow, its activities, the AI SDK's model calls and the tool calls (with their approval), all
 * into an in-memory exporter here. Tool arguments and outputs reach spans only as the display
 * transforms show them. A run started without tracing adds nothing to its history.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { supervisorAgent, supervisorDeleteOptions } from '../../examples/supervisor-agent.js';
import { createTool, defineAgent, type Script } from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { workflowSpanSinks } from '../../src/tracing/config.js';
import { createTracing } from '../../src/tracing/index.js';
import { collect, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';

process.env.RECORDS_FILE = join(tmpdir(), `records-${randomUUID()}.json`);

const PIN = 'PIN-4711-RAW';
const VAULT_CODE = 'VAULT-0042-RAW';

/** Needs approval; its display transforms hide the PIN in the arguments and the output. */
const transferTool = createTool({
  id: 'transfer',
  description: 'Moves money',
  inputSchema: z.object({ account: z.string(), pin: z.string() }),
  requireApproval: true,
  execute: async ({ account, pin }) => ({ receipt: `R-${account}`, pin }),
  transform: {
    display: {
      input: (args) => ({ ...(args as object), pin: '****' }),
      approval: (args) => ({ ...(args as object), pin: '****' }),
      output: (output) => ({ ...(output as object), pin: '****' }),
    },
  },
});

/** Fails with a secret in its error message, which its display transform hides. */
const vaultTool = createTool({
  id: 'vault',
  description: 'Opens the vault',
  inputSchema: z.object({}),
  activity: { retry: { maximumAttempts: 1 } },
  execute: async () => {
    throw new Error(`vault code ${VAULT_CODE} was rejected`);
  },
  transform: { display: { error: () => 'the vault refused (details hidden)' } },
});

/** No transforms: its arguments and output are shown as they are. */
const weatherTool = createTool({
  id: 'weather',
  description: 'Weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

const agent = defineAgent({
  id: 'traced-agent',
  name: 'Traced',
  instructions: 'You move money.',
  model: 'scripted',
  tools: { transfer: transferTool, vault: vaultTool, weather: weatherTool },
});

const exporter = new InMemorySpanExporter();
const tracing = createTracing({ spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'tracing-test' });
let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([agent, supervisorAgent], { tracing });
});
afterAll(async () => {
  await w?.stop();
  await tracing.shutdown();
});

const transfer: Script = [
  { toolCalls: [{ toolName: 'transfer', args: { account: 'acc-1', pin: PIN } }] },
  { text: 'Moved.' },
];

const id = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

/**
 * The client's start span: `generate()` starts a run with its first `nextPause` update in one request
 * (update-with-start), `start()` and `stream()` with a plain start.
 */
const START_SPANS = ['StartWorkflow:agentRun', 'UpdateWithStartWorkflow:nextPause'];
const isStart = (s: ReadableSpan) => START_SPANS.includes(s.name);

/** The client's start span of a run. */
function startSpan(runId: string): ReadableSpan | undefined {
  return exporter.getFinishedSpans().find((s) => isStart(s) && s.attributes.temporalWorkflowId === runId);
}

/** The spans of a run's trace, once `done` holds of them (workflow spans arrive when their task completes). */
async function traceSpans(runId: string, done: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  return waitFor(`the spans of run ${runId}`, async () => {
    const start = startSpan(runId);
    const spans = start ? exporter.getFinishedSpans().filter((s) => traceOf(s) === traceOf(start)) : [];
    return start && done(spans) ? spans : undefined;
  });
}

function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  expect(
    found.map((s) => s.name),
    `exactly one span "${name}"`,
  ).toEqual([name]);
  return found[0]!;
}

it('traces a run as one trace: client start, workflow, activities, model calls and the approved tool call', async () => {
  const paused = await w.client.generate('traced-agent', 'pay', { model: 'scripted', script: transfer });
  expect(paused.finishReason).toBe('suspended');
  const [pending] = paused.pendingToolCalls;
  const done = await w.client.approveToolCallGenerate({
    runId: paused.runId,
    toolCallId: pending!.toolCallId,
    by: 'ops-alice',
  });
  expect(done.text).toBe('Moved.');

  const spans = await traceSpans(paused.runId, (all) => all.some((s) => s.name === 'RunWorkflow:agentRun'));
  const start = one(spans, 'UpdateWithStartWorkflow:nextPause');
  expect(start.parentSpanId).toBeUndefined();
  const workflow = one(spans, 'RunWorkflow:agentRun');
  expect(workflow.parentSpanId).toBe(id(start));
  expect(workflow.attributes.temporalWorkflowId).toBe(paused.runId);

  // Both model calls: an activity span, and in it the AI SDK's spans with the model, tokens and finish reason.
  const modelActivities = spans.filter((s) => s.name === 'RunActivity:callModel');
  expect(modelActivities).toHaveLength(2);
  const inference = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
  expect(inference).toHaveLength(2);
  for (const call of inference) {
    expect(call.attributes['gen_ai.request.model']).toBe('scripted');
    expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(call.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // Nested in its activity's span, by way of the AI SDK's operation span.
    const ancestors = ancestry(spans, call).map((s) => s.name);
    expect(ancestors).toContain('RunActivity:callModel');
    expect(ancestors.at(-1)).toBe('UpdateWithStartWorkflow:nextPause');
  }
  expect(inference.map((s) => s.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([
    ['stop'],
    ['tool-calls'],
  ]);

  // The tool call: its span holds the approval wait, the decision and the outcome; the tool ran inside it.
  const tool = one(spans, 'execute_tool transfer');
  expect(tool.parentSpanId).toBe(id(workflow));
  expect(tool.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'transfer',
    'gen_ai.tool.call.id': pending!.toolCallId,
    'durable_agents.approval.required': true,
    'durable_agents.wait.kind': 'approval',
    'durable_agents.decision': 'approve',
    'durable_agents.decision.by': 'ops-alice',
    'durable_agents.tool.outcome': 'result',
  });
  expect(tool.attributes['durable_agents.wait.ms']).toBeGreaterThanOrEqual(0);
  const wait = one(spans, 'await approval transfer');
  expect(wait.parentSpanId).toBe(id(tool));
  expect(wait.attributes['durable_agents.decision']).toBe('approve');
  const execute = one(spans, 'StartActivity:executeTool');
  expect(execute.parentSpanId).toBe(id(tool));
  expect(one(spans, 'RunActivity:executeTool').parentSpanId).toBe(id(execute));
});

it('puts tool arguments, outputs and errors into spans only as the display transforms show them', async () => {
  const script: Script = [
    {
      toolCalls: [
        { toolName: 'transfer', args: { account: 'acc-2', pin: PIN } },
        { toolName: 'vault', args: {} },
        { toolName: 'weather', args: { city: 'Oslo' } },
      ],
    },
    { text: 'Done.' },
  ];
  // Streamed, so the model calls go through the AI SDK's streamText (the first test's, generateText).
  const s = await w.client.stream('traced-agent', 'pay', { model: 'scripted', script, streamGraceMs: 0 });
  await collect(s);
  await w.client.approveToolCallGenerate({ runId: s.runId });
  const spans = await traceSpans(s.runId, (all) => all.some((x) => x.name === 'RunWorkflow:agentRun'));

  const attributes = (name: string) => one(spans, name).attributes;
  expect(JSON.parse(String(attributes('execute_tool transfer')['gen_ai.tool.call.arguments']))).toEqual({
    account: 'acc-2',
    pin: '****',
  });
  expect(JSON.parse(String(attributes('execute_tool transfer')['gen_ai.tool.call.result']))).toEqual({
    receipt: 'R-acc-2',
    pin: '****',
  });
  expect(attributes('execute_tool vault')).toMatchObject({
    'durable_agents.tool.outcome': 'error',
    'durable_agents.tool.error': 'the vault refused (details hidden)',
  });
  // A tool without transforms is shown as it is.
  expect(attributes('execute_tool weather')).toMatchObject({
    'gen_ai.tool.call.arguments': '{"city":"Oslo"}',
    'gen_ai.tool.call.result': 'sunny in Oslo',
    'durable_agents.approval.required': false,
  });

  // Nowhere in any span of any trace: names, attributes, events (exceptions), status messages, links.
  const everything = JSON.stringify(
    exporter.getFinishedSpans().map((x) => [x.name, x.attributes, x.events, x.status, x.links, x.resource.attributes]),
  );
  expect(everything).not.toContain(PIN);
  expect(everything).not.toContain(VAULT_CODE);
});

it('adds nothing to the history of a run started without tracing, and traces nothing of it', async () => {
  const plain = await AgentClient.connect({
    address: temporalAddress(),
    namespace: 'default',
    taskQueue: w.taskQueue,
    tracing: false,
  });
  try {
    const paused = await plain.generate('traced-agent', 'pay', { model: 'scripted', script: transfer });
    await plain.approveToolCallGenerate({ runId: paused.runId });
    const untraced = await plain.temporal.workflow.getHandle(paused.runId).fetchHistory();
    expect(JSON.stringify(untraced)).not.toContain('_tracer-data');
    expect(exporter.getFinishedSpans().filter((s) => s.attributes.temporalWorkflowId === paused.runId)).toEqual([]);

    // The same run started by the tracing client carries the trace context in its history.
    const traced = await w.client.generate('traced-agent', 'pay', { model: 'scripted', script: transfer });
    await w.client.approveToolCallGenerate({ runId: traced.runId });
    const history = await w.client.temporal.workflow.getHandle(traced.runId).fetchHistory();
    expect(JSON.stringify(history)).toContain('_tracer-data');
  } finally {
    await plain.close();
  }
});

it("keeps a sub-agent's run in its supervisor's trace, down the chain, with the approval given at the top", async () => {
  const paused = await w.client.generate('supervisor', 'Delete r2.', supervisorDeleteOptions);
  expect(paused.finishReason).toBe('suspended');
  await w.client.approveToolCallGenerate({ runId: paused.runId, by: 'ops' });
  const runs = (spans: ReadableSpan[]) => spans.filter((x) => x.name === 'RunWorkflow:agentRun');
  // The middle run's execution span was now and then exported twice (every run completed and its trace
  // was whole; likely its last workflow task raced a child's report and ran again): count runs, not spans.
  const runIds = (spans: ReadableSpan[]) => new Set(runs(spans).map((x) => x.attributes.temporalWorkflowId));
  const spans = await traceSpans(paused.runId, (all) => runIds(all).size === 3);

  // supervisor -> ops-agent -> records-agent (a child's run id is `<parent run>::<tool call>`), each under
  // its parent's delegating tool call.
  const depth = (x: ReadableSpan) => String(x.attributes.temporalWorkflowId).split('::').length;
  const [top, middle, bottom] = [1, 2, 3].map((d) => runs(spans).find((x) => depth(x) === d));
  expect(ancestry(spans, middle!).map((x) => x.name)).toEqual(
    expect.arrayContaining(['execute_tool agent-ops', 'RunWorkflow:agentRun', 'UpdateWithStartWorkflow:nextPause']),
  );
  expect(ancestry(spans, bottom!).map((x) => x.name)).toContain('execute_tool agent-records');
  expect(ancestry(spans, bottom!)).toContain(top);
  // The deletion waited for its approval three levels down.
  expect(one(spans, 'execute_tool deleteRecord').attributes).toMatchObject({
    'durable_agents.approval.required': true,
    'durable_agents.decision': 'approve',
    'durable_agents.tool.outcome': 'result',
  });
});

it('keeps a run that continues as new in its trace', async () => {
  const script: Script = [{ toolCalls: [{ toolName: 'weather', args: { city: 'Oslo' } }] }, { text: 'Sunny.' }];
  const result = await w.client.generate('traced-agent', 'weather', {
    model: 'scripted',
    script,
    continueAsNewEvery: 1,
  });
  expect(result.text).toBe('Sunny.');
  const runs = (spans: ReadableSpan[]) => spans.filter((x) => x.name === 'RunWorkflow:agentRun');
  const spans = await traceSpans(result.runId, (all) => runs(all).length === 2);
  const handOver = one(spans, 'ContinueAsNew:agentRun');
  const [first, second] = runs(spans).sort((a, b) => (ancestry(spans, a).length < ancestry(spans, b).length ? -1 : 1));
  expect(handOver.parentSpanId).toBe(id(first!));
  expect(second!.parentSpanId).toBe(id(handOver));
  expect(spans.filter((x) => x.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(2);
});

it('replays traced runs without non-determinism, on a worker that does not trace', async () => {
  const traced = exporter.getFinishedSpans().filter(isStart);
  expect(traced.length).toBeGreaterThanOrEqual(3);
  for (const start of traced) {
    const runId = String(start.attributes.temporalWorkflowId);
    const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      runId,
    );
  }
});

/** A span's ancestors in its trace, nearest first. */
function ancestry(spans: ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [id(s), s]));
  const parent = (s: ReadableSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);
  const chain: ReadableSpan[] = [];
  for (let at = parent(span); at; at = parent(at)) chain.push(at);
  return chain;
}
