/**
 * The code samples of Mastra's Tools page (`../shared/reference/tools.zh.txt`), run as the page writes
 * them against a real worker and dev server (see the fixture for what is adapted). Samples of features
 * not built yet are not here: Valibot and ArkType schemas, MCP, provider web search, task tools, the
 * sub-agent progress chunks (`data-tool-agent`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue, RunStreamChunk } from '../../src/index.js';
import {
  assistant,
  commands,
  guardedAgent,
  hazardsWeatherAgent,
  log,
  namingAgent,
  orchestrator,
  placed,
  readerAgent,
  researchAgent,
  shopAgent,
  signals,
  supervisor,
  supportAgent,
  travelAgent,
  weatherAgent,
  WORKFLOW_QUEUE,
} from '../fixtures/mastra-tools-page.js';
import { collect, startWorker, startWorkflowWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
let workflowWorker: { stop(): Promise<void> } | undefined;
beforeAll(async () => {
  w = await startWorker([
    weatherAgent,
    hazardsWeatherAgent,
    supervisor,
    researchAgent,
    travelAgent,
    shopAgent,
    supportAgent,
    guardedAgent,
    namingAgent,
    orchestrator,
    readerAgent,
    assistant,
  ]);
  workflowWorker = await startWorkflowWorker(WORKFLOW_QUEUE);
});
afterAll(async () => {
  await workflowWorker?.stop();
  await w?.stop();
});
beforeEach(() => {
  log.length = 0;
});

type Call = { toolName: string; args: JsonValue };
/** The scripted model: one step with these calls, then one that answers. */
const script = (calls: Call[], text = 'Done.') => [{ toolCalls: calls }, { text }];
const ofType = <T extends RunStreamChunk['type']>(chunks: RunStreamChunk[], type: T) =>
  chunks.filter((c): c is Extract<RunStreamChunk, { type: T }> => c.type === type);

describe("Mastra's Tools page, sample by sample", () => {
  it('quick start: the weather tool runs with its abort signal, and its output fits its schema', async () => {
    const result = await w.client.getAgent('weather-agent').generate("What's the weather in Paris?", {
      script: script([{ toolName: 'weatherTool', args: { location: 'Paris' } }]),
    });
    expect(result.toolResults).toMatchObject([
      {
        toolName: 'weatherTool',
        isError: false,
        output: { location: 'Paris', temperatureCelsius: 21, conditions: 'Sunny' },
      },
    ]);
    expect(signals.at(-1)).toBeInstanceOf(AbortSignal);
  });

  it("outputValidation: 'warn' keeps an order that was placed; without it, the mismatch is a tool error", async () => {
    const agent = w.client.getAgent('hazards-weather-agent');
    const args = { sku: 'sku-1', quantity: 2 };
    const warned = await agent.generate('Order two', { script: script([{ toolName: 'placeOrderTool', args }]) });
    expect(warned.toolResults[0]).toMatchObject({ isError: false, output: { orderId: 'o-1', total: '12.50' } });
    const strict = await agent.generate('Order two', { script: script([{ toolName: 'strictPlaceOrderTool', args }]) });
    expect(strict.toolResults[0]).toMatchObject({ isError: true, error: expect.stringMatching(/total/) });
    expect(placed).toEqual([args, args]);
  });

  it('several tools: the agent calls both in one step', async () => {
    const result = await w.client.getAgent('hazards-weather-agent').generate('Weather and hazards in Rome', {
      script: script([
        { toolName: 'weatherTool', args: { location: 'Rome' } },
        { toolName: 'hazardsTool', args: { location: 'Rome' } },
      ]),
    });
    expect(result.toolResults.map((r) => [r.toolName, r.isError])).toEqual([
      ['weatherTool', false],
      ['hazardsTool', false],
    ]);
  });

  it('agents as tools: the supervisor delegates to the writer as agent-writer', async () => {
    const result = await w.client.getAgent('tools-page-supervisor').generate('Write a haiku', {
      script: script([{ toolName: 'agent-writer', args: { prompt: 'A haiku about tides' } }], 'Here it is.'),
      subAgentOptions: { writer: { script: [{ text: 'Moon pulls; sea answers.' }] } },
    });
    // A sub-agent's result is its text, and its run id.
    expect(result.toolResults).toMatchObject([
      { toolName: 'agent-writer', output: { text: 'Moon pulls; sea answers.' } },
    ]);
  });

  it('workflows as tools: the research workflow runs as workflow-researchWorkflow', async () => {
    const result = await w.client.getAgent('research-agent').generate('Research tides', {
      script: script([{ toolName: 'workflow-researchWorkflow', args: { topic: 'tides' } }]),
    });
    expect(result.toolResults).toMatchObject([{ isError: false, output: { summary: 'Notes on tides' } }]);
  });

  it('one tool shared by two agents', async () => {
    for (const id of ['weather-agent', 'travel-agent']) {
      const result = await w.client.getAgent(id).generate('Weather in Oslo', {
        script: script([{ toolName: 'weatherTool', args: { location: 'Oslo' } }]),
      });
      expect(result.toolResults[0]).toMatchObject({ isError: false, output: { location: 'Oslo' } });
    }
  });

  it('toModelOutput: the model sees text and an image; the result keeps the whole output', async () => {
    const result = await w.client.getAgent('shop-agent').generate('Weather in Lima', {
      script: script([{ toolName: 'iconWeatherTool', args: { location: 'Lima' } }]),
    });
    expect(result.toolResults[0]).toMatchObject({ output: { location: 'Lima', source: { current_condition: [{}] } } });
    const toolMessage = result.messages.find((m) => m.role === 'tool') as unknown as {
      content: Array<{ output: { type: string; value: Array<Record<string, unknown>> } }>;
    };
    expect(toolMessage.content[0]!.output.type).toBe('content');
    expect(toolMessage.content[0]!.output.value[0]).toEqual({ type: 'text', text: 'Lima: 21°C and Sunny' });
    expect(JSON.stringify(toolMessage.content[0]!.output.value[1])).toContain('https://wttr.example/sun.png');
  });

  it('client-rendered and client-run tools: one goes on in the run, the other pauses it for the client', async () => {
    const agent = w.client.getAgent('shop-agent');
    const shown = await agent.generate('Show product p-1', {
      script: script([{ toolName: 'showProductTool', args: { productId: 'p-1' } }]),
    });
    expect(shown.toolResults[0]).toMatchObject({ isError: false, output: { rendered: true } });

    const asked = await agent.generate('Pick a colour', {
      script: script([{ toolName: 'pickColourTool', args: { options: ['red', 'green'] } }]),
    });
    expect(asked.finishReason).toBe('tool-calls');
    const done = await w.client.submitToolResultGenerate({ runId: asked.runId, result: 'green' });
    expect(done.toolResults[0]).toMatchObject({ toolName: 'pickColourTool', output: 'green' });
  });

  it('transforms: the stream and the transcript get the masked SSN; the application gets the real one', async () => {
    const stream = await w.client.getAgent('shop-agent').stream('Look up c-1', {
      script: script([{ toolName: 'customerTool', args: { customerId: 'c-1' } }]),
    });
    const chunks = await collect(stream.fullStream);
    expect(ofType(chunks, 'tool-result')[0]!.output).toEqual({ ssn: '***-**-****' });
    expect(JSON.stringify(chunks)).not.toContain('123-45-6789');
    const result = await w.client.next(stream.runId);
    expect(result.toolResults[0]).toMatchObject({ output: { ssn: '123-45-6789' } });
    expect(JSON.stringify(result.messages)).not.toContain('123-45-6789');
  });

  it('hooks: beforeToolCall and afterToolCall log every call of the support agent', async () => {
    await w.client.getAgent('support-agent').generate('Weather in Kyiv', {
      script: script([{ toolName: 'weatherTool', args: { location: 'Kyiv' } }]),
    });
    expect(log).toEqual([
      ['Running weatherTool', { location: 'Kyiv' }],
      [
        'Finished weatherTool',
        { output: { location: 'Kyiv', temperatureCelsius: 21, conditions: 'Sunny' }, error: undefined },
      ],
    ]);
  });

  it('hooks: the guarded agent blocks rm -rf with its own output, and runs the rest', async () => {
    const result = await w.client.getAgent('guarded-agent').generate('Clean up', {
      script: script([
        { toolName: 'execute_command', args: { command: 'rm -rf /' } },
        { toolName: 'execute_command', args: { command: 'ls' } },
      ]),
    });
    expect(result.toolResults.map((r) => ('output' in r ? r.output : r.error))).toEqual([
      'Command blocked by policy.',
      'ran ls',
    ]);
    expect(commands).toEqual(['ls']);
  });

  it('per-run hooks cannot be stored with a durable run: refused, naming where hooks go', async () => {
    const supportAgentClient = w.client.getAgent('support-agent');
    const hooks = {
      beforeToolCall: ({ toolName }: { toolName: string }) => {
        log.push([`This run only: ${toolName}`]);
      },
    };
    await expect(
      supportAgentClient.generate('Look up the order status', {
        hooks,
        script: script([{ toolName: 'weatherTool', args: { location: 'Lima' } }]),
      } as never),
    ).rejects.toThrow(/^Invalid run options: hooks: .* Put them on the agent \(defineAgent\(\{ hooks \}\)\)/);
    expect(log).not.toContainEqual(['This run only: weatherTool']);
  });

  it('lifecycle hooks: onInputAvailable and onOutput', async () => {
    await w.client.getAgent('naming-agent').stream('Weather in Quito', {
      script: script([{ toolName: 'lifecycleWeatherTool', args: { location: 'Quito' } }]),
    });
    const result = await w.client.getAgent('naming-agent').generate('Weather in Quito', {
      script: script([{ toolName: 'lifecycleWeatherTool', args: { location: 'Quito' } }]),
    });
    expect(result.toolResults[0]).toMatchObject({ isError: false });
    expect(log).toContainEqual(['Weather requested for: Quito']);
    expect(log).toContainEqual(['lifecycleWeatherTool result: 21°C, Sunny']);
  });

  it("toolName is the key: the variable's name, the tool's id, or a custom key", async () => {
    const stream = await w.client.getAgent('naming-agent').stream('Weather twice', {
      script: script([
        { toolName: 'weather-tool', args: { location: 'A' } },
        { toolName: 'my-custom-name', args: { location: 'B' } },
      ]),
    });
    const chunks = await collect(stream.fullStream);
    // The two calls run at once: their results stream in the order they finish.
    expect(
      ofType(chunks, 'tool-result')
        .map((c) => c.toolName)
        .sort(),
    ).toEqual(['my-custom-name', 'weather-tool']);
  });

  it('sub-agents and workflows are agent-<key> and workflow-<key>', async () => {
    const stream = await w.client.getAgent('orchestrator').stream('Weather and research', {
      script: script([
        { toolName: 'agent-weather', args: { prompt: 'Weather in Bern' } },
        { toolName: 'workflow-research', args: { topic: 'Bern' } },
      ]),
      subAgentOptions: { weather: { script: [{ text: 'Sunny in Bern.' }] } },
    });
    const chunks = await collect(stream.fullStream);
    // The two run in parallel: their results come as they finish.
    const results = ofType(chunks, 'tool-result').map((c) => [c.toolName, c.output]);
    expect(results).toHaveLength(2);
    expect(results).toContainEqual(['agent-weather', expect.objectContaining({ text: 'Sunny in Bern.' })]);
    expect(results).toContainEqual(['workflow-research', { summary: 'Notes on Bern' }]);
  });

  it('toolChoice and activeTools: only the active tool may run', async () => {
    const agent = w.client.getAgent('hazards-weather-agent');
    // `required` holds for every step, as in the AI SDK: this run stops after its one step.
    const forecast = await agent.generate('Check the forecast', {
      toolChoice: 'required',
      activeTools: ['weatherTool'],
      maxSteps: 1,
      script: [{ toolCalls: [{ toolName: 'weatherTool', args: { location: 'Nice' } }] }],
    });
    expect(forecast.toolResults[0]).toMatchObject({ toolName: 'weatherTool', isError: false });
    // A model that calls a tool it was not offered gets an error, and nothing runs.
    const sneaky = await agent.generate('Check the forecast', {
      activeTools: ['weatherTool'],
      script: script([{ toolName: 'placeOrderTool', args: { sku: 'x', quantity: 1 } }]),
    });
    expect(sneaky.toolResults[0]).toMatchObject({ toolName: 'placeOrderTool', isError: true });
    expect(placed.filter((o) => (o as { sku: string }).sku === 'x')).toEqual([]);
  });

  it('web_fetch, listed as `fetch`, keeps its id as its name, and refuses a private address without throwing', async () => {
    const result = await w.client.getAgent('reader-agent').generate('Read http://127.0.0.1/', {
      script: script([{ toolName: 'web_fetch', args: { url: 'http://127.0.0.1/' } }]),
    });
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'web_fetch',
      isError: false,
      output: { isError: true, content: 'refused http://127.0.0.1/: 127.0.0.1 is loopback' },
    });
  });

  it('ask_user: the suspended chunk carries the question and options; resumeStream answers', async () => {
    const agent = w.client.getAgent('assistant');
    const getUserAnswer = async () => ({ answer: 'green' }); // your UI logic
    const asked: unknown[] = [];
    const stream = await agent.stream('Summarize my project', {
      script: script([{ toolName: 'ask_user', args: { question: 'Which colour?', options: ['red', 'green'] } }]),
    });

    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-suspended') {
        const { question, options } = chunk.payload.suspendPayload as { question: string; options?: string[] };
        asked.push(question, options);
        const answer = await getUserAnswer(); // your UI logic
        const resumed = await agent.resumeStream(answer, { runId: stream.runId });
        for await (const c of resumed.textStream) log.push([c]);
      }
    }
    expect(asked).toEqual(['Which colour?', ['red', 'green']]);
    expect(log).toEqual([['Done.']]);
  });

  it('submit_plan: the plan is approved from its suspended chunk', async () => {
    const agent = w.client.getAgent('assistant');
    const stream = await agent.stream('Plan the theme switch', {
      script: script([{ toolName: 'submit_plan', args: { plan: '1. Switch.', path: 'plans/theme.md' } }]),
    });
    const paths: unknown[] = [];
    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-suspended' && chunk.payload.toolName === 'submit_plan') {
        const { path } = chunk.payload.suspendPayload as { path?: string };
        paths.push(path);
        // Read and display the plan file, then resume:
        const resumed = await agent.resumeStream({ action: 'approved' }, { runId: stream.runId });
        for await (const c of resumed.textStream) log.push([c]);
      }
    }
    expect(paths).toEqual(['plans/theme.md']);
    expect(log).toEqual([['Done.']]);
  });
});
