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
    error: 'a script step needs text or at least one tool call',
  });

/** The script the offline `scripted` model plays, one entry per model call. */
export const ScriptSchema = z.array(ScriptStepSchema).min(1, 'a script needs at least one step');
export type ScriptedToolCall = z.infer<typeof ScriptedToolCallSchema>;
export type ScriptStep = z.infer<typeof ScriptStepSchema>;
export type Script = z.infer<typeof ScriptSchema>;

/**
 * Where the one step a model call carries sits in the run's script: a call sends that step, not the
 * whole script, which would otherwise be recorded in the history with every call.
 */
export interface ScriptWindow {
  /** The index of the step sent. */
  from: number;
  /** How many steps the whole script has. */
  length: number;
}

/**
 * The part of `script` a model call needs: the step the scripted model answers the call with, found
 * as the model finds it (the assistant messages before the call, after the thread's). Past the end
 * of the script nothing is sent, and the model says the script is exhausted.
 */
export function scriptForCall(
  script: Script,
  messages: ReadonlyArray<{ role: string }>,
  threadMessages = 0,
): { script: Script; scriptWindow: ScriptWindow } {
  const assistant = (ms: ReadonlyArray<{ role: string }>) => ms.filter((m) => m.role === 'assistant').length;
  const from = assistant(messages) - assistant(messages.slice(0, threadMessages));
  return { script: script.slice(from, from + 1), scriptWindow: { from, length: script.length } };
}

/**
 * The script as the scripted model reads it (by step index) from what a call carried: the whole
 * script, or its one step at its place in an array as long as the script.
 */
export function scriptOfCall(script: Script, window: ScriptWindow | undefined): Script {
  if (!window) return script;
  const whole: Script = new Array<ScriptStep>(window.length);
  script.forEach((step, i) => {
    if (window.from + i < window.length) whole[window.from + i] = step;
  });
  return whole;
}
