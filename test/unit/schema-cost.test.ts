import { describe, expect, it } from 'vitest';
import {
  checkingCostProblem,
  checkWorkProblem,
  MAX_CHECK_WORK,
  MAX_CHECKED_SCHEMA_NODES,
} from '../../src/schemas/schema-cost.js';
import { schemaInRun, withoutPatterns } from '../../src/schemas/schema-patterns.js';
import { readJsonSchema, safeParse } from '../../src/schemas/json.js';

const BACKTRACKS = '^(a|aa)+$';

/** A schema whose `$ref`s fan out: `levels` levels of `allOf` of the same reference twice. */
function fanned(levels: number, at: (schema: Record<string, unknown>) => Record<string, unknown> = (s) => s) {
  let node: Record<string, unknown> = { type: 'string' };
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) {
    $defs[`d${i}`] = node;
    node = { allOf: [{ $ref: `#/$defs/d${i}` }, { $ref: `#/$defs/d${i}` }] };
  }
  return { ...at(node), $defs };
}

describe('withoutPatterns', () => {
  it('drops every pattern, at any depth, and keeps data and property names that read like keywords', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: BACKTRACKS },
        default: { type: 'string', pattern: BACKTRACKS },
        enum: { type: 'array', items: { type: 'string', pattern: [BACKTRACKS] } },
        kind: { enum: [{ pattern: 'kept' }], default: { pattern: 'kept too' } },
      },
      propertyNames: { pattern: '^[a-z]+$' },
      $defs: { id: { type: 'string', pattern: '^r[0-9]+$' } },
    };
    expect(withoutPatterns(schema)).toEqual({
      changed: true,
      schema: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          default: { type: 'string' },
          enum: { type: 'array', items: { type: 'string' } },
          kind: { enum: [{ pattern: 'kept' }], default: { pattern: 'kept too' } },
        },
        propertyNames: {},
        $defs: { id: { type: 'string' } },
      },
    });
  });

  it('drops property names matched by pattern with what they decide, so that the schema takes more, never less', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' } },
      patternProperties: { [BACKTRACKS]: { type: 'number' } },
      additionalProperties: false,
      required: ['id'],
    };
    const shape = withoutPatterns(schema);
    expect(shape).toEqual({
      changed: true,
      schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    });
    const read = readJsonSchema((shape as { schema: Record<string, unknown> }).schema);
    expect('schema' in read && safeParse(read.schema, { id: 'x', aaaa: 1 }).success).toBe(true);
    expect('schema' in read && safeParse(read.schema, { aaaa: 1 }).success).toBe(false);
  });

  it('leaves no schema where dropping a pattern would refuse what the whole schema takes', () => {
    for (const [where, schema] of [
      ['not', { type: 'string', not: { pattern: '^/etc' } }],
      [
        'oneOf',
        {
          oneOf: [
            { type: 'string', pattern: '^usr_' },
            { type: 'string', pattern: '^grp_' },
          ],
        },
      ],
      ['if', { if: { pattern: '^a' }, then: { minLength: 2 } }],
      ['contains', { type: 'array', contains: { pattern: '^a' }, maxContains: 1 }],
    ] as const) {
      expect(withoutPatterns(schema)).toEqual({ unchecked: expect.stringContaining(`under ${where}`) });
      expect(schemaInRun(schema, () => true)).toEqual({ type: 'object' });
    }
  });

  it('leaves no schema where a reference under oneOf may lead to a pattern it drops', () => {
    const schema = {
      type: 'object',
      properties: { id: { oneOf: [{ $ref: '#/$defs/slug' }, { type: 'string', format: 'uuid' }] } },
      $defs: { slug: { type: 'string', pattern: '^[a-z-]+$' } },
    };
    expect(withoutPatterns(schema)).toEqual({ unchecked: expect.stringContaining('a $ref under oneOf') });
  });

  it('gives a schema without patterns back as it is, without asking whether the run takes the change', () => {
    const schema = { type: 'object', properties: { id: { type: 'string' } } };
    expect(withoutPatterns(schema)).toEqual({ changed: false, schema });
    expect(schemaInRun(schema, () => expect.unreachable('asked about a patch with no pattern to drop'))).toBe(schema);
    const patterned = { type: 'string', pattern: BACKTRACKS };
    // A run recorded before the change replays with the whole schema.
    expect(schemaInRun(patterned, () => false)).toBe(patterned);
    expect(schemaInRun(patterned, () => true)).toEqual({ type: 'string' });
  });
});

describe('checkWorkProblem', () => {
  it('takes a small schema against large data, and refuses a fanned-out one against the same', () => {
    const items = Array.from({ length: 50_000 }, () => 'x');
    expect(checkWorkProblem({ type: 'array', items: { type: 'string' } }, items)).toBeUndefined();
    const costly = fanned(8, (node) => ({ type: 'array', items: node }));
    expect(checkWorkProblem(costly, items)).toMatch(
      /^checking \d[\d,]* JSON values against \d+ schema nodes would take too long in the run/,
    );
    expect(checkWorkProblem(costly, ['x'])).toBeUndefined();
    expect(MAX_CHECK_WORK).toBeGreaterThan(50_001 * 3);
  });

  it('refuses a reference of another form than zod reads, which it could not count as zod expands it', () => {
    // zod reads `#/$defs/d0/` as `#/$defs/d0`; a JSON pointer finds nothing there and would count 0 nodes.
    let node: Record<string, unknown> = { type: 'string' };
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) {
      $defs[`d${i}`] = node;
      node = { allOf: [{ $ref: `#/$defs/d${i}/` }, { $ref: `#/$defs/d${i}/` }] };
    }
    const problem = 'its $ref "#/$defs/d29/" is neither "#" nor "#/$defs/<name>"';
    expect(checkWorkProblem({ ...node, $defs }, 'x')).toContain(problem);
    expect(checkingCostProblem({ ...node, $defs })).toContain(problem);
    expect(checkWorkProblem({ $ref: '#/definitions/a', definitions: { a: { type: 'string' } } }, 'x')).toBeUndefined();
  });

  it('counts references fanned out under a property named like a data keyword', () => {
    const hidden = fanned(12, (node) => ({ type: 'object', properties: { enum: node } }));
    expect(checkWorkProblem(hidden, {})).toContain(`more than ${MAX_CHECKED_SCHEMA_NODES} schema nodes`);
  });
});
