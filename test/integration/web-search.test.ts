/**
 * `webSearchTool` with the real `@ai-sdk/openai` provider over real HTTP, against a small Responses API
 * server on localhost that answers as OpenAI does with its `web_search` tool: a `web_search_call` item
 * (the search the provider ran), then a message whose text cites pages (`url_citation`). The server
 * keeps the items it made and refuses a later request that refers to one it does not know, or answers
 * a function call it never made, as OpenAI does: so a run whose next step it accepts has recorded the
 * provider's calls correctly. Also: the error on a model without a native web search, and approval.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createTool,
  createWebSearchTool,
  defineAgent,
  RunFailedError,
  type RunStreamChunk,
  type Script,
} from '../../src/index.js';
import { UiChunkMapper } from '../../src/server/index.js';
import { collect, historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

interface InputItem {
  type?: string;
  role?: string;
  id?: string;
  call_id?: string;
  content?: unknown;
}

interface ResponsesRequest {
  model: string;
  input: InputItem[];
  tools?: Array<Record<string, unknown>>;
  include?: string[];
  stream?: boolean;
}

const lookup = createTool({
  id: 'lookup',
  description: 'Looks a city up in the local gazetteer',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, population: 516_092 }),
});

const researchAgent = defineAgent({
  id: 'research-agent',
  name: 'Research',
  instructions: 'Search the web when you need current information.',
  model: 'openai-responses/gpt-test',
  overridable: ['model'],
  tools: { search: createWebSearchTool({ openai: { searchContextSize: 'low' } }), lookup },
});

/** What the agent's `afterToolCall` saw. */
const seen: Array<{ toolName: string } & ({ output: unknown } | { error: string })> = [];

/** The same agent with hooks and a display transform of every call's output. */
const auditedAgent = defineAgent({
  ...researchAgent,
  id: 'audited-research-agent',
  hooks: {
    afterToolCall: ({ toolName, ...end }) => {
      seen.push({ toolName, ...('output' in end ? { output: end.output } : { error: end.error }) });
    },
  },
  transform: { display: { output: (value) => ({ shown: Object.keys(value as object) }) } },
});

const requests: Array<{ path: string; body: ResponsesRequest }> = [];
/** The output items the server made, by id: what `item_reference` may name later. */
const madeItems = new Set<string>();
let server: Server;
let w: TestWorker;
let nextId = 0;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function userText(input: InputItem[]): string {
  const user = input.find((item) => item.role === 'user');
  if (typeof user?.content === 'string') return user.content;
  return ((user?.content as Array<{ text?: string }>) ?? []).map((p) => p.text ?? '').join('');
}

/** What OpenAI refuses in a request's input, or undefined: unknown item references, answers to no call. */
function refusal(input: InputItem[]): string | undefined {
  for (const item of input) {
    if (item.type === 'item_reference' && !madeItems.has(item.id ?? '')) return `Item with id '${item.id}' not found.`;
    if (item.type === 'web_search_call' && !madeItems.has(item.id ?? '')) return `Item '${item.id}' not found.`;
    if (item.type === 'function_call_output') {
      const called = input.some((i) => i.type === 'function_call' && i.call_id === item.call_id);
      if (!called) return `No tool call found for function call output with call_id ${item.call_id}.`;
    }
  }
  return undefined;
}

const made = <T extends { id: string }>(item: T): T => (madeItems.add(item.id), item);

function searchCall(withSources: boolean) {
  const sources = [
    { type: 'url', url: 'https://temporal.io/' },
    { type: 'url', url: 'https://ai-sdk.dev/docs' },
  ];
  return made({
    type: 'web_search_call',
    id: `ws_${++nextId}`,
    status: 'completed',
    action: { type: 'search', query: 'durable execution', ...(withSources ? { sources } : {}) },
  });
}

function message(text: string) {
  const annotations = [
    { type: 'url_citation', start_index: 0, end_index: 8, url: 'https://temporal.io/', title: 'Temporal' },
    { type: 'url_citation', start_index: 9, end_index: 13, url: 'https://ai-sdk.dev/docs', title: 'AI SDK' },
  ];
  return made({
    type: 'message',
    id: `msg_${++nextId}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations }],
  });
}

/** What the model does: search, then answer; with "population" in the prompt, search and call `lookup` first. */
function output(request: ResponsesRequest): Array<Record<string, unknown>> {
  const prompt = userText(request.input);
  // The real API returns the search's sources when asked to (`include`); the AI SDK asks whenever it sends the tool.
  const withSources = request.include?.includes('web_search_call.action.sources') === true && !prompt.includes('cite');
  if (prompt.includes('population')) {
    if (request.input.some((item) => item.type === 'function_call_output')) {
      return [message('Temporal AI SDK: Lyon has 516092 people.')];
    }
    const call = made({
      type: 'function_call',
      id: `fc_${++nextId}`,
      call_id: `call_${nextId}`,
      name: 'lookup',
      arguments: '{"city":"Lyon"}',
      status: 'completed',
    });
    return [searchCall(withSources), call];
  }
  return [searchCall(withSources), message('Temporal AI SDK: both run agents.')];
}

const usage = { input_tokens: 20, output_tokens: 8, total_tokens: 28 };

function respond(res: ServerResponse, request: ResponsesRequest): void {
  const items = output(request);
  const response = { id: `resp_${++nextId}`, object: 'response', created_at: 1_700_000_000, model: request.model };
  if (!request.stream) {
    const whole = { ...response, status: 'completed', output: items, usage };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(whole));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (event: Record<string, unknown>) => res.write(`data: ${JSON.stringify(event)}\n\n`);
  send({ type: 'response.created', response });
  items.forEach((item, index) => {
    if (item.type === 'web_search_call') {
      send({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress' } });
    } else if (item.type === 'message') {
      send({ type: 'response.output_item.added', output_index: index, item: { type: 'message', id: item.id } });
      const part = (item.content as Array<{ text: string; annotations: unknown[] }>)[0]!;
      for (const delta of part.text.match(/.{1,10}/g) ?? []) {
        send({ type: 'response.output_text.delta', item_id: item.id, output_index: index, delta });
      }
      for (const annotation of part.annotations) send({ type: 'response.output_text.annotation.added', annotation });
    } else {
      send({ type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '' } });
    }
    send({ type: 'response.output_item.done', output_index: index, item });
  });
  send({ type: 'response.completed', response: { ...response, usage } });
  res.end();
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const parsed = JSON.parse(await body(req)) as ResponsesRequest;
    requests.push({ path: req.url ?? '', body: parsed });
    const refused = req.url === '/v1/responses' ? refusal(parsed.input ?? []) : `no route ${req.url}`;
    if (refused) {
      const error = { message: refused, type: 'invalid_request_error', param: 'input', code: null };
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      return;
    }
    respond(res, parsed);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.OPENAI_API_KEY = 'sk-test-key';
  w = await startWorker([researchAgent, auditedAgent]);
});

afterAll(async () => {
  await w?.stop();
  server?.close();
});

/** The requests a run made, from the first one it sent on. */
function requestsSince(start: number) {
  return requests.slice(start);
}

describe('webSearchTool on OpenAI Responses (openai-responses/<model>)', () => {
  it('is sent as the web_search tool; the search and its sources are recorded in the step', async () => {
    const start = requests.length;
    const result = await w.client.generate('research-agent', 'What runs durable agents?');

    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Temporal AI SDK: both run agents.');
    const [first, ...more] = requestsSince(start);
    expect(more).toEqual([]);
    expect(first!.path).toBe('/v1/responses');
    expect(first!.body.tools).toEqual([
      { type: 'web_search', search_context_size: 'low' },
      expect.objectContaining({ type: 'function', name: 'lookup' }),
    ]);
    expect(first!.body.include).toContain('web_search_call.action.sources');

    const [step] = result.steps;
    const searchId = step!.toolCalls[0]!.toolCallId;
    expect(searchId).toMatch(/^ws_/);
    expect(step!.toolCalls).toEqual([{ toolCallId: searchId, toolName: 'search', args: {}, providerExecuted: true }]);
    expect(step!.toolResults).toEqual([
      {
        toolCallId: searchId,
        toolName: 'search',
        isError: false,
        providerExecuted: true,
        output: {
          action: { type: 'search', query: 'durable execution' },
          sources: [
            { type: 'url', url: 'https://temporal.io/' },
            { type: 'url', url: 'https://ai-sdk.dev/docs' },
          ],
        },
      },
    ]);
    // With the search's own sources, the AI SDK does not repeat the citations as sources.
    expect(step!.sources?.map((s) => s.url)).toEqual(['https://temporal.io/', 'https://ai-sdk.dev/docs']);
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['search']);
    // The transcript keeps the provider's record of the search, which the next model call sends back.
    const assistant = result.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.content).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'tool-call', toolCallId: searchId, providerExecuted: true }),
        expect.objectContaining({ type: 'tool-result', toolCallId: searchId, toolName: 'search' }),
      ]),
    );
  });

  it('goes on to the next step with the search in the conversation, and OpenAI accepts it', async () => {
    const start = requests.length;
    const result = await w.client.generate('research-agent', 'What is the population of Lyon?');

    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Temporal AI SDK: Lyon has 516092 people.');
    expect(result.steps).toHaveLength(2);
    const [searched, answered] = result.steps;
    // The search ran at the provider; only `lookup` ran on the worker, and only its result went back.
    expect(searched!.toolCalls.map((c) => [c.toolName, c.providerExecuted ?? false])).toEqual([
      ['search', true],
      ['lookup', false],
    ]);
    expect(searched!.toolResults[1]).toMatchObject({
      toolName: 'lookup',
      output: { city: 'Lyon', population: 516092 },
    });
    expect(answered!.toolCalls).toEqual([]);

    const [, second, ...more] = requestsSince(start);
    expect(more).toEqual([]);
    const searchId = searched!.toolCalls[0]!.toolCallId;
    const input = second!.body.input;
    // The search goes back as a reference to OpenAI's stored item; the function call with its output.
    expect(input).toContainEqual({ type: 'item_reference', id: searchId });
    expect(input.filter((i) => i.type === 'function_call_output')).toHaveLength(1);
    expect(input.filter((i) => i.type === 'function_call_output' && i.call_id === searchId)).toEqual([]);
  });

  it('streams the search as it starts, then its call, result and sources with the step', async () => {
    const stream = await w.client.stream('research-agent', 'What runs durable agents? cite them');
    const chunks = await collect(stream);
    const types = chunks.map((c) => c.type);
    const search = chunks.find((c) => c.type === 'tool-call');
    expect(search).toMatchObject({ type: 'tool-call', toolName: 'search', args: {}, providerExecuted: true });
    const id = (search as Extract<RunStreamChunk, { type: 'tool-call' }>).toolCallId;

    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-input-start', toolCallId: id, toolName: 'search', providerExecuted: true }),
    );
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-result',
        toolCallId: id,
        toolName: 'search',
        output: { action: { type: 'search', query: 'durable execution' } },
        providerExecuted: true,
      }),
    );
    // Without the search's own sources, the text's URL citations are the sources, with their titles.
    const sources = chunks.filter((c) => c.type === 'source');
    expect(sources.map((s) => [s.url, s.title])).toEqual([
      ['https://temporal.io/', 'Temporal'],
      ['https://ai-sdk.dev/docs', 'AI SDK'],
    ]);
    expect(types.indexOf('tool-input-start')).toBeLessThan(types.indexOf('tool-call'));
    expect(types.indexOf('tool-result')).toBeLessThan(types.indexOf('step-finish'));
    expect(types.at(-1)).toBe('finish');
    const text = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');
    expect(text).toBe('Temporal AI SDK: both run agents.');

    // A useChat front end gets the AI SDK's own parts for a provider's call and its sources.
    const mapper = new UiChunkMapper(stream.runId);
    const ui = chunks.flatMap((c) => mapper.map(c));
    expect(ui).toContainEqual(
      expect.objectContaining({ type: 'tool-input-available', toolCallId: id, providerExecuted: true }),
    );
    expect(ui).toContainEqual(
      expect.objectContaining({ type: 'tool-output-available', toolCallId: id, providerExecuted: true }),
    );
    expect(ui).toContainEqual({
      type: 'source-url',
      sourceId: sources[0]!.id,
      url: 'https://temporal.io/',
      title: 'Temporal',
    });
  });
});

describe("the agent's hooks and transforms around a provider's call", () => {
  it('afterToolCall sees the search, and the display transform shapes what the stream shows of it', async () => {
    seen.length = 0;
    const stream = await w.client.stream('audited-research-agent', 'What runs durable agents?');
    const chunks = await collect(stream);
    const raw = { action: { type: 'search', query: 'durable execution' }, sources: expect.any(Array) };
    expect(seen).toEqual([{ toolName: 'search', output: raw }]);
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-result', toolName: 'search', output: { shown: ['action', 'sources'] } }),
    );
    // The result keeps the raw output, as for any tool.
    const result = await w.client.next(stream.runId);
    expect(result.toolResults[0]).toMatchObject({ toolName: 'search', output: raw });
  });
});

describe('webSearchTool where the model has no native web search', () => {
  for (const [model, provider, options] of [
    ['openai/gpt-test', 'openai.chat', {}],
    ['scripted', 'scripted', { script: [{ text: 'never' }] }],
  ] as Array<[string, string, { script?: Script }]>) {
    it(`fails the run on ${model} before any model call, naming the provider and what to use`, async () => {
      const start = requests.length;
      const { runId } = await w.client.start('research-agent', 'What runs durable agents?', { model, ...options });
      const err = await w.client.result(runId).catch((e: unknown) => e);

      expect(err).toBeInstanceOf(RunFailedError);
      expect((err as RunFailedError).failureType).toBe('WebSearchUnavailableError');
      expect((err as Error).message).toContain(
        `Tool "search" is webSearchTool, the model provider's own web search, but the run's model "${model}" ` +
          `(AI SDK provider "${provider}") has no native web search here. Use a model that has one: ` +
          '"openai-responses/<model>"',
      );
      // Nothing was sent, and no retry was tried: the model activity ran once.
      expect(requestsSince(start)).toEqual([]);
      const history = await w.client.temporal.workflow.getHandle(runId).fetchHistory();
      const attempts = (history.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
      expect(attempts.every((a) => a === 1)).toBe(true);
      const events = await historyEventTypes(w.client, runId);
      expect(events).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
      expect(events.filter((e) => e === 'EVENT_TYPE_ACTIVITY_TASK_FAILED')).toHaveLength(1);
    });
  }

  it('runs on such a model when the run leaves the search out', async () => {
    const result = await w.client.generate('research-agent', 'x', {
      model: 'scripted',
      script: [{ text: 'No search needed.' }],
      activeTools: ['lookup'],
    });
    expect(result.text).toBe('No search needed.');
  });
});

describe('webSearchTool and approval', () => {
  it('refuses a run that requires approval of every call while it offers the search', async () => {
    const start = requests.length;
    const err = await w.client
      .generate('research-agent', 'What runs durable agents?', { requireToolApproval: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).failureType).toBe('RunOptionsNotAllowed');
    expect((err as Error).message).toContain(
      'requireToolApproval: this run approves every tool call, but tool "search" is webSearchTool, which ' +
        "the model's provider runs inside the model call, where no approval can stop it",
    );
    expect(requestsSince(start)).toEqual([]);
  });

  it('runs with approval of every call when the search is left out', async () => {
    const result = await w.client.generate('research-agent', 'x', {
      model: 'scripted',
      script: [{ text: 'Nothing to approve.' }],
      requireToolApproval: true,
      activeTools: ['lookup'],
    });
    expect(result.text).toBe('Nothing to approve.');
  });
});
