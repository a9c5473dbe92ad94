/**
 * A local OpenAI-compatible server over real HTTP, speaking the Chat Completions wire format that
 * `@ai-sdk/openai`'s `.chat(id)` (the worker's built-in `openai/<model>` provider) calls: a JSON answer,
 * or server-sent events when the request streams (`stream: true`, as a streamed run's model calls do).
 * Each request gets the next answer the test queued, or the one its `respond` function gives; a request
 * with no answer gets HTTP 400 (which the provider does not retry) and is recorded in `unexpected`.
 */
import { createServer, type Server } from 'node:http';
import { FakeLedger, listenFake, readBody, type FakeProvider, type Recorded } from './fake-provider.js';

/** A Chat Completions request, as far as the tests read it. */
export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content?: string | null | unknown[];
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: unknown } }>;
  tool_choice?: unknown;
  response_format?: unknown;
}

/**
 * What the model answers: text, or calls of tools by name (ids default to `call_<n>`), or an HTTP
 * failure with the provider's JSON error body (`{ error: { message } }`) and headers such as `retry-after`.
 */
export type ModelAnswer =
  /** Streamed in two deltas, or in `deltas` with `gapMs` between them, as a slow model writes. */
  | { text: string; deltas?: string[]; gapMs?: number }
  | { toolCalls: Array<{ name: string; args: unknown; id?: string }> }
  | { fail: { status: number; message: string; headers?: Record<string, string> } }
  /** Takes the request and answers nothing, as a provider that hangs: the caller must give up. */
  | { hang: true };

export type RecordedRequest = Recorded<ChatRequest>;
export type FakeOpenAI = FakeProvider<ChatRequest, ModelAnswer>;

const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

/**
 * Starts the server. `respond` answers a request when no queued answer is left (return undefined for
 * none).
 */
export async function startFakeOpenAI(
  respond?: (request: ChatRequest, index: number) => ModelAnswer | undefined,
): Promise<FakeOpenAI> {
  const ledger = new FakeLedger<ChatRequest, ModelAnswer>(respond);
  let calls = 0;

  const server: Server = createServer(async (req, res) => {
    const recorded: RecordedRequest = {
      at: Date.now(),
      path: req.url ?? '',
      auth: req.headers.authorization,
      body: JSON.parse(await readBody(req)),
    };
    const index = ledger.record(recorded);
    const next = ledger.take(recorded, index);
    if (!next) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the test expected no model call here', type: 'invalid_request' } }));
      return;
    }
    if ('hang' in next) return;
    if ('fail' in next) {
      res.writeHead(next.fail.status, { 'content-type': 'application/json', ...next.fail.headers });
      res.end(JSON.stringify({ error: { message: next.fail.message, type: 'test_failure' } }));
      return;
    }
    const id = `chatcmpl-${index}`;
    const base = { id, created: 1_700_000_000, model: recorded.body.model };
    const toolCalls =
      'toolCalls' in next
        ? next.toolCalls.map((c, i) => ({
            index: i,
            id: c.id ?? `call_${++calls}`,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          }))
        : undefined;
    const finishReason = toolCalls ? 'tool_calls' : 'stop';
    if (!recorded.body.stream) {
      const message = toolCalls
        ? { role: 'assistant', content: null, tool_calls: toolCalls.map(({ index: _i, ...call }) => call) }
        : { role: 'assistant', content: (next as { text: string }).text };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: finishReason }],
          usage: USAGE,
        }),
      );
      return;
    }
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    if (toolCalls) {
      res.write(chunk([{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }]));
    } else {
      // The text in two deltas, as a model streams it.
      const { text, deltas, gapMs = 0 } = next as { text: string; deltas?: string[]; gapMs?: number };
      const half = Math.ceil(text.length / 2);
      const parts = (deltas ?? [text.slice(0, half), text.slice(half)]).filter(Boolean);
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        res.write(chunk([{ index: 0, delta: { content: part }, finish_reason: null }]));
      }
    }
    res.write(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
    res.write(chunk([], { usage: USAGE }));
    res.end('data: [DONE]\n\n');
  });
  return listenFake(server, '/v1', ledger, (baseURL, apiKey = 'sk-test-key') => {
    process.env.OPENAI_BASE_URL = baseURL;
    process.env.OPENAI_API_KEY = apiKey;
  });
}
