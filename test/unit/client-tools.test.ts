/** A run's own tools as the client stores them (`clientTools`, `toolsets`), and what it refuses. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { storableClientTools } from '../../src/client/client-tools.js';
import { buildRunInput } from '../../src/client/run-input.js';
import { createTool, defineAgent, InvalidRunOptionsError } from '../../src/index.js';

const noWarnings = (m: string) => {
  throw new Error(`unexpected warning: ${m}`);
};

describe('storableClientTools', () => {
  it('stores zod, createTool and JSON schema tools as JSON schemas, toolsets flattened by their keys', () => {
    const stored = storableClientTools(
      { pick: { description: 'Pick one', inputSchema: z.object({ options: z.array(z.string()) }) } },
      {
        ui: {
          confirm: createTool({ id: 'confirm', inputSchema: z.object({ q: z.string() }), requireApproval: true }),
          raw: { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
        },
      },
      noWarnings,
    );
    expect(stored).toEqual({
      pick: {
        description: 'Pick one',
        inputSchema: expect.objectContaining({
          type: 'object',
          properties: { options: { type: 'array', items: { type: 'string' } } },
        }),
      },
      confirm: { inputSchema: expect.objectContaining({ type: 'object' }), requireApproval: true },
      raw: { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    });
  });

  it('refuses a name twice, a name that is not a tool name, a schema of no object, and what cannot be stored', () => {
    const schema = z.object({});
    expect(() =>
      storableClientTools({ a: { inputSchema: schema } }, { s: { a: { inputSchema: schema } } }, noWarnings),
    ).toThrow(new InvalidRunOptionsError('toolsets.s.a: clientTools.a is named "a" already; each tool name once'));
    expect(() => storableClientTools({ 'a b': { inputSchema: schema } }, undefined, noWarnings)).toThrow(
      /clientTools\.a b: "a b" is not a tool name/,
    );
    expect(() => storableClientTools({ a: { inputSchema: { type: 'string' } } }, undefined, noWarnings)).toThrow(
      /clientTools\.a: inputSchema must be a zod or Standard Schema object schema, or a JSON schema of an object/,
    );
    const hooked = createTool({ id: 'h', inputSchema: schema, onOutput: () => undefined, execute: () => 1 });
    expect(() => storableClientTools({ h: hooked }, undefined, noWarnings)).toThrow(
      /clientTools\.h: onOutput cannot be stored with a durable run/,
    );
  });

  it('warns, and stores the tool as a client tool, when it has an execute', () => {
    const warnings: string[] = [];
    const tool = createTool({ id: 't', inputSchema: z.object({}), execute: () => 1 });
    expect(storableClientTools({ t: tool }, undefined, (m) => warnings.push(m))).toEqual({
      t: { inputSchema: expect.objectContaining({ type: 'object' }) },
    });
    expect(warnings).toEqual([expect.stringMatching(/^clientTools\.t: execute is a function, which cannot be stored/)]);
  });

  it("refuses prepareStep when the run input is built, and clientTools in an agent's defaultOptions", () => {
    const options = { prepareStep: () => ({}) } as unknown as Parameters<typeof buildRunInput>[2];
    expect(() => buildRunInput('a', 'hi', options, noWarnings)).toThrow(/^Invalid run options: prepareStep:/);
    expect(() =>
      defineAgent({
        id: 'a',
        name: 'A',
        model: 'scripted',
        defaultOptions: { clientTools: { x: { inputSchema: { type: 'object' } } } },
      }),
    ).toThrow(/defaultOptions\.clientTools is a run option/);
  });
});
