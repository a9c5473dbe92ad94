/**
 * A local Gemini API server over real HTTP, speaking `generateContent` as `@ai-sdk/google` calls it:
 * `POST /v1beta/models/<model>:generateContent` answers one JSON `GenerateContentResponse`, and
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answers server-sent events, each
 * `data: <GenerateContentResponse>`. It is the sibling of openai-server.ts, with the same shape and the
 * same `ModelAnswer`s, so that a test can point the `google/<model>` provider at something real without
 * an account or the network. A request with no answer, or to another path, gets HTTP 400 / 404 with
 * Google's error body (which the provider does not retry) and is recorded in `unexpected`.
 *
 * `@ai-sdk/google` 4.0.129 reads the key from `GOOGLE_GENERATIVE_AI_API_KEY` (at each request) and sends
 * it as `x-goog-api-key`; it reads no base-URL variable, so the base URL must be passed to
 * `createGoogleGenerativeAI({ baseURL })`. Gemini's function calls carry no ids as a rule: the SDK makes
 * them, and sends them back as `functionCall.id` / `functionResponse.id`. A `ModelAnswer` tool call with
 * an `id` is answered with `functionCall.id`, which the SDK then uses. A function-call answer still has
 * `finishReason: 'STOP'`: the SDK maps it to 'tool-calls' because the parts hold a call. The first call
 * of an answer carries a `thoughtSignature` (`fake-signature-<request index>`), as Gemini 3's do: the SDK
 * keeps it in the call's `providerMetadata.google` and must send it back with the call, or it sends a
 * `skip_thought_signature_validator` sentinel and warns (it treats unknown ids like `gemini-x` as Gemini 3).
 * A `webSearch` answer is grounding with Google Search: the text, with the candidate's `groundingMetadata`
 * (`webSearchQueries`, a `groundingChunks` `web` entry per result, `groundingSupports`), whole or in the
 * last streamed chunk, as Gemini sends it.
 */
import { createServer, type Server } from 'node:http';
import { FakeLedger, listenFake, readBody, type FakeProvider, type Recorded } from './fake-provider.js';
import type { ModelAnswer } from './openai-server.js';

export type { ModelAnswer } from './openai-server.js';

/** Gemini grounding its answer `text` with Google Search: it searched for `query` and found `results`. */
export interface WebSearchAnswer {
  webSearch: { query: string; results: Array<{ url: string; title: string }>; text: string };
}

export type GoogleAnswer = ModelAnswer | WebSearchAnswer;

/**
 * A `generateContent` request, as far as the tests read it. `model` and `stream` are not in Gemini's
 * body: the fake takes them from the path (`models/<model>:streamGenerateContent` streams), so that a
 * test reads them where it does with the other fakes.
 */
export interface GenerateContentRequest {
  /** From the path, without `models/`. */
  model: string;
  /** From the path: true for `:streamGenerateContent`. */
  stream: boolean;
  contents: Array<{ role: string; parts: unknown[] }>;
  systemInstruction?: { parts: Array<{ text: string }> };
  /** Function declarations, or a Gemini tool such as `{ googleSearch: {} }`. */
  tools?: Array<{
    functionDeclarations?: Array<{ name: string; description?: string; parametersJsonSchema?: unknown }>;
    googleSearch?: Record<string, unknown>;
  }>;
  toolConfig?: unknown;
  generationConfig?: Record<string, unknown>;
  [k: string]: unknown;
}

/** A request as the server recorded it; `auth` is the `x-goog-api-key` header. */
export type RecordedRequest = Recorded<GenerateContentRequest>;
/**
 * `baseURL` is for `createGoogleGenerativeAI({ baseURL })` or the worker's `GOOGLE_GENERATIVE_AI_BASE_URL`;
 * `useInThisProcess` sets both (the package itself reads no base-URL variable: the worker does).
 */
export type FakeGoogle = FakeProvider<GenerateContentRequest, GoogleAnswer>;

/** Google's canonical error `status` for an HTTP status (google.rpc.Code). */
function errorStatus(code: number): string {
  const statuses: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    409: 'ABORTED',
    429: 'RESOURCE_EXHAUSTED',
    499: 'CANCELLED',
    501: 'UNIMPLEMENTED',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return statuses[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

const errorBody = (code: number, message: string) =>
  JSON.stringify({ error: { code, message, status: errorStatus(code) } });

const USAGE = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };

/** `/v1beta/models/<model>:generateContent` or `…:streamGenerateContent?alt=sse`. */
const ROUTE = /^\/v1beta\/(?:models\/)?([^:?]+):(generateContent|streamGenerateContent)(?:\?|$)/;

/**
 * Starts the server. `respond` answers a request when no queued answer is left (return undefined for
 * none).
 */
export async function startFakeGoogle(
  respond?: (request: GenerateContentRequest, index: number) => GoogleAnswer | undefined,
): Promise<FakeGoogle> {
  const ledger = new FakeLedger<GenerateContentRequest, GoogleAnswer>(respond);

  const server: Server = createServer(async (req, res) => {
    const header = req.headers['x-goog-api-key'];
    const path = req.url ?? '';
    const route = ROUTE.exec(path);
    const recorded: RecordedRequest = {
      at: Date.now(),
      path,
      auth: Array.isArray(header) ? header[0] : header,
      body: {
        ...JSON.parse((await readBody(req)) || '{}'),
        model: decodeURIComponent(route?.[1] ?? ''),
        stream: route?.[2] === 'streamGenerateContent',
      },
    };
    const index = ledger.record(recorded);
    const fail = (code: number, message: string, headers: Record<string, string> = {}) => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(errorBody(code, message));
    };
    if (req.method !== 'POST' || !route) {
      ledger.unexpected.push(recorded);
      return fail(404, `the fake serves POST /v1beta/models/<model>:generateContent, not ${req.method} ${path}`);
    }
    const next = ledger.take(recorded, index);
    if (!next) return fail(400, 'the test expected no model call here');
    if ('hang' in next) return;
    if ('fail' in next) return fail(next.fail.status, next.fail.message, next.fail.headers);

    const base = { modelVersion: recorded.body.model, responseId: `resp-${index}` };
    const search = 'webSearch' in next ? next.webSearch : undefined;
    // Gemini grounds the whole answer: the metadata comes with it, or with its last streamed chunk.
    const groundingMetadata = search && {
      webSearchQueries: [search.query],
      searchEntryPoint: { renderedContent: `<div class="search">${search.query}</div>` },
      groundingChunks: search.results.map(({ url, title }) => ({ web: { uri: url, title } })),
      groundingSupports: [
        {
          segment: { startIndex: 0, endIndex: search.text.length, text: search.text },
          groundingChunkIndices: search.results.map((_, i) => i),
        },
      ],
    };
    const answer = (parts: unknown[], finishReason?: string) => ({
      candidates: [
        {
          content: { role: 'model', parts },
          ...(finishReason && { finishReason }),
          ...(finishReason && groundingMetadata && { groundingMetadata }),
          index: 0,
        },
      ],
      usageMetadata: USAGE,
      ...base,
    });
    const text = search ? search.text : 'text' in next ? next.text : '';
    const parts =
      'toolCalls' in next
        ? next.toolCalls.map((c, i) => ({
            functionCall: { ...(c.id && { id: c.id }), name: c.name, args: c.args ?? {} },
            // Gemini 3 signs the first function call of an answer, and wants the signature back with it.
            ...(i === 0 && { thoughtSignature: `fake-signature-${index}` }),
          }))
        : [{ text }];
    if (!recorded.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(parts, 'STOP')));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    if ('toolCalls' in next) {
      // Gemini sends a function call whole, in one chunk.
      chunk(answer(parts, 'STOP'));
    } else {
      // The text in two chunks, as a model streams it; the last one carries the finish reason.
      const half = Math.ceil(text.length / 2);
      const pieces = [text.slice(0, half), text.slice(half)].filter(Boolean);
      if (pieces.length === 0) pieces.push('');
      pieces.forEach((text, i) => chunk(answer([{ text }], i === pieces.length - 1 ? 'STOP' : undefined)));
    }
    res.end();
  });
  return listenFake(server, '/v1beta', ledger, (baseURL, apiKey = 'google-test-key') => {
    process.env.GOOGLE_GENERATIVE_AI_API_KEY = apiKey;
    process.env.GOOGLE_GENERATIVE_AI_BASE_URL = baseURL;
  });
}
