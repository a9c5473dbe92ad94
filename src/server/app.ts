/**
 * A small HTTP server (Hono) in front of {@link AgentClient}, for browser UIs: start runs, stream
 * them as the AI SDK's UI message stream (SSE), list waiting runs, and decide their tool calls.
 * Bad requests get a 4xx with a JSON error that names the problem; the server never crashes on them.
 */
import { convertToModelMessages, UI_MESSAGE_STREAM_HEADERS, type UIMessage } from 'ai';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { AgentClient } from '../client/agent-client.js';
import { failureOf } from '../client/failures.js';
import type { StartOptions } from '../client/run-input.js';
import { errorMessage } from '../errors.js';
import { JsonValueSchema } from '../schemas/json.js';
import { MessageSchema } from '../schemas/message.js';
import { RunOptionsSchema } from '../schemas/run-options.js';
import type { RunStreamChunk } from '../schemas/stream-chunks.js';
import { UiChunkMapper } from './ui-message-chunks.js';

/** What POST /agents/:agentId/stream and /generate take: a prompt, model messages, or `useChat`'s UI messages. */
const StartBodySchema = z
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

const DecisionBodySchema = z
  .object({
    toolCallId: z.string().min(1).optional(),
    fingerprint: z.string().optional(),
    by: z.string().optional(),
    reason: z.string().optional(),
    resumeData: JsonValueSchema.optional(),
  })
  .strict();

function errorBody(type: string, message: string) {
  return { error: { type, message } };
}

async function jsonBody<T>(c: Context, schema: z.ZodType<T>, optional = false): Promise<T> {
  const text = await c.req.text();
  if (!text && optional) return schema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new HTTPException(400, {
      res: Response.json(errorBody('InvalidJson', `the request body is not JSON: ${errorMessage(err)}`), {
        status: 400,
      }),
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new HTTPException(400, {
      res: Response.json(errorBody('InvalidRequest', z.prettifyError(parsed.error)), { status: 400 }),
    });
  }
  return parsed.data;
}

/** useChat sends UI messages (with `parts`); anything else must already be model messages. */
async function toModelMessages(messages: Array<Record<string, unknown>>) {
  if (messages.some((m) => Array.isArray(m.parts)))
    return (await convertToModelMessages(messages as unknown as UIMessage[])) as z.infer<typeof MessageSchema>[];
  const parsed = z.array(MessageSchema).safeParse(messages);
  if (!parsed.success)
    throw new HTTPException(400, {
      res: Response.json(errorBody('InvalidRequest', `messages: ${z.prettifyError(parsed.error)}`), { status: 400 }),
    });
  return parsed.data;
}

/** The run's chunks as a UI message stream over SSE; each event's `id` is the chunk's offset. */
function sse(runId: string, chunks: AsyncIterable<RunStreamChunk>): Response {
  const mapper = new UiChunkMapper(runId);
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // A pull that enqueues nothing would stall the stream, so read on until a chunk maps to something.
        for (;;) {
          const next = await iterator.next();
          if (next.done) {
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
            return;
          }
          const id = next.value.offset >= 0 ? `id: ${next.value.offset}\n` : '';
          const events = mapper.map(next.value).map((ui) => `${id}data: ${JSON.stringify(ui)}\n\n`);
          if (events.length === 0) continue;
          controller.enqueue(encoder.encode(events.join('')));
          return;
        }
      } catch (err) {
        controller.enqueue(
          encoder.encode(`data: ${JSON.stringify({ type: 'error', errorText: errorMessage(err) })}\n\n`),
        );
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(body, { headers: { ...UI_MESSAGE_STREAM_HEADERS, 'x-run-id': runId } });
}

/** The Hono app; serve it with `@hono/node-server` (see examples/server.ts) or any fetch-style runtime. */
export function createServerApp(client: AgentClient): Hono {
  const app = new Hono();

  const startOptions = async (c: Context) => {
    const body = await jsonBody(c, StartBodySchema);
    const prompt = body.prompt ?? (await toModelMessages(body.messages!));
    const options: StartOptions = { ...body.options, ...(body.runId ? { runId: body.runId } : {}) };
    return { prompt, options };
  };

  app.post('/agents/:agentId/stream', async (c) => {
    const { prompt, options } = await startOptions(c);
    const stream = await client.stream(c.req.param('agentId'), prompt, options);
    return sse(stream.runId, stream);
  });

  app.post('/agents/:agentId/generate', async (c) => {
    const { prompt, options } = await startOptions(c);
    return c.json(await client.generate(c.req.param('agentId'), prompt, options));
  });

  app.get('/runs/:runId/stream', async (c) => {
    const runId = c.req.param('runId');
    const raw =
      c.req.query('offset') ??
      (c.req.header('last-event-id') !== undefined ? String(Number(c.req.header('last-event-id')) + 1) : '0');
    const offset = Number(raw);
    if (!Number.isInteger(offset) || offset < 0)
      return c.json(errorBody('InvalidRequest', `offset must be a whole number >= 0, not "${raw}"`), 400);
    await client.getRun(runId); // 404 for a run that does not exist, before any stream starts
    return sse(runId, client.subscribe(runId, { fromOffset: offset }));
  });

  app.get('/agents/:agentId/suspended-runs', async (c) => {
    const runs = await client.listSuspendedRuns({
      agentId: c.req.param('agentId'),
      threadId: c.req.query('threadId') || undefined,
      resourceId: c.req.query('resourceId') || undefined,
    });
    return c.json({ runs });
  });

  app.post('/runs/:runId/approve', async (c) => {
    const body = await jsonBody(c, DecisionBodySchema, true);
    const stream = await client.approveToolCall({ runId: c.req.param('runId'), ...body });
    return sse(stream.runId, stream);
  });
  app.post('/runs/:runId/decline', async (c) => {
    const body = await jsonBody(c, DecisionBodySchema, true);
    const stream = await client.declineToolCall({ runId: c.req.param('runId'), ...body });
    return sse(stream.runId, stream);
  });
  app.post('/runs/:runId/resume', async (c) => {
    const { resumeData, ...target } = await jsonBody(c, DecisionBodySchema);
    if (resumeData === undefined) return c.json(errorBody('InvalidRequest', 'resume needs "resumeData"'), 400);
    const stream = await client.resumeStream(resumeData, { runId: c.req.param('runId'), ...target });
    return sse(stream.runId, stream);
  });

  app.post('/runs/:runId/tool-result', async (c) => {
    const body = await jsonBody(c, DecisionBodySchema.extend({ result: JsonValueSchema }));
    const { result, resumeData: _unused, ...target } = body;
    const stream = await client.submitToolResult({ runId: c.req.param('runId'), ...target, result });
    return sse(stream.runId, stream);
  });

  app.notFound((c) => c.json(errorBody('NotFound', `no route ${c.req.method} ${c.req.path}`), 404));
  app.onError((err) => {
    if (err instanceof HTTPException) return err.getResponse();
    const failure = failureOf(err);
    if (!failure.expected) console.error('server: unexpected error', err);
    return Response.json(errorBody(failure.type, failure.message), { status: failure.httpStatus });
  });
  return app;
}
