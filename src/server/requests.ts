/** The bodies the HTTP routes take, checked, with a 400 that names the problem. */
import { convertToModelMessages, type UIMessage } from 'ai';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { MAX_RUN_MESSAGE } from '../schemas/run-message.js';
import { errorMessage } from '../errors.js';
import { oneLine, truncate } from '../schemas/json.js';
import {
  boundedJson,
  IdSchema,
  isTooLarge,
  MAX_ID,
  MAX_QUALIFIED_ID,
  MAX_TEXT,
  measureJson,
  RunIdSchema,
} from '../schemas/limits.js';
import { MessageSchema, type Message } from '../schemas/message.js';
import { RunOptionsSchema } from '../schemas/run-options.js';
import { errorBody } from './auth/guards.js';

/** What POST /agents/:agentId/stream and /generate take: a prompt, model messages, or `useChat`'s UI messages. */
export const StartBodySchema = z
  .object({
    prompt: z.string().min(1).optional(),
    messages: z.array(z.record(z.string(), z.unknown())).min(1).optional(),
    options: RunOptionsSchema.optional(),
    runId: RunIdSchema.optional(),
  })
  .loose()
  .refine((b) => (b.prompt === undefined) !== (b.messages === undefined), {
    error: 'send either "prompt" or "messages"',
  });

/** What the decision routes take. Who decides is the authenticated principal; `by` is a free-text note. */
export const DecisionBodySchema = z
  .object({
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID).optional(),
    /** Required: a decision over HTTP names the exact call it is about. */
    fingerprint: z.string().min(1, 'send the fingerprint of the call you decide on').max(128),
    by: z.string().max(MAX_TEXT).optional(),
    reason: z.string().max(MAX_TEXT).optional(),
    resumeData: boundedJson().optional(),
    result: boundedJson().optional(),
    args: boundedJson().optional(),
    /** `resolve`: retry, skip (with `output`) or fail (with `reason`) a call whose side effect is uncertain. */
    resolution: z.enum(['retry', 'skip', 'fail']).optional(),
    output: boundedJson().optional(),
  })
  .strict();

/** `POST /threads/:threadId/tool-approval`: approve or decline the call a run of the thread waits on. */
export const ThreadApprovalBodySchema = z
  .object({
    /** Default: the authenticated tenant. */
    resourceId: IdSchema.optional(),
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID).optional(),
    /** Required, as for every decision over HTTP: it names the exact call (and tells runs apart). */
    fingerprint: z.string().min(1, 'send the fingerprint of the call you decide on').max(128),
    approved: z.boolean({ error: 'required: true to approve, false to decline' }),
    by: z.string().max(MAX_TEXT).optional(),
    reason: z.string().max(MAX_TEXT).optional(),
    /** Mastra's `resumeData`: `approved` again and a decline's `reason`; data for the tool is refused. */
    resumeData: boundedJson().optional(),
  })
  .strict();

/** A batch decision by predicate (`POST /batch-decisions`): who decides is the authenticated principal. */
export const BatchDecisionBodySchema = z
  .object({
    kind: z.enum(['approve', 'decline']),
    toolName: IdSchema,
    agentId: IdSchema.optional(),
    /** Default: every tenant the caller may see (a principal of a tenant: its own only). */
    resourceId: IdSchema.optional(),
    where: z
      .array(
        z.union([
          z.string().min(1).max(300),
          z.object({ path: z.string().max(300), op: z.string().max(10), value: boundedJson() }).strict(),
        ]),
      )
      .max(20)
      .optional(),
    fingerprints: z.array(z.string().min(1).max(256)).max(500).optional(),
    reason: z.string().max(MAX_TEXT).optional(),
    by: z.string().max(MAX_TEXT).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();

/** `POST /runs/:runId/grants`: a grant from a call of the run. */
export const GrantBodySchema = z
  .object({
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
    fingerprint: z.string().min(1, 'send the fingerprint of the call you make the grant from').max(128),
    scope: z.enum(['run', 'thread', 'resource']),
    where: z.array(z.string().min(1).max(512)).min(1).max(20),
    hours: z.number().int().min(1).max(2160).optional(),
    maxUses: z.number().int().min(1).max(10_000).optional(),
    reason: z.string().max(MAX_TEXT).optional(),
  })
  .strict();

/** A message for a run while it works (`POST /runs/:runId/messages`). */
export const RunMessageBodySchema = z
  .object({
    text: z.string().min(1).max(MAX_RUN_MESSAGE),
    /** Sent again with the same id (a retry), the message is queued once. */
    messageId: IdSchema.optional(),
  })
  .strict();

/** A `useChat` UI message, as far as the server relies on it: its parts are objects with a type. */
const UiMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant']),
    parts: z.array(z.looseObject({ type: z.string().min(1).max(MAX_ID) })),
  })
  .loose();

function refused(status: 400 | 413, type: string, message: string): HTTPException {
  return new HTTPException(status, { res: Response.json(errorBody(type, message), { status }) });
}

/** The body, checked: 400 for what is not JSON or does not fit, 413 for data over its size limit; one line each. */
export async function jsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const text = await c.req.text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw refused(400, 'InvalidJson', `the request body is not JSON: ${errorMessage(err)}`);
  }
  // Nesting too deep to walk is refused before a schema recurses into it.
  const measured = measureJson(raw);
  if (!measured.ok) throw refused(400, 'InvalidJson', `the request body cannot be checked: ${measured.problem}`);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const tooLarge = parsed.error.issues.some(isTooLarge);
  throw refused(tooLarge ? 413 : 400, tooLarge ? 'PayloadTooLarge' : 'InvalidRequest', oneLine(parsed.error.issues));
}

/** useChat sends UI messages (with `parts`); anything else must already be model messages. */
export async function toModelMessages(messages: Array<Record<string, unknown>>): Promise<Message[]> {
  if (messages.some((m) => Array.isArray(m.parts))) {
    const ui = z.array(UiMessageSchema).safeParse(messages);
    if (!ui.success) throw refused(400, 'InvalidRequest', `messages: ${oneLine(ui.error.issues)}`);
    try {
      return (await convertToModelMessages(messages as unknown as UIMessage[])) as Message[];
    } catch (err) {
      throw refused(400, 'InvalidRequest', `messages: ${truncate(errorMessage(err).replace(/\s+/g, ' '), 300)}`);
    }
  }
  const parsed = z.array(MessageSchema).safeParse(messages);
  if (!parsed.success) throw refused(400, 'InvalidRequest', `messages: ${oneLine(parsed.error.issues)}`);
  return parsed.data;
}
