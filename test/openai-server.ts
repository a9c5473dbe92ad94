/**
 * A local OpenAI-compatible server over real HTTP, speaking the Chat Completions wire format that
 * `@ai-sdk/openai`'s `.chat(id)` (the worker's built-in `openai/<model>` provider) calls: a JSON answer,
 * or server-sent events when the request streams (`stream: true`, as a streamed run's model calls do).
 * Each request gets the next answer the test queued, or the one its `respond` function gives; a request
 * with no answer gets HTTP 400 (which the provider does not retry) and is recorded in `unexpected`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  | { text: string }
  | { toolCalls: Array<{ name: string; args: unknown; id?: string }> }
  | { fail: { status: number; message: string; headers?: Record<string, string> } };

export interface RecordedRequest {
  /** When it arrived (`Date.now()`). */
  at: number;
  path: string;
  auth: string | undefined;
  body: ChatRequest;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Requests that found no answer. */
  unexpected: RecordedRequest[];
  /** Queues answers, one per coming request. */
  answer(...answers: ModelAnswer[]): void;
  /** How many queued answers no request has taken yet. */
  pending(): number;
  /** Clears the recorded requests and the queue; returns the unexpected requests and unused answers. */
  reset(): { unexpected: RecordedRequest[]; pending: ModelAnswer[] };
  /** Points `OPENAI_BASE_URL` and `OPENAI_API_KEY` of this process at the server. */
  useInThisProcess(apiKey?: string): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

/**
 * Starts the server. `respond` answers a request when no queued answer is left (return undefined for
 * none).
 */
export async function startFakeOpenAI(
  respond?: (request: ChatRequest, index: number) => ModelAnswer | undefined,
): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const unexpected: RecordedRequest[] = [];
  const queue: ModelAnswer[] = [];
  let calls = 0;

  const server: Server = createServer(async (req, res) => {
    const recorded = {
      at: Date.now(),
      path: req.url ?? '',
      auth: req.headers.authorization,
      body: JSON.parse(await body(req)),
    };
    requests.push(recorded);
    const index = requests.length - 1;
    const next = queue.shift() ?? respond?.(recorded.body, index);
    if (!next) {
      unexpected.push(recorded);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the test expected no model call here', type: 'invalid_request' } }));
      return;
    }
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
      const text = (next as { text: string }).text;
      const half = Math.ceil(text.length / 2);
      for (const part of [text.slice(0, half), text.slice(half)].filter(Boolean)) {
        res.write(chunk([{ index: 0, delta: { content: part }, finish_reason: null }]));
      }
    }
    res.write(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
    res.write(chunk([], { usage: USAGE }));
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseURL,
    requests,
    unexpected,
    answer: (...answers) => void queue.push(...answers),
    pending: () => queue.length,
    reset: () => {
      requests.length = 0;
      return { unexpected: unexpected.splice(0), pending: queue.splice(0) };
    },
    useInThisProcess(apiKey = 'sk-test-key') {
      process.env.OPENAI_BASE_URL = baseURL;
      process.env.OPENAI_API_KEY = apiKey;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
