/**
 * JSON values as they travel through Temporal payloads, and the helpers that check data at the edges
 * without ever throwing. Sandbox-safe: imported by workflow code.
 */
import { z } from 'zod';

/** A JSON value, as it travels through Temporal payloads. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/** A JSON schema as stored with a tool's description (object form). */
export type JsonSchema = Record<string, unknown>;

/** A zod schema from a stored JSON schema, to check data against it where the tool's own schema is not at hand. */
export function zodFromJsonSchema(schema: JsonSchema): z.ZodType {
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}

type Issue = { path: PropertyKey[]; message: string; errors?: ReadonlyArray<ReadonlyArray<Issue>> };

/**
 * Schema issues on one line, each with where it is: `amount: Too big: expected number to be <=1000; to: ...`.
 * With `alternatives`, a union that fits none of its forms says what each one missed (one level deep),
 * where zod says only "Invalid input": `Invalid input (fits no alternative: [a: …] or [b: …])`.
 */
export function oneLine(issues: ReadonlyArray<Issue>, alternatives = false): string {
  const where = (path: PropertyKey[]): string => (path.length ? `${path.map(String).join('.')}: ` : '');
  return issues
    .map((i) => {
      if (!alternatives || !i.errors?.length) return `${where(i.path)}${i.message}`;
      const missed = new Set(i.errors.map((branch) => `[${oneLine(branch.map((b) => ({ ...b, errors: [] })))}]`));
      return `${where(i.path)}${i.message} (fits no alternative: ${[...missed].join(' or ')})`;
    })
    .join('; ');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * `schema.safeParse` that also survives input it cannot walk (a payload nested thousands of levels
 * deep overflows the stack): bad input must become a refusal, never a failed workflow task.
 */
export function safeParse<T>(
  schema: z.ZodType<T>,
  value: unknown,
): { success: true; data: T } | { success: false; error: string } {
  try {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { success: true, data: parsed.data };
    return { success: false, error: truncate(oneLine(parsed.error.issues), 1000) };
  } catch (err) {
    // Only a RangeError (stack overflow) gets here; schemas never throw otherwise.
    return { success: false, error: `it could not be checked (${err instanceof Error ? err.message : String(err)})` };
  }
}
