/**
 * The real `@ai-sdk/openai` provider over real HTTP, against a small OpenAI-compatible server that
 * the test runs on localhost: a tool call, then text.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallModelInput } from '../../src/protocol/activities.js';
import { weatherAgent } from '../../examples/weather-agent.js';
import { defineAgent } from '../../src/index.js';
import { startWorker, type TestWorker } from '../helpers.js';
import { startFakeOpenAI, type FakeOpenAI } from '../openai-server.js';

/** The example weather agent, on an OpenAI model (the agent owns its model). */
const openaiWeatherAgent = defineAgent({ ...weatherAgent, model: 'openai/gpt-test' });

let server: FakeOpenAI;
let w: TestWorker;

/** The model-call inputs of a run, as its history records them. */
async function modelCallInputs(runId: string): Promise<CallModelInput[]> {
  const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') return [];
    return [defaultPayloadConverter.fromPayload<CallModelInput>(scheduled.input!.payloads![0]!)];
  });
}

beforeAll(async () => {
  server = await startFakeOpenAI((request) => {
    const toolMessage = request.messages.find((m) => m.role === 'tool');
    return toolMessage
      ? { text: `The tool said: ${String(toolMessage.content)}` }
      : { toolCalls: [{ id: 'call_abc', name: 'weather', args: { city: 'Lyon' } }] };
  });
  server.useInThisProcess();
  w = await startWorker([openaiWeatherAgent]);
});

afterAll(async () => {
  await w?.stop();
  await server?.close();
});

it('runs an agent on openai/<model> through @ai-sdk/openai over HTTP: a tool call, then text', async () => {
  const result = await w.client.generate('weather-agent', 'Weather in Lyon?');

  expect(result.finishReason).toBe('stop');
  expect(result.toolCalls).toEqual([{ toolCallId: 'call_abc', toolName: 'weather', args: { city: 'Lyon' } }]);
  expect(result.toolResults[0]).toMatchObject({ isError: false, output: { city: 'Lyon' } });
  expect(result.text).toMatch(/^The tool said: \{"city":"Lyon","temperatureC":\d+,"conditions":"[a-z ]+"\}$/);
  expect(result.usage).toEqual({ inputTokens: 24, outputTokens: 10, totalTokens: 34 });

  expect(server.requests).toHaveLength(2);
  const [first, second] = server.requests;
  expect(first!.path).toBe('/v1/chat/completions');
  expect(first!.auth).toBe('Bearer sk-test-key');
  expect(first!.body.model).toBe('gpt-test');
  expect(first!.body.messages[0]).toEqual({ role: 'system', content: weatherAgent.instructions });
  expect(first!.body.tools?.map((t) => t.function.name)).toEqual(['weather']);
  expect(first!.body.tools?.[0]?.function.parameters).toMatchObject({
    properties: { city: { type: 'string' } },
    required: ['city'],
  });
  expect(second!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  expect(second!.body.messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc' });
  // The provider got the whole conversation though the second model call carried only the tool's result
  // and a reference to the two messages before it (the worker's cache held them).
  const calls = await modelCallInputs(result.runId);
  expect(calls[1]).toMatchObject({ conversation: { sameSetup: expect.any(String) } });
  expect(calls[1]!.tools).toBeUndefined();
  expect(calls.map((c) => [c.messages, c.conversation?.base.count, c.conversation?.added.map((m) => m.role)])).toEqual([
    [undefined, 0, ['user']],
    [undefined, 2, ['tool']],
  ]);
});
