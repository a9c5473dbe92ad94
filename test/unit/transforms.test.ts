import { describe, expect, it } from 'vitest';
import { createTool, defineAgent } from '../../src/index.js';
import {
  applyTransforms,
  checkTransforms,
  HIDDEN,
  transformInputDelta,
  transformStages,
  type TransformContext,
} from '../../src/tools/transforms.js';
import { z } from 'zod';
import { RequestContext } from '../../src/tools/request-context.js';

const context = (stage: TransformContext['stage'], target: TransformContext['target'] = 'display') => ({
  runId: 'r',
  agentId: 'a',
  toolCallId: 'c',
  toolName: 't',
  target,
  stage,
  requestContext: new RequestContext(),
});

describe('transform options', () => {
  it('refuses a misspelt stage or target, naming the nearest, so that nothing stays unredacted by a typo', () => {
    expect(() => checkTransforms('createTool("x")', { display: { ouput: () => 1 } })).toThrow(
      'createTool("x"): transform.display: unknown option "ouput" (did you mean "output"?)',
    );
    expect(() => checkTransforms('x', { dispaly: {} })).toThrow('unknown option "dispaly" (did you mean "display"?)');
    expect(() => checkTransforms('x', { transcript: { approval: () => 1 } })).toThrow(
      /the transcript keeps only a call's input, output and error; approval payloads are display only/,
    );
    expect(() => checkTransforms('x', { display: { output: 'redact' } })).toThrow(
      'transform.display.output must be a function',
    );
  });

  it('is checked by createTool and defineAgent', () => {
    const base = { id: 'x', description: 'x', inputSchema: z.object({}), execute: async () => 1 };
    expect(() => createTool({ ...base, transform: { display: { outptu: () => 1 } } as never })).toThrow(
      /did you mean "output"/,
    );
    expect(() =>
      defineAgent({
        id: 'a',
        name: 'a',
        instructions: 'i',
        model: 'scripted',
        transform: { transcript: { suspend: () => 1 } } as never,
      }),
    ).toThrow(/defineAgent\("a"\): transform.transcript/);
  });

  it('records the stages a tool or its agent transforms', () => {
    expect(transformStages(undefined, undefined)).toBeUndefined();
    expect(transformStages({ display: { output: () => 1 } }, { transcript: { error: () => 'e' } })).toEqual({
      display: ['output'],
      transcript: ['error'],
    });
  });
});

describe('applying transforms', () => {
  it("applies the tool's transform, then the agent's", async () => {
    const tool = { display: { output: (v: unknown) => ({ tool: v }) } };
    const agent = { display: { output: (v: unknown) => ({ agent: v }) } };
    expect(await applyTransforms([tool, agent], context('output'), 1)).toEqual({ value: { agent: { tool: 1 } } });
  });

  it('hides the value when a transform throws or returns what cannot be shown', async () => {
    const throws = {
      display: {
        output: () => {
          throw new Error('down');
        },
      },
    };
    expect(await applyTransforms([throws], context('output'), 'secret')).toEqual({ value: HIDDEN, hidden: 'down' });
    const huge = { display: { output: () => 'x'.repeat(300 * 1024) } };
    expect(await applyTransforms([huge], context('output'), 'secret')).toMatchObject({ value: HIDDEN });
    const circular = {
      display: {
        output: () => {
          const o: Record<string, unknown> = {};
          o.o = o;
          return o;
        },
      },
    };
    expect(await applyTransforms([circular], context('output'), 'secret')).toMatchObject({ value: HIDDEN });
  });

  it('streams no input deltas of a call whose displayed input is transformed, unless a delta transform says what', () => {
    expect(transformInputDelta([undefined, undefined], context('inputDelta'), '{"a"')).toBe('{"a"');
    expect(transformInputDelta([{ display: { input: (v) => v } }], context('inputDelta'), '{"a"')).toBeNull();
    const upper = { display: { input: (v: unknown) => v, inputDelta: (d: string) => d.toUpperCase() } };
    expect(transformInputDelta([upper], context('inputDelta'), '{"a"')).toBe('{"A"');
    const throws = {
      display: {
        inputDelta: () => {
          throw new Error('x');
        },
      },
    };
    expect(transformInputDelta([throws], context('inputDelta'), '{"a"')).toBeNull();
  });
});
