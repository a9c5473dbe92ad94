/** A run's own tools as the client stores them (`clientTools`, `toolsets`), and what it refuses. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { storableClientTools } from '../../src/client/runs/client-tools.js';
import { buildRunInput } from '../../src/client/runs/run-input.js';
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
    expect(() => storableClientTools({ a: { inputSchema: schema } }, { s: { a: { inputSchema: schema } } })).toThrow(
      new InvalidRunOptionsError('toolsets.s.a: clientTools.a is named "a" already; each tool name once'),
    );
    expect(() => storableClientTools({ 'a b': { inputSchema: schema } }, undefined)).toThrow(
      /clientTools\.a b: "a b" is not a tool name/,
    );
    expect(() => storableClientTools({ a: { inputSchema: { type: 'string' } } }, undefined)).toThrow(
      /clientTools\.a: inputSchema must be a zod or Standard Schema object schema, or a JSON schema of an object/,
    );
    const hooked = createTool({ id: 'h', inputSchema: schema, onOutput: () => undefined, execute: () => 1 });
    expect(() => storableClientTools({ h: hooked }, undefined)).toThrow(
      /clientTools\.h: onOutput cannot be stored with a durable run/,
    );
  });

  it('refuses an input schema slow to check a call against, which the run does in workflow code', () => {
    const redos = z.object({ s: z.string().regex(/^(a+)+$/) });
    expect(() => storableClientTools({ a: { inputSchema: redos } }, undefined)).toThrow(
      /clientTools\.a: inputSchema: its pattern .* may take exponential time to check/,
    );
    const fine = z.object({ s: z.string().regex(/^[a-z]+$/) });
    expect(storableClientTools({ a: { inputSchema: fine } }, undefined)).toBeDefined();
  });

  it('refuses a tool with an execute, which the run cannot store, saying what to do; stores it without', () => {
    const tool = createTool({ id: 't', inputSchema: z.object({}), execute: () => 1 });
    for (const [clientTools, toolsets, where] of [
      [{ t: tool }, undefined, 'clientTools.t'],
      [undefined, { ui: { t: tool } }, 'toolsets.ui.t'],
    ] as const) {
      expect(() => storableClientTools(clientTools, toolsets)).toThrow(
        new InvalidRunOptionsError(
          `${where}: execute is a function, which cannot be stored with a durable run. Give the tool to the ` +
            'agent (defineAgent({ tools })) to run it on the worker, or leave execute out ({ ...tool, execute: ' +
            "undefined }) to offer it as a client tool: the run then pauses at each call for the caller's result " +
            '(submitToolResult)',
        ),
      );
    }
    expect(storableClientTools({ t: { ...tool, execute: undefined } }, undefined)).toEqual({
      t: { inputSchema: expect.objectContaining({ type: 'object' }) },
    });
  });

  it('refuses per-call hooks, which the run cannot store, naming where hooks go', () => {
    const hooks = { beforeToolCall: () => undefined };
    expect(() =>
      buildRunInput('a', 'hi', { hooks } as unknown as Parameters<typeof buildRunInput>[2], noWarnings),
    ).toThrow(
      new InvalidRunOptionsError(
        'hooks: functions cannot be stored with a durable run, so per-call hooks are not supported. Put them on ' +
          'the agent (defineAgent({ hooks })), where they run on the worker around every call; to pause every ' +
          'call for approval instead, pass requireToolApproval: true',
      ),
    );
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
