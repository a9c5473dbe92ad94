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
  objectOfText,
  StructuredOutputSpecSchema,
} from '../../src/schemas/structured-output.js';
import { safeParse } from '../../src/schemas/json.js';
import { structuredOutputSpec } from '../../src/structured-output.js';
import { runResult } from '../../src/workflows/run/transcript.js';
import { RunResultSchema, type StepRecord } from '../../src/schemas/run-result.js';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
  required: ['city', 'temperatureC'],
};
const spec = { schema };

describe('checkObject', () => {
  it('parses and checks the answer', () => {
    expect(checkObject(spec, '{"city":"Lyon","temperatureC":21}', 'stop')).toEqual({ objectOk: true });
  });

  it('takes JSON in a Markdown fence, as models without a JSON mode write it', () => {
    const fenced = '```json\n{"city":"Lyon","temperatureC":21}\n```';
    expect(checkObject(spec, fenced, 'stop')).toEqual({ objectOk: true });
    expect(objectOfText(fenced)).toEqual({ city: 'Lyon', temperatureC: 21 });
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

  it('refuses a schema whose references fan out, which would take hours to check an answer against', () => {
    // Each level checks the next twice: 2^30 checks of a 2 KiB schema.
    const $defs: Record<string, unknown> = { d30: { type: 'object' } };
    for (let i = 0; i < 30; i++)
      $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    const fanOut = { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs };
    expect(refused({ schema: fanOut })).toMatch(/more than 2000 schema nodes with its \$refs expanded/);
    // A recursive schema (a tree) is fine: a reference back into itself counts once.
    const tree = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
    };
    expect(refused({ schema: tree })).toBeUndefined();
  });

  it('refuses a pattern that can take exponential time on some strings', () => {
    const redos = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    expect(refused({ schema: redos })).toMatch(/its pattern "\^\(a\+\)\+\$" may take exponential time/);
    const keys = { type: 'object', patternProperties: { '^(x|xy)*z$': {}, '(\\w+\\s?)*$': {} } };
    expect(refused({ schema: keys })).toMatch(/may take exponential time/);
    const fine = { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+-\\d{2}$' } } };
    expect(refused({ schema: fine })).toBeUndefined();
  });

  it('refuses a name a provider would refuse', () => {
    expect(refused({ schema, name: 'weather report!' })).toMatch(/a name is 1-64 letters, digits, _ or -/);
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
        // Closed, as OpenAI's strict JSON mode takes an object (the AI SDK's zodSchema closes them too).
        schema: expect.objectContaining({
          type: 'object',
          properties: { when: { type: 'string' } },
          additionalProperties: false,
        }),
        name: 'event',
      },
    });
  });

  it('refuses a schema with what JSON schema cannot say, which no answer could pass', () => {
    expect(structuredOutputSpec({ schema: z.object({ at: z.date() }) })).toEqual({
      problem: expect.stringMatching(/^schema has no JSON schema: .*Date/),
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
  // As a reader gets it: the object is read from the last step's text, which the worker checked.
  const result = (steps: StepRecord[], structured: boolean) =>
    RunResultSchema.parse(
      runResult({ runId: 'r', agentId: 'a', steps, messages: [], pending: [], decisions: [], structured }),
    );

  it("has its last step's object, or that step's reason", () => {
    const checked = result([step({ text: '```json\n{"a":1}\n```', objectOk: true })], true);
    expect(checked.object).toEqual({ a: 1 });
    // Kept once, as the text: the stored result holds no second copy.
    expect(
      runResult({
        runId: 'r',
        agentId: 'a',
        steps: [step({ text: '{"a":1}', objectOk: true })],
        messages: [],
        pending: [],
        decisions: [],
        structured: true,
      }),
    ).not.toHaveProperty('object');
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
