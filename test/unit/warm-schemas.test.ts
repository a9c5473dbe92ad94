import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { warmSchemas } from '../../src/schemas/warm-schemas.js';

/**
 * What Temporal's reusable V8 context does to a preloaded module's exports (deepFreeze in
 * @temporalio/worker's reusable-vm.js): own properties, read through getters, frozen depth first;
 * functions frozen but not walked.
 */
function sdkDeepFreeze(object: unknown, visited = new WeakSet<object>()): void {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return;
  if (visited.has(object) || Object.isFrozen(object)) return;
  visited.add(object);
  if (typeof object === 'object') {
    for (const key of Reflect.ownKeys(object)) {
      try {
        sdkDeepFreeze((object as Record<PropertyKey, unknown>)[key], visited);
      } catch {
        continue;
      }
    }
  }
  Object.freeze(object);
}

/** Schemas of the kinds the run's schemas use: objects, optional and defaulted keys, unions, records, recursion. */
function schemas() {
  type Tree = { name: string; children: Tree[] };
  const TreeSchema: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(TreeSchema) }));
  const CallSchema = z
    .object({
      toolCallId: z
        .string()
        .min(1)
        .max(200)
        .regex(/^call-/, 'a call id starts with call-'),
      runId: z.uuid().optional(),
      args: z.record(z.string(), z.unknown()).optional(),
      kind: z.enum(['approve', 'decline']).default('approve'),
      by: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
    })
    .strict();
  return { exports: { CallSchema, TreeSchema, LIMIT: 5 } };
}

const inputs = [
  undefined,
  { toolCallId: 'call-1', args: { a: 1 }, by: { id: 'alice' }, runId: '0b7d2f4e-58a6-4c1e-9a8e-3f5b6c7d8e9f' },
  { toolCallId: 'x-1', runId: 'not-a-uuid' },
  { toolCallId: '', extra: true },
  { name: 'root', children: [{ name: 'leaf', children: [] }] },
  { name: 'root', children: [{ name: 7 }] },
];

function outcomes(s: ReturnType<typeof schemas>) {
  return inputs.map((input) =>
    [s.exports.CallSchema, s.exports.TreeSchema].map((schema) => {
      const r = schema.safeParse(input);
      return r.success ? { data: r.data } : { issues: r.error.issues.map((i) => [i.code, i.path]) };
    }),
  );
}

describe('warmSchemas (schemas shared, frozen, by every run of a bundle)', () => {
  it('a frozen schema that was not warmed fails to parse', () => {
    const cold = schemas();
    sdkDeepFreeze(cold.exports);
    expect(() => outcomes(cold)).toThrow(TypeError);
  });

  it('a warmed schema parses once frozen, with the outcomes it had before', () => {
    const before = outcomes(schemas());
    const warm = schemas();
    warmSchemas(warm.exports);
    sdkDeepFreeze(warm.exports);
    expect(Object.isFrozen(warm.exports.CallSchema)).toBe(true);
    expect(outcomes(warm)).toEqual(before);
    // Methods of a frozen schema still derive new schemas (they are new objects).
    expect(warm.exports.CallSchema.partial().safeParse({}).success).toBe(true);
    // A lazy schema's inner schema was warmed too, though nothing reached it before its first parse.
    const inner = (warm.exports.TreeSchema as unknown as { _zod: { innerType: z.ZodType } })._zod.innerType;
    expect(inner.safeParse({ name: 'leaf', children: [] }).success).toBe(true);
  });
});
