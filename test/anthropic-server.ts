/**
 * A local Anthropic server over real HTTP, speaking the Messages API (`POST /v1/messages`) as
 * `@ai-sdk/anthropic` calls it: a JSON `message`, or server-sent events (`event: <type>` and
 * `data: <json>`) when the request streams, with the events and fields the package parses. It is the
 * sibling of openai-server.ts, with the same shape and the same `ModelAnswer`s, so that a test can
 * point the `anthropic/<model>` provider at something real without an account or the network.
 * A request with no answer, or to another path, gets HTTP 400 / 404 with Anthropic's error body
 * (which the provider does not retry) and is recorded in `unexpected`.
 *
 * A `webSearch` answer is Anthropic's own web search run inside the call: a `server_tool_use` block
 * (`srvtoolu_<n>`, `web_search`), its `web_search_tool_result`, then the text. The fake keeps the searches
 * it made and, as Anthropic does, refuses (400) a request that sends one back that it never made, or
 * changed, or without its result right after the call.
 *
 * `@ai-sdk/anthropic` 4.0.112 reads `ANTHROPIC_BASE_URL` (when the provider is created: the package's
 * default `anthropic` instance reads it at import) and `ANTHROPIC_API_KEY` (at each request), and sends
 * the key as `x-api-key`, with `anthropic-version: 2023-06-01`.
 */
import { createServer, type Server } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { FakeLedger, listenFake, readBody, type FakeProvider, type Recorded } from './fake-provider.js';
import type { ModelAnswer } from './openai-server.js';

export type { ModelAnswer } from './openai-server.js';

type ToolCalls = Extract<ModelAnswer, { toolCalls: unknown }>['toolCalls'];

/**
 * Anthropic's web search (the `web_search` server tool) for `query`, finding `results`, then `text`; with
 * `cite`, the text cites the first result (`web_search_result_location`); with `toolCalls`, the model
 * calls those tools after the text (stop reason `tool_use`).
 */
export interface WebSearchAnswer {
  webSearch: {
    query: string;
    results: Array<{ url: string; title: string }>;
    text: string;
    cite?: boolean;
    toolCalls?: ToolCalls;
  };
}

export type AnthropicAnswer = ModelAnswer | WebSearchAnswer;

/** A Messages API request, as far as the tests read it. */
export interface MessagesRequest {
  model: string;
  /** `true` when the call streams; the package leaves it out otherwise. */
  stream?: boolean;
  system?: unknown;
  messages: Array<{ role: string; content: string | unknown[] }>;
  /** A function tool (`input_schema`), or a server tool: `{ type: 'web_search_20250305', name: 'web_search', ... }`. */
  tools?: Array<{ name: string; description?: string; input_schema?: unknown; type?: string; [k: string]: unknown }>;
  tool_choice?: unknown;
  max_tokens?: number;
  [k: string]: unknown;
}

/** A request as the server recorded it; `auth` is the `x-api-key` header. */
export type RecordedRequest = Recorded<MessagesRequest>;
/** `baseURL` is for `ANTHROPIC_BASE_URL` or `createAnthropic({ baseURL })`; `useInThisProcess` sets both variables. */
export type FakeAnthropic = FakeProvider<MessagesRequest, AnthropicAnswer>;

/** Anthropic's error `type` for an HTTP status (https://docs.anthropic.com/en/api/errors). */
function errorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

const errorBody = (status: number, message: string) =>
  JSON.stringify({ type: 'error', error: { type: errorType(status), message } });

const USAGE = { input_tokens: 12, output_tokens: 5 };

/** Splits a string in two halves, as a model streams it (an empty half is dropped). */
const halves = (text: string) => {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter(Boolean);
};

type Block = { type: string } & Record<string, unknown>;

/**
 * What Anthropic refuses of the searches a request sends back: a `server_tool_use` or
 * `web_search_tool_result` the server never made or that was changed, or a search not followed by its result.
 */
function refusal(request: MessagesRequest, searches: Map<string, { query: string; results: Block[] }>) {
  for (const [m, message] of request.messages.entries()) {
    const blocks = (Array.isArray(message.content) ? message.content : []) as Block[];
    for (const [b, block] of blocks.entries()) {
      const at = `messages.${m}.content.${b}`;
      if (block.type === 'server_tool_use') {
        const made = searches.get(String(block.id));
        if (!made || !isDeepStrictEqual(block.input, { query: made.query }) || message.role !== 'assistant') {
          return `${at}: server_tool_use ${String(block.id)} is not one this API made`;
        }
        const next = blocks[b + 1];
        if (next?.type !== 'web_search_tool_result' || next.tool_use_id !== block.id) {
          return `${at}: server_tool_use ids were found without web_search_tool_result blocks immediately after: ${String(block.id)}`;
        }
      } else if (block.type === 'web_search_tool_result') {
        const made = searches.get(String(block.tool_use_id));
        if (!made || !isDeepStrictEqual(block.content, made.results)) {
          return `${at}: web_search_tool_result is not one this API made`;
        }
      }
    }
  }
  return undefined;
}

/**
 * Starts the server. `respond` answers a request when no queued answer is left (return undefined for
 * none).
 */
export async function startFakeAnthropic(
  respond?: (request: MessagesRequest, index: number) => AnthropicAnswer | undefined,
): Promise<FakeAnthropic> {
  const ledger = new FakeLedger<MessagesRequest, AnthropicAnswer>(respond);
  const searches = new Map<string, { query: string; results: Block[] }>();
  let calls = 0;
  const toolUses = (toolCalls: ToolCalls): Block[] =>
    toolCalls.map((c) => ({ type: 'tool_use', id: c.id ?? `toolu_${++calls}`, name: c.name, input: c.args ?? {} }));

  const server: Server = createServer(async (req, res) => {
    const header = req.headers['x-api-key'];
    const recorded: RecordedRequest = {
      at: Date.now(),
      path: req.url ?? '',
      auth: Array.isArray(header) ? header[0] : header,
      body: JSON.parse((await readBody(req)) || '{}'),
    };
    const index = ledger.record(recorded);
    const fail = (status: number, message: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(errorBody(status, message));
    };
    if (req.method !== 'POST' || recorded.path.split('?')[0] !== '/v1/messages') {
      ledger.unexpected.push(recorded);
      return fail(404, `the fake serves POST /v1/messages, not ${req.method} ${recorded.path}`);
    }
    const refused = refusal(recorded.body, searches);
    if (refused) {
      ledger.unexpected.push(recorded);
      return fail(400, refused);
    }
    const next = ledger.take(recorded, index);
    if (!next) return fail(400, 'the test expected no model call here');
    if ('hang' in next) return;
    if ('fail' in next) return fail(next.fail.status, next.fail.message, next.fail.headers);

    let content: Block[];
    if ('webSearch' in next) {
      const { query, results: found, text, cite, toolCalls = [] } = next.webSearch;
      const id = `srvtoolu_${++calls}`;
      const results = found.map(({ url, title }, i) => ({
        type: 'web_search_result',
        url,
        title,
        encrypted_content: `fake-${id}-${i}`,
        page_age: 'April 30, 2025',
      }));
      searches.set(id, { query, results });
      const location = { type: 'web_search_result_location', cited_text: text, encrypted_index: `fake-index-${id}` };
      const citations = cite && found[0] && [{ ...location, url: found[0].url, title: found[0].title }];
      content = [
        { type: 'server_tool_use', id, name: 'web_search', input: { query } },
        { type: 'web_search_tool_result', tool_use_id: id, content: results },
        { type: 'text', text, ...(citations && { citations }) },
        ...toolUses(toolCalls),
      ];
    } else content = 'toolCalls' in next ? toolUses(next.toolCalls) : [{ type: 'text', text: next.text }];
    const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const message = { id: `msg_${index}`, type: 'message', role: 'assistant', model: recorded.body.model };
    if (!recorded.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content, stop_reason: stopReason, stop_sequence: null, usage: USAGE }));
      return;
    }
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: USAGE.input_tokens, output_tokens: 1 },
      },
    });
    event('ping', {});
    content.forEach((block, i) => {
      const delta = (d: Record<string, unknown>) => event('content_block_delta', { index: i, delta: d });
      if (block.type === 'text') {
        const citations = (block.citations as unknown[] | undefined) ?? [];
        const start = { type: 'text', text: '', ...(block.citations !== undefined && { citations: [] }) };
        event('content_block_start', { index: i, content_block: start });
        // A cited text's citations come first, then its text.
        for (const citation of citations) delta({ type: 'citations_delta', citation });
        for (const part of halves(String(block.text))) delta({ type: 'text_delta', text: part });
      } else if (block.type === 'web_search_tool_result') {
        // A search's results come whole, in the block's start.
        event('content_block_start', { index: i, content_block: block });
      } else {
        // As Anthropic streams a tool call, its own or the model's: an empty `input` first, then its JSON in pieces.
        event('content_block_start', { index: i, content_block: { ...block, input: {} } });
        for (const part of halves(JSON.stringify(block.input))) delta({ type: 'input_json_delta', partial_json: part });
      }
      event('content_block_stop', { index: i });
    });
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: USAGE.output_tokens },
    });
    event('message_stop', {});
    res.end();
  });
  return listenFake(server, '/v1', ledger, (baseURL, apiKey = 'sk-ant-test') => {
    process.env.ANTHROPIC_BASE_URL = baseURL;
    process.env.ANTHROPIC_API_KEY = apiKey;
  });
}
