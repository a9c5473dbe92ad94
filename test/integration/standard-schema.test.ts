/**
 * The Tools page's weather tool in its three forms (zod, valibot, arktype), run as the page writes
 * them on a worker and dev server: the model is shown each one's JSON schema, gets its output, and
 * arguments the schema refuses are a tool error naming the field. A tool with valibot suspend and resume
 * schemas is resumed: data the stored JSON schema refuses is refused by the client, data only valibot
 * refuses is refused by the worker, and the call keeps waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidResumeDataError, type JsonValue, type Script } from '../../src/index.js';
import { modelCalls, spyModels } from '../fixtures/agents.js';
import { askingWeatherAgent, weatherAgents } from '../fixtures/tools-page/agents.js';
import { historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([...Object.values(weatherAgents), askingWeatherAgent], { models: spyModels });
});
afterAll(async () => {
  await w?.stop();
});

const callWeather = (args: JsonValue): Script => [
  { toolCalls: [{ toolName: 'weatherTool', args }] },
  { text: 'Here is the weather.' },
];

describe.each(['zod', 'valibot', 'arktype'] as const)("the Tools page's %s weather tool", (library) => {
  const agentId = `weather-agent-${library}`;

  it('is shown to the model with its JSON schema, and runs', async () => {
    const before = modelCalls.length;
    const result = await w.client.generate(agentId, 'What is the weather in Oslo?', {
      script: callWeather({ location: 'Oslo' }),
    });
    expect(modelCalls[before]!.tools).toEqual([
      expect.objectContaining({
        name: 'weatherTool',
        description: 'Fetches weather for a location',
        inputSchema: expect.objectContaining({
          type: 'object',
          properties: { location: { type: 'string' } },
          required: ['location'],
        }),
      }),
    ]);
    expect(result.toolResults).toEqual([
      {
        toolCallId: 'call-0-0',
        toolName: 'weatherTool',
        isError: false,
        output: { location: 'Oslo', temperatureCelsius: 21, conditions: 'sunny' },
      },
    ]);
    expect(result.text).toBe('Here is the weather.');
  });

  it('refuses arguments its schema refuses, as a tool error naming the field', async () => {
    const result = await w.client.generate(agentId, 'What is the weather?', {
      script: callWeather({ location: 42 }),
    });
    expect(result.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'weatherTool',
        isError: true,
        error: expect.stringMatching(/^Invalid call of tool "weatherTool": .*string.*\n {2}→ at location/s),
      }),
    ]);
    expect(result.finishReason).toBe('stop');
    expect(await historyEventTypes(w.client, result.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });
});

describe('a tool with valibot suspend and resume schemas', () => {
  it('suspends, stores the JSON schema of its resume data, refuses data that does not fit, and resumes', async () => {
    const paused = await w.client.generate('asking-weather-agent', 'What is the weather?', {
      script: callWeather({}),
    });
    expect(paused.finishReason).toBe('suspended');
    expect(paused.suspendPayload).toMatchObject({
      toolName: 'weatherTool',
      payload: { question: 'Which city would you like the weather for?' },
    });
    expect(paused.pendingToolCalls[0]!.resumeSchema).toMatchObject({
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
    });

    // The client checks the stored JSON schema before it signals.
    const wrongType = w.client.resumeGenerate({ location: 5 }, { runId: paused.runId });
    await expect(wrongType).rejects.toBeInstanceOf(InvalidResumeDataError);
    await expect(w.client.resumeGenerate({ location: 5 }, { runId: paused.runId })).rejects.toThrow(
      /does not fit the resumeSchema of tool call call-0-0 \(weatherTool\): location: /,
    );

    // What JSON schema cannot say, the worker's valibot refuses.
    const atlantis = w.client.resumeGenerate({ location: 'Atlantis' }, { runId: paused.runId });
    await expect(atlantis).rejects.toMatchObject({
      name: 'InvalidResumeDataError',
      reason: 'resume data does not fit the resumeSchema of tool "weatherTool": location: Atlantis has no weather',
    });
    expect(await w.client.getRun(paused.runId)).toMatchObject({
      status: 'suspended',
      pendingToolCalls: [expect.objectContaining({ toolCallId: 'call-0-0', kind: 'suspend' })],
    });

    const done = await w.client.resumeGenerate({ location: 'Oslo' }, { runId: paused.runId });
    expect(done.toolResults).toEqual([
      expect.objectContaining({
        isError: false,
        output: { location: 'Oslo', temperatureCelsius: 21, conditions: 'sunny' },
      }),
    ]);
    expect(await historyEventTypes(w.client, done.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });
});
