/** The script of the offline `scripted` model. Sandbox-safe. */
import { z } from 'zod';
import { JsonValueSchema } from './json.js';
import { IdSchema } from './limits.js';

/** One tool call in a scripted model step. */
export const ScriptedToolCallSchema = z
  .object({
    toolName: IdSchema,
    /** Arguments, sent to the runner as JSON. */
    args: JsonValueSchema.optional(),
    /** Raw argument text, sent as is (to script malformed arguments). Takes precedence over `args`. */
    rawArgs: z.string().optional(),
    /** Defaults to `call-<step>-<index>`. */
    toolCallId: IdSchema.optional(),
  })
  .strict();

/** One step of a scripted model: optional text and optional tool calls. */
export const ScriptStepSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(ScriptedToolCallSchema).optional(),
  })
  .strict()
  .refine((s) => s.text !== undefined || (s.toolCalls?.length ?? 0) > 0, {
    message: 'a script step needs text or at least one tool call',
  });

/** The script the offline `scripted` model plays, one entry per model call. */
export const ScriptSchema = z.array(ScriptStepSchema).min(1, 'a script needs at least one step');
export type ScriptedToolCall = z.infer<typeof ScriptedToolCallSchema>;
export type ScriptStep = z.infer<typeof ScriptStepSchema>;
export type Script = z.infer<typeof ScriptSchema>;
