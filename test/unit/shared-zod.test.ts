/**
 * zod itself is shared, frozen, by every run of the workflow bundle (it is preloaded with the schema
 * modules). A schema a run builds from a JSON schema (a tool's input, an agent's request context) must
 * check data as the same schema does outside the bundle: this loads the tests' bundle into the SDK's
 * own reusable V8 context, which preloads and deep-freezes as a worker does.
 */
import { readFile } from 'node:fs/promises';
import { runInContext } from 'node:vm';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as json from '../../src/schemas/json.js';

type JsonModule = Pick<typeof json, 'safeParse' | 'zodFromJsonSchema'>;

/** The bundle's reusable context, from the inside. */
class Sandbox extends ReusableVMWorkflowCreator {
  module<T>(id: string): T {
    const cache = (this.context as unknown as { __webpack_module_cache__: Record<string, { exports: T }> })
      .__webpack_module_cache__;
    return cache[id]!.exports;
  }
  /** A value made in the sandbox's realm, as a run's own values are. */
  value(text: string): unknown {
    return (runInContext('JSON.parse', this.context) as JSON['parse'])(text);
  }
}

const formats = ['email', 'date', 'time', 'date-time', 'duration', 'ipv4', 'ipv6', 'uuid', 'hostname', 'uri'];
const values = ['a@b.co', '2026-12-01', '12:00:00Z', '2026-12-01T12:00:00Z', 'P1D', '10.0.0.1', '::1', 'x'];

/** JSON schemas whose checks rest on zod's shared patterns: each format, a pattern, inside a recursive $ref. */
const cases: { schema: Record<string, unknown>; data: unknown[] }[] = [
  ...formats.map((format) => ({
    schema: { type: 'object', properties: { v: { type: 'string', format } }, required: ['v'] },
    data: values.map((v) => ({ v })),
  })),
  { schema: { type: 'string', pattern: '^a' }, data: ['abc', 'cba'] },
  // Formats in the schemas zod keeps in closures: a record's keys, an array's `contains`.
  {
    schema: { type: 'object', propertyNames: { format: 'date' }, additionalProperties: { type: 'number' } },
    data: [{ '2026-12-01': 1 }, { tomorrow: 1 }],
  },
  {
    schema: { type: 'object', propertyNames: { type: 'string', format: 'email', pattern: '^a' } },
    data: [{ 'a@b.co': 1 }, { 'b@b.co': 1 }, { a: 1 }],
  },
  { schema: { type: 'array', contains: { type: 'string', format: 'ipv4' } }, data: [['x', '10.0.0.1'], ['x']] },
  {
    schema: { type: 'array', contains: { const: { format: 'email' } } },
    data: [[{ format: 'email' }], [{ format: 'date' }]],
  },
  {
    schema: {
      $id: 'https://example.com/contact',
      $defs: {
        node: {
          type: 'object',
          properties: { email: { type: 'string', format: 'email' }, next: { $ref: '#/$defs/node' } },
          required: ['email'],
        },
      },
      $ref: '#/$defs/node',
    },
    data: [
      { email: 'a@b.co', next: { email: 'c@d.co' } },
      { email: 'a@b.co', next: { email: 'nope' } },
    ],
  },
];

describe('a schema a run builds from a JSON schema, with zod shared and frozen', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    const code = await readFile(inject('workflowBundlePath'), 'utf8');
    sandbox = await Sandbox.create(
      {
        code,
        sourceMap: { version: 3, file: 'workflow-bundle.js', sources: [], names: [], mappings: '' },
        filename: 'workflow-bundle.js',
      },
      60_000,
      new Set(),
    );
  });
  afterAll(async () => {
    await sandbox?.destroy();
  });

  it('checks data as it does outside the bundle', () => {
    const shared = sandbox.module<JsonModule>('./src/schemas/json.ts');
    const zod = sandbox.module<Record<string, unknown>>('./node_modules/zod/v4/core/regexes.js');
    // The premise: zod's own patterns are frozen in the bundle.
    expect(Object.isFrozen(zod.email)).toBe(true);
    for (const { schema, data } of cases) {
      for (const item of data) {
        const text = JSON.stringify(item);
        const inRun = shared.safeParse(
          shared.zodFromJsonSchema(sandbox.value(JSON.stringify(schema)) as never),
          sandbox.value(text),
        );
        const outside = json.safeParse(json.zodFromJsonSchema(schema), JSON.parse(text));
        expect({ schema, item, result: JSON.parse(JSON.stringify(inRun)) }).toEqual({ schema, item, result: outside });
      }
    }
  });
});
