/**
 * Auto-resume (`autoResumeSuspendedTools`): a new user message on a thread whose run waits resumes the
 * waiting call with data the model extracts from the message. What the client sends the waiting run,
 * what it answers, and the shape the model is asked for. Sandbox-safe.
 */
import { z } from 'zod';
import { PrincipalSchema } from './access.js';
import type { RefusalType } from './decisions.js';
import type { JsonSchema, JsonValue } from './json.js';
import { MAX_ID, MAX_QUALIFIED_ID, MAX_TEXT } from './limits.js';
import { ScriptSchema } from './script.js';
import { StreamGraceMsSchema } from './stream-grace.js';

/** The most characters of a message auto-resume reads: a reply to a question, not a document. */
export const MAX_AUTO_RESUME_MESSAGE = 16_000;

/** What a run's agent lets a chat message decide, as its memo tells any process. */
export const AutoResumeSettingsSchema = z
  .object({
    /** A suspended call (`suspend()` with a `resumeSchema`) may be resumed from the next message. */
    suspensions: z.boolean(),
    /** An approval may be decided from the next message, by a principal allowed to approve it. */
    approvals: z.boolean(),
  })
  .strict();
export type AutoResumeSettings = z.infer<typeof AutoResumeSettingsSchema>;

/** A new message on the run's thread, sent to the waiting run as an update. */
export const AutoResumeRequestSchema = z
  .object({
    /** Chosen by the sender: the decision it makes has this id in the run's trail. */
    decisionId: z.string().min(1).max(MAX_ID),
    /** The waiting call the message is for (the client picks the most recent one that fits). */
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
    /** The user's message, as text. */
    message: z.string().min(1).max(MAX_AUTO_RESUME_MESSAGE),
    /** The message's own `autoResumeSuspendedTools` (`true` resumes suspensions even where the agent does not). */
    enabled: z.boolean().optional(),
    /** Who sent the message: the decision is theirs, checked like any other. */
    principal: PrincipalSchema.optional(),
    /** For the offline `scripted` model: what it answers to the extraction. */
    script: ScriptSchema.optional(),
    /** Keep the run readable this long after it finishes, for a caller that streams it from here. */
    streamGraceMs: StreamGraceMsSchema.optional(),
    sentAt: z.iso.datetime().optional(),
  })
  .strict();
export type AutoResumeRequest = z.infer<typeof AutoResumeRequestSchema>;

/** What the waiting run answers: the decision it made, or why it made none (the call still waits). */
export type AutoResumeOutcome =
  | { resumed: true; decisionId: string; toolCallId: string; kind: 'resume' | 'approve' | 'decline' }
  | { resumed: false; refusal: { type: RefusalType; message: string } };

/** What an approval takes from a message: approve or not, and why. */
export const APPROVAL_RESUME_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', description: 'true only if the user clearly approves the call' },
    reason: { type: 'string', description: 'why, in the user’s words, when they decline' },
  },
  required: ['approved'],
  additionalProperties: false,
};

/**
 * The object the model is asked for: the resume data, or null and what is missing. The model says
 * what it could not find rather than guess it.
 */
export function extractionSchema(resumeSchema: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      resumeData: { anyOf: [resumeSchema, { type: 'null' }] },
      missing: {
        anyOf: [{ type: 'string', maxLength: MAX_TEXT }, { type: 'null' }],
        description: 'when resumeData is null: what the message does not say, as a short question to the user',
      },
    },
    required: ['resumeData', 'missing'],
    additionalProperties: false,
  };
}

/** The instructions of the extraction call. */
export function extractionInstructions(call: { toolName: string; suspendPayload?: JsonValue; kind: string }): string {
  const asked = call.suspendPayload === undefined ? '' : `\nIt asked: ${JSON.stringify(call.suspendPayload)}`;
  const what =
    call.kind === 'approval'
      ? `The tool call "${call.toolName}" waits for the user's approval.`
      : `The tool "${call.toolName}" waits for data from the user.${asked}`;
  return (
    `${what}\nRead the user's next message and fill \`resumeData\` with what it says, shaped by the schema. ` +
    'Use only what the message says: never guess or fill in a default. If the message does not give ' +
    'everything the schema requires, set `resumeData` to null and say in `missing` what is missing.'
  );
}

/** The text of the last user message of a prompt, if it has any. */
export function lastUserText(messages: ReadonlyArray<{ role: string; content: unknown }>): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const { role, content } = messages[i]!;
    if (role !== 'user') continue;
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return undefined;
    const texts = content.flatMap((p: unknown) =>
      p && typeof p === 'object' && (p as { type?: unknown }).type === 'text'
        ? [String((p as { text: unknown }).text)]
        : [],
    );
    return texts.length > 0 ? texts.join('\n') : undefined;
  }
  return undefined;
}
