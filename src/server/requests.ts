/** The bodies the HTTP routes take, checked, with a 400 that names the problem. */
import { convertToModelMessages, type UIMessage } from 'ai';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { JsonValueSchema } from '../schemas/json.js';
import { MessageSchema, type Message } from '../schemas/message.js';
import { RunOptionsSchema } from '../schemas/run-options.js';
import { errorBody } from './guards.js';

/** What POST /agents/:agentId/stream and /generate take: a prompt, model messages, or `useChat`'s UI messages. */
export const StartBodySchema = z
  .object({
    prompt: z.string().min(1).optional(),
    messages: z.array(z.record(z.string(), z.unknown())).min(1).optional(),
    options: RunOptionsSchema.optional(),
    runId: z.string().min(1).optional(),
  })
  .loose()
  .refine((b) => (b.prompt === undefined) !== (b.messages === undefined), {
    message: 'send either "prompt" or "messages"',
  });

/** What the decision routes take. Who decides is the authenticated principal; `by` is a free-text note. */
export const DecisionBodySchema = z
  .object({
    toolCallId: z.string().min(1).optional(),
    /** Required: a decision over HTTP names the exact call it is about. */
    fingerprint: z.string().min(1, 'send the fingerprint of the call you decide on'),
    by: z.string().optional(),
    reason: z.string().optional(),
    resumeData: JsonValueSchema.optional(),
    result: JsonValueSchema.optional(),
    args: JsonValueSchema.optional(),
    /** `resolve`: retry, skip (with `output`) or fail (with `reason`) a call whose side effect is uncertain. */
    resolution: z.enum(['retry', 'skip', 'fail']).optional(),
    output: JsonValueSchema.optional(),
  })
  .strict();

function badRequest(type: string, message: string): HTTPException {
  return new HTTPException(400, { res: Response.json(errorBody(type, message), { status: 400 }) });
}

export async function jsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const text = await c.req.text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw badRequest('InvalidJson', `the request body is not JSON: ${errorMessage(err)}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest('InvalidRequest', z.prettifyError(parsed.error));
  return parsed.data;
}

/** useChat sends UI messages (with `parts`); anything else must already be model messages. */
export async function toModelMessages(messages: Array<Record<string, unknown>>): Promise<Message[]> {
  if (messages.some((m) => Array.isArray(m.parts))) {
    return (await convertToModelMessages(messages as unknown as UIMessage[])) as Message[];
  }
  const parsed = z.array(MessageSchema).safeParse(messages);
  if (!parsed.success) throw badRequest('InvalidRequest', `messages: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
