/**
 * Structured output through the real provider packages over real HTTP: the model is asked for JSON in its
 * provider's JSON mode (OpenAI's `response_format`, Anthropic's output format, Gemini's response schema),
 * and the run's answer is checked and typed. Approvals before the answer, streams of partial objects, an
 * agent's own schema, and a model that cannot produce the object (a typed error, never a hanging run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { createTool, defineAgent, StructuredOutputError } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../anthropic-server.js';
import { startFakeGoogle, type FakeGoogle } from '../google-server.js';
import { startWorker, type TestWorker } from '../helpers.js';
import { startFakeOpenAI, type FakeOpenAI } from '../openai-server.js';

const Report = z.object({
  city: z.string(),
  temperatureC: z.number(),
  // What JSON schema cannot say, the caller's schema still checks and makes of the answer.
  conditions: z.string().transform((s) => s.toUpperCase()),
});

const weather = createTool({
  id: 'weather',
  description: 'Current weather in a city',
  inputSchema: z.object({ city: z.string() }),
  requireApproval: true,
  execute: ({ city }) => ({ city, temperatureC: 21, conditions: 'sunny' }),
});

const REPORT = { city: 'Lyon', temperatureC: 21, conditions: 'sunny' };

let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let google: FakeGoogle;
let w: TestWorker;
const savedEnv = { ...process.env };

beforeAll(async () => {
  [openai, anthropic, google] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGoogle()]);
  openai.useInThisProcess();
  anthropic.useInThisProcess();
  google.useInThisProcess();
  w = await startWorker([
    defineAgent({ id: 'extractor', name: 'Extractor', model: 'openai/gpt-test' }),
    defineAgent({ id: 'reporter', name: 'Reporter', model: 'openai/gpt-test', tools: { weather } }),
    defineAgent({
      id: 'typed',
      name: 'Typed',
      model: 'openai/gpt-test',
      structuredOutput: { schema: Report, name: 'weather_report', description: 'A weather report' },
    }),
    defineAgent({ id: 'claude', name: 'Claude', model: 'anthropic/claude-sonnet-4-5' }),
    defineAgent({ id: 'gemini', name: 'Gemini', model: 'google/gemini-2.5-flash' }),
  ]);
});

afterAll(async () => {
  await w?.stop();
  await Promise.all([openai, anthropic, google].map((s) => s?.close()));
  process.env = savedEnv;
});

/** The JSON schema each request showed the model, as OpenAI's Chat Completions carries it. */
function openaiFormats(): unknown[] {
  return openai.requests.map((r) => r.body.response_format);
}

describe('structured output on openai/<model>', () => {
  it('asks for the schema in JSON mode and returns the object, typed and made by the schema', async () => {
    openai.reset();
    openai.answer({ text: JSON.stringify(REPORT) });

    const result = await w.client.generate('extractor', 'Weather in Lyon?', { structuredOutput: { schema: Report } });

    // Typed by the schema: `conditions` went through its transform on the way.
    const report: { city: string; temperatureC: number; conditions: string } | undefined = result.object;
    expect(report).toEqual({ city: 'Lyon', temperatureC: 21, conditions: 'SUNNY' });
    expect(result.text).toBe(JSON.stringify(REPORT));
    expect(openaiFormats()).toEqual([
      {
        type: 'json_schema',
        json_schema: expect.objectContaining({
          schema: expect.objectContaining({
            type: 'object',
            required: ['city', 'temperatureC', 'conditions'],
            additionalProperties: false,
          }),
          strict: true,
        }),
      },
    ]);
    // The run's stored result carries the object as the worker checked it against the JSON schema.
    const stored = await w.client.result(result.runId);
    expect(stored.object).toEqual(REPORT);
    expect(stored.objectError).toBeUndefined();
  });

  it('takes a JSON schema as such (as the HTTP API and agentctl send it)', async () => {
    openai.reset();
    openai.answer({ text: '{"city":"Lyon"}' });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const result = await w.client.generate('extractor', 'Where?', { structuredOutput: { schema } });
    expect(result.object).toEqual({ city: 'Lyon' });
  });

  it('waits for an approval before the answer, then returns the object', async () => {
    openai.reset();
    openai.answer(
      { toolCalls: [{ id: 'call_w', name: 'weather', args: { city: 'Lyon' } }] },
      { text: JSON.stringify(REPORT) },
    );

    const paused = await w.client.generate('reporter', 'Weather in Lyon?', { structuredOutput: { schema: Report } });
    expect(paused.finishReason).toBe('suspended');
    expect(paused.object).toBeUndefined();
    expect(paused.objectError).toBeUndefined();
    // The tool call's step was asked for the JSON mode too: the provider decides when the answer comes.
    expect(openaiFormats()).toHaveLength(1);

    const done = await w.client.decide(
      { kind: 'approve', runId: paused.runId, toolCallId: 'call_w' },
      { then: 'result' },
    );
    expect(done.finishReason).toBe('stop');
    expect(done.object).toEqual(REPORT);
    expect(done.toolResults[0]).toMatchObject({ isError: false, output: { city: 'Lyon' } });
    expect(openaiFormats()).toEqual([
      expect.objectContaining({ type: 'json_schema' }),
      expect.objectContaining({ type: 'json_schema' }),
    ]);
  });

  it('throws StructuredOutputError when the model answers with text that is not the object', async () => {
    openai.reset();
    openai.answer({ text: 'Sorry, I cannot tell the weather.' });
    const failed = await w.client
      .generate('extractor', 'Weather in Lyon?', { structuredOutput: { schema: Report } })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(StructuredOutputError);
    const error = failed as StructuredOutputError;
    expect(error.reason).toBe('The model answered with text that is not JSON: "Sorry, I cannot tell the weather.".');
    expect(error.text).toBe('Sorry, I cannot tell the weather.');
    // The run finished; nothing waits, and its result says why it has no object.
    const stored = await w.client.result(error.runId);
    expect(stored.finishReason).toBe('stop');
    expect(stored.objectError).toBe(error.reason);
  });

  it('throws StructuredOutputError naming what does not fit the schema', async () => {
    openai.reset();
    openai.answer({ text: '{"city":"Lyon","temperatureC":"warm","conditions":"sunny"}' });
    const failed = await w.client
      .generate('extractor', 'Weather in Lyon?', { structuredOutput: { schema: Report } })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(StructuredOutputError);
    expect((failed as StructuredOutputError).reason).toMatch(
      /^The model's answer does not match the output schema: temperatureC: .*expected number/,
    );
  });

  it('throws StructuredOutputError when the run runs out of steps before an answer', async () => {
    openai.reset();
    openai.answer({ toolCalls: [{ id: 'call_x', name: 'weather', args: { city: 'Lyon' } }] });
    const paused = await w.client.generate('reporter', 'Weather?', {
      structuredOutput: { schema: Report },
      maxSteps: 1,
    });
    const done = await w.client.decide(
      { kind: 'approve', runId: paused.runId, toolCallId: 'call_x' },
      { then: 'result' },
    );
    expect(done.object).toBeUndefined();
    expect(done.objectError).toBe(
      'The run ended after 1 step without a final answer (finish reason "tool-calls"): raise maxSteps, or give ' +
        'the model fewer tools to call.',
    );
  });

  it('stops checking an answer that a pattern backtracks on, and the worker goes on', async () => {
    openai.reset();
    // Overlapping alternatives pass any static check, yet take hours on 40 characters and a mismatch.
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a|a)*$' } } };
    openai.answer({ text: JSON.stringify({ s: `${'a'.repeat(40)}!` }) }, { text: '{"city":"Lyon"}' });
    const failed = await w.client
      .generate('extractor', 'Go', { structuredOutput: { schema } })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(StructuredOutputError);
    expect((failed as StructuredOutputError).reason).toMatch(
      /^The answer could not be checked against the output schema within 2 s/,
    );
    const next = await w.client.generate('extractor', 'Where?', {
      structuredOutput: { schema: { type: 'object', properties: { city: { type: 'string' } } } },
    });
    expect(next.object).toEqual({ city: 'Lyon' });
  });

  it('streams partial objects as the model writes, then the object', async () => {
    openai.reset();
    const text = JSON.stringify(REPORT);
    openai.answer({ text, deltas: [text.slice(0, 16), text.slice(16, 36), text.slice(36)], gapMs: 300 });

    const stream = await w.client.stream('extractor', 'Weather in Lyon?', { structuredOutput: { schema: Report } });
    const partials: unknown[] = [];
    for await (const partial of stream.partialObjectStream) partials.push(partial);

    expect(partials.length).toBeGreaterThanOrEqual(2);
    expect(partials[0]).toEqual({ city: 'Lyon' });
    expect(partials.at(-1)).toEqual(REPORT);
    // Typed by the schema, and made by it.
    const object: { conditions: string } | undefined = await stream.object;
    expect(object).toEqual({ ...REPORT, conditions: 'SUNNY' });
  });

  it("rejects a streamed run's object with StructuredOutputError when there is none", async () => {
    openai.reset();
    openai.answer({ text: 'no' });
    const stream = await w.client.stream('extractor', 'Weather?', { structuredOutput: { schema: Report } });
    await expect(stream.object).rejects.toBeInstanceOf(StructuredOutputError);
  });

  it("uses the agent's own schema, with its name and description, and a run may replace it", async () => {
    openai.reset();
    openai.answer({ text: JSON.stringify(REPORT) }, { text: '{"n":1}' });

    const result = await w.client.generate('typed', 'Weather in Lyon?');
    expect(result.object).toEqual(REPORT);
    const replaced = await w.client.generate('typed', 'A number', {
      structuredOutput: { schema: z.object({ n: z.number() }) },
    });
    expect(replaced.object).toEqual({ n: 1 });

    const [own, theirs] = openaiFormats() as Array<{
      json_schema: { name: string; description?: string; schema: object };
    }>;
    expect(own!.json_schema).toMatchObject({ name: 'weather_report', description: 'A weather report' });
    expect(theirs!.json_schema.schema).toMatchObject({ properties: { n: { type: 'number' } } });
  });
});

describe('structured output with other Standard Schema libraries', () => {
  it('takes an arktype type and a valibot schema, typed and checked by them', async () => {
    openai.reset();
    openai.answer({ text: '{"city":"Lyon","temperatureC":21}' }, { text: '{"city":"Lyon","temperatureC":21}' });

    const arkReport = type({ city: 'string', temperatureC: 'number' });
    const ark = await w.client.generate('extractor', 'Weather?', { structuredOutput: { schema: arkReport } });
    const arkObject: { city: string; temperatureC: number } | undefined = ark.object;
    expect(arkObject).toEqual({ city: 'Lyon', temperatureC: 21 });

    const valiReport = toStandardJsonSchema(v.object({ city: v.string(), temperatureC: v.number() }));
    const vali = await w.client.generate('extractor', 'Weather?', { structuredOutput: { schema: valiReport } });
    const valiObject: { city: string; temperatureC: number } | undefined = vali.object;
    expect(valiObject).toEqual({ city: 'Lyon', temperatureC: 21 });

    // Each library's JSON schema, closed, went to the provider.
    for (const format of openaiFormats() as Array<{ json_schema: { schema: object } }>) {
      expect(format.json_schema.schema).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
        additionalProperties: false,
      });
    }
  });
});

describe('structured output on other providers', () => {
  it('asks Anthropic for its output format and returns the object', async () => {
    anthropic.reset();
    anthropic.answer({ text: JSON.stringify(REPORT) });
    const result = await w.client.generate('claude', 'Weather in Lyon?', { structuredOutput: { schema: Report } });
    expect(result.object).toEqual({ ...REPORT, conditions: 'SUNNY' });
    expect(anthropic.requests[0]!.body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: expect.objectContaining({ type: 'object', required: ['city', 'temperatureC', 'conditions'] }),
      },
    });
  });

  it('asks Gemini for its response schema and returns the object', async () => {
    google.reset();
    google.answer({ text: JSON.stringify(REPORT) });
    const result = await w.client.generate('gemini', 'Weather in Lyon?', { structuredOutput: { schema: Report } });
    expect(result.object).toEqual({ ...REPORT, conditions: 'SUNNY' });
    expect(google.requests[0]!.body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: expect.objectContaining({ required: ['city', 'temperatureC', 'conditions'] }),
    });
  });
});
