import type { z } from 'zod';
import { truncate } from './pending-calls.js';

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
    return parsed.success
      ? { success: true, data: parsed.data }
      : { success: false, error: truncate(parsed.error.message, 1000) };
  } catch (err) {
    return { success: false, error: `it could not be checked (${err instanceof Error ? err.message : String(err)})` };
  }
}
