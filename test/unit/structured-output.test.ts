/**
 * Structured output's pure parts: what a run may store as its output schema, the check of the model's
 * answer against it, what a finished run's result says, and how callers' schemas become the stored one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildRunInput } from '../../src/client/runs/run-input.js';
import { defineAgent, InvalidRunOptionsError } from '../../src/index.js';
import { RunOptionsSchema } from '../../src/schemas/run-options.js';
import {
  checkObject,
  MAX_OUTPUT_SCHEMA_BYTES,
  StructuredOutputSpecSchema,
} from '../../src/schemas/structured-output.js';
import { safeParse } from '../../src/schemas/json.js';
import { structuredOutputSpec } from '../../src/structured-output.js';
import { runResult } from '../../src/workflows/run/transcript.js';
import type { StepRecord } from '../../src/schemas/run-result.js';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
  required: ['city', 'temperatureC'],
};
const spec = { schema };

describe('checkObject', () => {
  it('parses and checks the answer', () => {
    expect(checkObject(spec, '{"city":"Lyon","temperatureC":21}', 'stop')).toEqual({
      object: { city: 'Lyon', temperatureC: 21 },
    });
  });

  it('takes JSON in a Markdown fence, as models without a JSON mode write it', () => {
    expect(checkObject(spec, '```json\n{"city":"Lyon","temperatureC":21}\n```', 'stop')).toEqual({
      object: { city: 'Lyon', temperatureC: 21 },
    });
  });

  it('says the answer is not JSON, quoting it, clipped', () => {
    expect(checkObject(spec, 'Sorry.', 'stop')).toEqual({
      objectError: 'The model answered with text that is not JSON: "Sorry.".',
    });
    expect(checkObject(spec, '', 'stop')).toEqual({ objectError: 'The model answered with no text.' });
    const long = checkObject(spec, 'x'.repeat(5000), 'stop');
    expect('objectError' in long && long.objectError.length).toBeLessThan(300);
  });

  it('says what does not fit the schema, and that the answer was cut off', () => {
    expect(checkObject(spec, '{"city":"Lyon"}', 'stop')).toEqual({
      objectError: expect.stringMatching(/^The model's answer does not match the output schema: temperatureC: /),
    });
    expect(checkObject(spec, '{"city":"Ly', 'length')).toEqual({
      objectError: expect.stringContaining('(the answer was cut off at the output token limit)'),
    });
  });
});

describe('the output schema a run stores', () => {
  const refused = (value: unknown) => {
    const parsed = safeParse(StructuredOutputSpecSchema, value);
    return parsed.success ? undefined : parsed.error;
  };

  it('takes a JSON schema with an object at the root', () => {
    expect(refused({ schema, name: 'weather', description: 'A report' })).toBeUndefined();
  });

  it('refuses another root, an unknown key, a schema too large, and one it cannot check', () => {
    expect(refused({ schema: { type: 'array', items: {} } })).toMatch(/not an object.*wrap a list/);
    expect(refused({ schema: {} })).toMatch(/its root is of no type/);
    expect(refused({ schema, strict: true })).toMatch(/Unrecognized key: "strict"/);
    const huge = { type: 'object', description: 'x'.repeat(MAX_OUTPUT_SCHEMA_BYTES) };
    expect(refused({ schema: huge })).toMatch(/16 KiB/);
    expect(refused({ schema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } } })).toMatch(
      /cannot be checked here/,
    );
  });

  it('refuses a self-referencing schema without throwing', () => {
    const loop = { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/a' } } };
    expect(() => RunOptionsSchema.safeParse({ structuredOutput: { schema: loop } })).not.toThrow();
  });
});

describe("callers' schemas", () => {
  it('makes a zod schema the JSON schema of what the model writes (its input)', () => {
    const made = structuredOutputSpec({
      schema: z.object({ when: z.string().transform((s) => new Date(s)) }),
      name: 'event',
    });
    expect(made).toEqual({
      spec: {
        schema: expect.objectContaining({ type: 'object', properties: { when: { type: 'string' } } }),
        name: 'event',
      },
    });
  });

  it('refuses what is not a schema, a schema with no JSON schema, and an unknown key', () => {
    expect(structuredOutputSpec({ schema: 'object' })).toEqual({ problem: expect.stringMatching(/^schema is /) });
    const noJson = { '~standard': { version: 1, vendor: 'valibot', validate: () => ({ value: 1 }) } };
    expect(structuredOutputSpec({ schema: noJson })).toEqual({ problem: expect.stringMatching(/JSON/) });
    expect(structuredOutputSpec({ schema: z.object({}), mode: 'json' })).toEqual({
      problem: expect.stringContaining('unknown option "mode"'),
    });
    expect(structuredOutputSpec({ schema: z.array(z.string()) })).toEqual({
      problem: expect.stringContaining('not an object'),
    });
  });

  it('is refused by the client with InvalidRunOptionsError, and by defineAgent with a TypeError', () => {
    const start = () => buildRunInput('a', 'hi', { structuredOutput: { schema: z.string() } }, () => {});
    expect(start).toThrow(InvalidRunOptionsError);
    expect(start).toThrow(/structuredOutput: .*not an object/);
    expect(() =>
      defineAgent({ id: 'a', name: 'A', model: 'scripted', structuredOutput: { schema: z.number() } }),
    ).toThrow(/defineAgent\("a"\): structuredOutput: .*not an object/);
    expect(() =>
      defineAgent({
        id: 'a',
        name: 'A',
        model: 'scripted',
        structuredOutput: { schema: z.object({}) },
        defaultOptions: { structuredOutput: { schema: { type: 'object' } } },
      }),
    ).toThrow(/structuredOutput is set twice/);
  });
});

describe("a finished run's result", () => {
  const step = (extra: Partial<StepRecord>): StepRecord => ({
    stepNumber: 0,
    text: '',
    toolCalls: [],
    toolResults: [],
    finishReason: 'stop',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    ...extra,
  });
  const result = (steps: StepRecord[], structured: boolean) =>
    runResult({ runId: 'r', agentId: 'a', steps, messages: [], pending: [], decisions: [], structured });

  it("has its last step's object, or that step's reason", () => {
    expect(result([step({ object: { a: 1 } })], true)).toMatchObject({ object: { a: 1 } });
    expect(result([step({ objectError: 'not JSON' })], true)).toMatchObject({ objectError: 'not JSON' });
  });

  it('says there was no answer when the last step called tools', () => {
    const called = step({ finishReason: 'tool-calls' });
    expect(result([called, { ...called, stepNumber: 1 }], true).objectError).toBe(
      'The run ended after 2 steps without a final answer (finish reason "tool-calls"): raise maxSteps, or ' +
        'give the model fewer tools to call.',
    );
  });

  it('has neither for a run without an output schema, or one that has not ended', () => {
    const r = result([step({ text: 'hi' })], false);
    expect(r.object).toBeUndefined();
    expect(r.objectError).toBeUndefined();
  });
});
