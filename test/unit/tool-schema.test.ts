/**
 * Tool schemas of any Standard Schema library: zod as before, valibot and arktype checked by their own
 * code and described to the model by their own JSON Schema converters, and a schema the model could not
 * be told about refused when the tool is defined.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { describeAgent } from '../../src/worker/activities/describe-agent.js';
import { createTool, defineAgent } from '../../src/index.js';
import { AgentRegistry } from '../../src/worker/registry.js';
import { checkWith, jsonSchemaOf, type ToolSchema } from '../../src/tools/schema.js';

const zodCity = z.object({ city: z.string(), days: z.number().int().min(1) });
const valibotCity = toStandardJsonSchema(v.object({ city: v.string(), days: v.pipe(v.number(), v.minValue(1)) }));
const arkCity = type({ city: 'string', days: 'number >= 1' });

const cityJson = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: expect.objectContaining({ type: expect.stringMatching(/number|integer/) }),
  },
  required: ['city', 'days'],
};

describe('checkWith and jsonSchemaOf', () => {
  it('check zod schemas as zod does, with its own issues and prettified text', async () => {
    expect(await checkWith(zodCity, { city: 'Oslo', days: 2 })).toEqual({ ok: true, value: { city: 'Oslo', days: 2 } });
    const bad = await checkWith(zodCity, { city: 3, days: 0 });
    const zodError = zodCity.safeParse({ city: 3, days: 0 }).error!;
    expect(bad).toEqual({ ok: false, issues: zodError.issues, pretty: z.prettifyError(zodError) });
    expect(jsonSchemaOf(zodCity)).toEqual(z.toJSONSchema(zodCity, { io: 'input', unrepresentable: 'any' }));
  });

  it.each([
    ['valibot', valibotCity],
    ['arktype', arkCity],
  ] as const)('check %s schemas with their own code, naming the field that fails', async (_, schema) => {
    expect(await checkWith(schema, { city: 'Oslo', days: 2 })).toMatchObject({ ok: true, value: { city: 'Oslo' } });
    const bad = await checkWith(schema, { city: 3, days: 2 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues).toEqual([{ message: expect.any(String), path: ['city'] }]);
    expect(bad.pretty).toMatch(/^✖ .*string.*\n {2}→ at city$/);
  });

  it.each([
    ['valibot', valibotCity],
    ['arktype', arkCity],
  ] as const)('describe %s schemas by their JSON Schema converter, in draft 2020-12 as zod', (_, schema) => {
    expect(jsonSchemaOf(schema)).toEqual({
      ...cityJson,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
  });

  it('leave open what valibot cannot say in JSON schema, as zod does, and still check it', async () => {
    const noAtlantis = toStandardJsonSchema(
      v.object({
        city: v.pipe(
          v.string(),
          v.check((c) => c !== 'Atlantis', 'no such city'),
        ),
        at: v.date(),
      }),
    );
    expect(jsonSchemaOf(noAtlantis)).toMatchObject({ properties: { city: { type: 'string' }, at: {} } });
    expect(await checkWith(noAtlantis, { city: 'Atlantis', at: new Date() })).toMatchObject({
      ok: false,
      pretty: '✖ no such city\n  → at city',
    });
  });

  it('await a Standard Schema that checks asynchronously, and read path segments given as { key }', async () => {
    const remote: ToolSchema<{ id: string }> = {
      '~standard': {
        version: 1,
        vendor: 'hand-made',
        validate: async (value) =>
          (value as { id?: unknown }).id === 'known'
            ? { value: value as { id: string } }
            : { issues: [{ message: 'unknown id', path: [{ key: 'items' }, { key: 0 }, 'id'] }] },
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    expect(await checkWith(remote, { id: 'known' })).toEqual({ ok: true, value: { id: 'known' } });
    expect(await checkWith(remote, { id: 'other' })).toEqual({
      ok: false,
      issues: [{ message: 'unknown id', path: ['items', 0, 'id'] }],
      pretty: '✖ unknown id\n  → at items[0].id',
    });
  });
});

describe('createTool with schemas of any library', () => {
  it('types execute from the schemas, whatever the library', () => {
    createTool({
      id: 'v',
      inputSchema: toStandardJsonSchema(v.object({ city: v.string() })),
      resumeSchema: toStandardJsonSchema(v.object({ ok: v.boolean() })),
      outputSchema: v.object({ tempC: v.number() }),
      execute: async ({ city }, { resumeData }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        expectTypeOf(resumeData).toEqualTypeOf<{ ok: boolean } | undefined>();
        return { tempC: 21 };
      },
    });
    createTool({
      id: 'a',
      inputSchema: type({ city: 'string', 'days?': 'number' }),
      execute: async ({ city, days }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        expectTypeOf(days).toEqualTypeOf<number | undefined>();
        return city;
      },
    });
  });

  it('stores the JSON schema of valibot and arktype input and resume schemas with the agent', () => {
    const ask = createTool({
      id: 'ask',
      inputSchema: arkCity,
      suspendSchema: v.object({ question: v.string() }),
      resumeSchema: toStandardJsonSchema(v.object({ answer: v.string() })),
      execute: async (_, { suspend }) => await suspend({ question: 'sure?' }),
    });
    const agent = defineAgent({ id: 'ask-agent', name: 'Ask', model: 'scripted', tools: { ask } });
    expect(describeAgent(new AgentRegistry([agent]), { agentId: 'ask-agent' }).tools[0]).toMatchObject({
      name: 'ask',
      inputSchema: cityJson,
      resumeSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
  });

  it('refuses an input or resume schema without a JSON schema, saying what to do', () => {
    const plain = v.object({ location: v.string() });
    expect(() => createTool({ id: 'weather-tool', inputSchema: plain as never })).toThrow(
      'createTool("weather-tool"): `inputSchema` is a valibot schema without a JSON schema (no Standard JSON ' +
        'Schema `~standard.jsonSchema`), so the model and callers could not be told what it takes; wrap it: ' +
        "toStandardJsonSchema(schema) from '@valibot/to-json-schema'",
    );
    expect(() =>
      createTool({
        id: 'ask',
        inputSchema: z.object({}),
        resumeSchema: plain as never,
        execute: () => null,
      }),
    ).toThrow(/^createTool\("ask"\): `resumeSchema` is a valibot schema without a JSON schema .*toStandardJsonSchema/);
    const other: StandardSchemaV1<{ id: string }> = {
      '~standard': { version: 1, vendor: 'other-lib', validate: (value) => ({ value: value as { id: string } }) },
    };
    expect(() => createTool({ id: 't', inputSchema: other as never })).toThrow(
      /`inputSchema` is an other-lib schema without a JSON schema .*; use a library that implements Standard JSON Schema/,
    );
  });

  it('takes a plain Standard Schema for output and suspend schemas, which are only checked', () => {
    expect(
      createTool({
        id: 't',
        inputSchema: z.object({}),
        outputSchema: v.object({ n: v.number() }),
        suspendSchema: v.object({ q: v.string() }),
        execute: () => ({ n: 1 }),
      }).kind,
    ).toBe('tool');
  });

  it('refuses what is not a schema, or no input schema at all', () => {
    expect(() => createTool({ id: 't', inputSchema: { location: 'string' } as never })).toThrow(
      'createTool("t"): `inputSchema` is an object, not a schema; give a zod schema, or a Standard Schema of ' +
        'another library (an arktype type(...), a valibot schema in toStandardJsonSchema(...), ...)',
    );
    expect(() => createTool({ id: 't', inputSchema: z.object({}), outputSchema: 'string' as never })).toThrow(
      'createTool("t"): `outputSchema` is the string "string", not a schema',
    );
    expect(() => createTool({ id: 't' } as never)).toThrow('createTool("t"): `inputSchema` is required');
  });

  it('refuses a schema its library cannot convert to JSON schema, with the library’s reason', () => {
    const broken: StandardJSONSchemaV1 & StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'broken-lib',
        validate: (value) => ({ value }),
        jsonSchema: {
          input: () => {
            throw new Error('cyclic types are not supported');
          },
          output: () => ({}),
        },
      },
    };
    expect(() => createTool({ id: 't', inputSchema: broken })).toThrow(
      'createTool("t"): `inputSchema` has no JSON schema: cyclic types are not supported',
    );
  });
});
