/**
 * The TypeScript samples of Mastra's agent-approval page (`/work/shared/reference/agent-approval.zh.md`),
 * each copied verbatim into `test/fixtures/mastra-samples/approval/` with only its import lines changed
 * (`@mastra/core/agent`, `@mastra/core/tools` → this package's `src/index.js`), type-checked with the
 * rest of `test/`, and run by importing its file: top-level `await`, `process.stdout.write` and
 * `console.log` as on the page (the test reads what they print). The agents are called as the page
 * calls them, `agent.stream()`, `agent.approveToolCall()`, ..., through the process's bound client,
 * on the page's models (`openai/gpt-5-mini`): the worker's built-in `openai` provider talks real HTTP
 * to a local OpenAI-compatible server (`test/openai-server.ts`) that answers what each test queues.
 *
 * What differs from the pages, per sample:
 * - every file: a preamble marked "Glue, not on the page" above the sample. It (a) imports what a block
 *   uses but does not import (`createTool`, `z`, an earlier block's tool); (b) defines what the page
 *   leaves to the reader: `db`, `fetchWeather` (`../fixtures/mastra-samples/glue.ts`), and the `agent`
 *   that blocks 2, 8, 10 and 14 call but the page never defines (`weather-agent.ts`,
 *   `approval-agent.ts`, or one line in the preamble, on the page's model); (c) hands the sample's
 *   agents to the test's worker (`serve(() => [agent])`): Mastra runs an agent in the process that
 *   defines it, here a worker must have it, and the test starts one at the sample's first call;
 *   (d) exports what the page defines but leaves to the reader to call (`handleApproval`,
 *   `handleResume`) or what a later test needs (block 5's tool). The samples keep the page's
 *   formatting (no semicolons), so `.prettierignore` leaves `approval/[0-9]*.ts` alone.
 * - the wttr.in calls of blocks 7 and 9 are answered in this process (`standInForWttr`): tests do not
 *   reach the Internet. Every other `fetch` (the model's) goes through.
 * - block 2 approves and then declines the same call in one loop (the page's "Or decline" is an
 *   alternative); run as written, the decline finds no waiting call and the sample throws: the test
 *   asserts the approval's output and that error.
 * - block 5 is a tool definition only: the test runs it through an agent of its own. Its `execute`
 *   reads `location` from its input, never from `resumeData`, so a resumed call asks again: asserted.
 * - block 14 takes the `requiresApproval` branch (the test left a run waiting on an approval).
 * - blocks 3 and 4 pass a function as `requireToolApproval`: a durable run cannot keep one, so (as the
 *   page says of Mastra's durable agents) the run asks approval of every call and the client warns.
 *   Block 4's two blocks share one file; the page's `Agent` import is in the glue above them.
 * - block 15 imports `Memory` from this package (it takes Mastra's `options`); it approves, then
 *   declines the same call as block 2 does, and throws the same way.
 * - block 16 is a tool definition only (its `performOperation` is in the glue). Block 17 continues from a
 *   `supervisorAgent` and a `stream` the page never shows: its preamble defines a sub-agent with block
 *   16's tool, a supervisor that delegates to it, and `const stream = await supervisorAgent.stream(...)`.
 * - block 18 (the last) calls block 15's `supervisorAgent`: its preamble holds a copy of block 15's
 *   agents (verbatim), since block 15's module throws at its decline and cannot be imported for them.
 * - block 17 is not type-checked (`// @ts-nocheck` in its preamble): it runs as written, but TypeScript
 *   refuses `chunk.payload.suspendPayload.message` (this package types the payload as JSON). Block 18's
 *   `output.suspendPayload.toolName` type-checks: `finishReason === 'suspended'` narrows the result.
 * Not run (`it.todo`, with the reason): block 6 (declares `const result` twice in one scope, which no
 * JavaScript runs), 11-13 (the second `agent.stream` names no thread, so nothing resumes).
 * The Tools page's files are in `tools/` with only their import lines changed (`../tools/weather-tool` to
 * `./weather-tool.js`); its Zod, Valibot and ArkType weather tools are the copies in `../fixtures/tools-page/`
 * (test/integration/standard-schema.test.ts runs them on the scripted model; here they go to the page's
 * model over HTTP). The page calls none of them, so the tests call the agents' `generate` or `stream`,
 * tools through an agent of the test's own (on `openai/gpt-5-mini`). Per file:
 * - place-order-tool.ts: the glue imports `createTool` and `z` and gives the page's `orders`, which
 *   answers a string `total`: the mismatch `outputValidation: 'warn'` lets through.
 * - support-agent.ts and the guarded agent have no tools: the runs bring one as a client tool
 *   (`clientTools`, a tool source the page says hooks cover), and the test gives its result with the
 *   client's `decide`. The guarded agent's block is not a file on the page: its glue imports `Agent` and
 *   exports the agent.
 * - the per-run hooks block (per-run-hooks.ts): a durable run cannot keep functions, so the client refuses
 *   them with an InvalidRunOptionsError (asserted), and TypeScript refuses them too (`hooks?: never`),
 *   so the file is not type-checked.
 * - the toModelOutput block (model-output-weather-tool.ts) is a fragment of weather-tool.ts with no `id`
 *   and no schemas: `createTool` refuses it (asserted), and so does TypeScript (not type-checked).
 *   test/integration/mastra-tools-page.test.ts runs it completed, on the scripted model.
 * - customer-tool.ts and the lifecycle-hook weather tool leave an argument unused: their glue turns off
 *   the lint's unused-variable rule (which `eslint.config.js` turns off for `approval/` only); the latter's
 *   glue gives `fetchWeather`.
 * The page has no MCP sample (it links to the MCP overview), so none is here.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, InvalidRunOptionsError, type AnyTool } from '../../src/index.js';
import { bindClient, type AgentClient } from '../../src/client/index.js';
import {
  deletedIds,
  performed,
  placedOrders,
  serve,
  standInForWttr,
  takeAgents,
} from '../fixtures/mastra-samples/glue.js';
import { agent as approvalAgent } from '../fixtures/mastra-samples/approval/approval-agent.js';
import { startWorker, waitFor, type TestWorker } from '../helpers.js';
import { startFakeOpenAI, type FakeOpenAI } from '../openai-server.js';

let server: FakeOpenAI;
let restoreFetch: () => void;
let worker: Promise<TestWorker> | undefined;
let out = '';
let logs: unknown[][] = [];

beforeAll(async () => {
  server = await startFakeOpenAI();
  server.useInThisProcess();
  restoreFetch = standInForWttr();
});
afterAll(async () => {
  restoreFetch?.();
  await server?.close();
});

beforeEach(() => {
  out = '';
  logs = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((text: string | Uint8Array) => {
    out += String(text);
    return true;
  });
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
  // The bound client: the worker for the agents the sample handed over starts at the sample's first call.
  worker = undefined;
  const started = () => (worker ??= startWorker(takeAgents(), { enableScriptedModel: false }));
  const lazy = new Proxy(
    {},
    {
      // Not a thenable: `await` of the bound client must give the proxy itself.
      get: (_target, method) =>
        method === 'then'
          ? undefined
          : async (...args: unknown[]) => {
              const { client } = await started();
              return Reflect.apply(Reflect.get(client, method) as (...a: unknown[]) => unknown, client, args);
            },
    },
  );
  bindClient(lazy as AgentClient);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await (await worker)?.stop();
  const { unexpected, pending } = server.reset();
  expect(unexpected.map((r) => r.body.messages.at(-1))).toEqual([]);
  expect(pending).toEqual([]);
});

const lastMessage = (i: number) => server.requests[i]!.body.messages.at(-1);

it('block 1 (快速入门): the stream pauses at tool-call-approval; approveToolCall streams the rest', async () => {
  server.answer(
    { toolCalls: [{ name: 'deleteTool', args: { id: 'abc-123' } }] },
    { text: 'Record abc-123 is deleted.' },
  );

  await import('../fixtures/mastra-samples/approval/01-quickstart.js');

  expect(out).toBe('Record abc-123 is deleted.');
  expect(deletedIds).toContain('abc-123');
  const [first, second] = server.requests;
  expect(first!.body).toMatchObject({ model: 'gpt-5-mini', stream: true });
  expect(first!.body.tools?.map((t) => t.function.name)).toEqual(['deleteTool']);
  expect(second!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '{"deleted":true}' });
});

it('block 2 (执行前审批): requireToolApproval on the run; the chunk names the tool and its args', async () => {
  server.answer(
    { toolCalls: [{ name: 'weatherTool', args: { location: 'London' } }] },
    { text: 'It is 18°C and sunny in London.' },
  );

  // The page's "Or decline" runs too, after the approval finished the run: there is no call to decline.
  await expect(import('../fixtures/mastra-samples/approval/02-require-tool-approval.js')).rejects.toThrow(
    /waits on no tool call|not waiting|no pending|finished/i,
  );

  expect(logs).toEqual([
    ['Tool:', 'weatherTool'],
    ['Args:', { location: 'London' }],
  ]);
  expect(out).toBe('It is 18°C and sunny in London.');
});

it('block 3 (使用函数进行条件审批): a function for requireToolApproval; the run asks approval of every call', async () => {
  const warnings: unknown[] = [];
  vi.spyOn(console, 'warn').mockImplementation((message: unknown) => void warnings.push(message));
  server.answer(
    { toolCalls: [{ name: 'list_records', args: { before: '2020-01-01' } }] },
    { toolCalls: [{ name: 'delete_records', args: { ids: ['r-1'] } }] },
    { text: 'Deleted r-1.' },
  );

  const { agent, stream } = await import('../fixtures/mastra-samples/approval/03-conditional-approval.js');

  // A durable run cannot keep the function (Mastra's durable agents say the same): it fails safe, and
  // every call waits, the one the function would have let through too. The client says so.
  expect(warnings).toEqual([expect.stringMatching(/requireToolApproval: a function cannot be stored/)]);
  const asked: string[] = [];
  let current = stream;
  for (;;) {
    let waiting: { toolName: string; toolCallId: string } | undefined;
    for await (const chunk of current.fullStream) if (chunk.type === 'tool-call-approval') waiting = chunk.payload;
    if (!waiting) break;
    asked.push(waiting.toolName);
    current = await agent.approveToolCall({ runId: stream.runId, toolCallId: waiting.toolCallId });
  }
  expect(asked).toEqual(['list_records', 'delete_records']);
  expect(deletedIds).toContain('r-1');
});

it('block 4 (将审批绑定到确切的 Tool 参数): the approved fingerprint lets the reviewed call run once', async () => {
  server.answer({ toolCalls: [{ name: 'issueRefundTool', args: { orderId: 'ord-1042' } }] }, { text: 'Refunded.' });
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);

  const { refunds, dialogs, approvedFingerprints } =
    await import('../fixtures/mastra-samples/approval/04-approval-bound.js');

  // The page's tools are keyed `issueRefundTool`, the name the model calls and the hook sees; its
  // `sensitiveTools` names their ids, so the hook lets the call through (as it would on Mastra).
  expect(dialogs).toEqual([
    {
      toolName: 'issueRefundTool',
      args: { orderId: 'ord-1042' },
      fingerprint: 'fingerprint-{"toolName":"issueRefundTool","args":{"orderId":"ord-1042"}}',
    },
  ]);
  expect(refunds).toEqual(['ord-1042']);
  expect(lastMessage(1)).toMatchObject({ role: 'tool', content: '{"refunded":"ord-1042"}' });
  expect([...approvedFingerprints]).toHaveLength(1);
});

it('block 5 (suspend()): the tool suspends with its question; resumed, it asks again (it reads only its input)', async () => {
  const { weatherTool } = await import('../fixtures/mastra-samples/approval/05-suspend-tool.js');
  const agent = new Agent({
    id: 'get-weather-agent',
    name: 'Weather',
    model: 'openai/gpt-5-mini',
    tools: { weatherTool },
  });
  serve(() => [agent]);
  server.answer({ toolCalls: [{ name: 'weatherTool', args: {} }] });

  const stream = await agent.stream("What's the weather?");
  const suspended = [];
  for await (const chunk of stream.fullStream) {
    if (chunk.type === 'tool-call-suspended') suspended.push(chunk.payload.suspendPayload);
  }
  expect(suspended).toEqual([{ question: 'Which city would you like the weather for?' }]);

  // The block's `execute` takes `location` from its input only, never from `resumeData`: resumed with a
  // location, the call runs again on the same input and suspends with the same question.
  const resumed = await agent.resumeStream({ location: 'Paris' }, { runId: stream.runId });
  const chunks = [];
  for await (const chunk of resumed.fullStream) chunks.push(chunk);
  expect(chunks.filter((c) => c.type === 'tool-call-suspended').map((c) => c.payload.suspendPayload)).toEqual([
    { question: 'Which city would you like the weather for?' },
  ]);
  expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'suspended' });
});

it.todo(
  'block 6 (在 generate() 中进行 Tool 审批): declares `const result` twice in one block, a SyntaxError ' +
    'in any JavaScript: it cannot run as written',
);

it('blocks 7-8 (requireApproval): the approval chunk, then handleApproval streams the answer', async () => {
  server.answer({ toolCalls: [{ name: 'testTool', args: { location: 'London' } }] }, { text: 'London: ☀️ +18°C' });

  const { handleApproval } = await import('../fixtures/mastra-samples/approval/08-approve-test-tool.js');
  expect(logs).toEqual([['Approval required for:', 'testTool']]);
  await handleApproval();

  expect(out).toBe('London: ☀️ +18°C\n');
  expect(lastMessage(1)).toMatchObject({ role: 'tool', content: '{"weather":"London: ☀️ +18°C"}' });
});

it('blocks 9-10 (suspend() for approval): the suspension payload, then handleResume with { approved: true }', async () => {
  server.answer({ toolCalls: [{ name: 'testToolB', args: { location: 'London' } }] }, { text: 'London: ☀️ +18°C' });

  const { handleResume } = await import('../fixtures/mastra-samples/approval/10-resume-test-tool-b.js');
  expect(logs).toEqual([[{ reason: 'Approval required.' }]]);
  await handleResume();

  expect(out).toBe('London: ☀️ +18°C\n');
  expect(lastMessage(1)).toMatchObject({ role: 'tool', content: '{"weather":"London: ☀️ +18°C"}' });
});

it.todo(
  'blocks 11-13 (自动恢复 Tool): the second `agent.stream` names no thread, so it starts a run of its own; ' +
    'auto-resume needs the same thread and resource (docs/guides/approvals.md, "Auto-resume")',
);

it('block 14 (重启后恢复): listSuspendedRuns finds the waiting run on the thread; approveToolCall streams the rest', async () => {
  server.answer(
    { toolCalls: [{ name: 'deleteRecordTool', args: { id: 'r-14' } }] },
    { text: 'Record r-14 is deleted.' },
  );
  serve(() => [approvalAgent]);
  const waiting = await approvalAgent.stream('Delete record r-14', { threadId: 'thread-123', resourceId: 'user-456' });
  for await (const _chunk of waiting.fullStream);
  await waitFor('the run to be listed', async () => {
    const { runs } = await approvalAgent.listSuspendedRuns({ threadId: 'thread-123', resourceId: 'user-456' });
    return runs.some((r) => r.runId === waiting.runId) || undefined;
  });

  await import('../fixtures/mastra-samples/approval/14-list-suspended-runs.js');

  expect(out).toBe('Record r-14 is deleted.');
  expect(deletedIds).toContain('r-14');
});

it('block 15 (在 Supervisor Agent 中批准和拒绝): the sub-agent call waits at the supervisor', async () => {
  server.answer(
    { toolCalls: [{ name: 'agent-dataAgent', args: { prompt: 'Find user 12345' } }] },
    { toolCalls: [{ name: 'findUserTool', args: { userId: '12345' } }] },
    { text: 'John, john@example.com' },
    { text: 'User 12345 is John (john@example.com).' },
  );

  // The page approves and then, "to decline instead", declines the same call: the approval finished
  // it, so the decline finds nothing waiting and the sample throws (as block 2's does).
  await expect(import('../fixtures/mastra-samples/approval/15-supervisor-approval.js')).rejects.toThrow(
    /waits on no tool call|not waiting|no pending|finished/i,
  );

  expect(logs).toEqual([
    ['Tool requires approval:', 'findUserTool'],
    ['Arguments:', { userId: '12345' }],
  ]);
  expect(out).toBe('User 12345 is John (john@example.com).');
  expect(server.requests[1]!.body.model).toBe('gpt-5-mini');
  expect(server.requests[0]!.body.model).toBe('gpt-5.6-sol');
});

it('blocks 16-17 (在 Supervisor Agent 中使用 suspend()): the sub-agent suspends at the supervisor; resumeStream confirms', async () => {
  server.answer(
    { toolCalls: [{ name: 'agent-opsAgent', args: { prompt: 'Drop the staging database' } }] },
    { toolCalls: [{ name: 'conditionalTool', args: { operation: 'drop staging' } }] },
    { text: 'Dropped staging.' },
    { text: 'The staging database is dropped.' },
  );

  await import('../fixtures/mastra-samples/approval/17-supervisor-suspend.js');

  expect(logs).toEqual([['Tool suspended:', 'Confirm: drop staging?']]);
  expect(out).toBe('The staging database is dropped.');
  expect(performed).toEqual(['drop staging']);
  expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-5.6-sol', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5.6-sol']);
  expect(lastMessage(2)).toMatchObject({ role: 'tool', content: '{"done":"drop staging"}' });
});

it("block 18 (在 Supervisor 中使用 generate() 进行审批): generate pauses at the sub-agent's call; approveToolCallGenerate finishes", async () => {
  server.answer(
    { toolCalls: [{ name: 'agent-dataAgent', args: { prompt: 'Find user 12345' } }] },
    { toolCalls: [{ name: 'findUserTool', args: { userId: '12345' } }] },
    { text: 'John, john@example.com' },
    { text: 'User 12345 is John (john@example.com).' },
  );

  await import('../fixtures/mastra-samples/approval/18-supervisor-generate.js');

  expect(logs).toEqual([
    ['Tool requires approval:', 'findUserTool'],
    ['Final result:', 'User 12345 is John (john@example.com).'],
  ]);
  expect(lastMessage(2)).toMatchObject({
    role: 'tool',
    content: '{"user":{"id":"12345","name":"John","email":"john@example.com"}}',
  });
});

// The Tools page (/work/shared/reference/tools.zh.txt): its files define tools and agents and leave calling
// them to the reader; the tests call them as a user would, through the agents' own methods.

it('Tools page, weather-tool.ts and weather-agent.ts: the agent calls the tool, which reads wttr.in', async () => {
  server.answer({ toolCalls: [{ name: 'weatherTool', args: { location: 'London' } }] }, { text: 'Sunny, 18°C.' });
  const { weatherAgent } = await import('../fixtures/mastra-samples/tools/weather-agent.js');

  const result = await weatherAgent.generate("What's the weather in London?");

  expect(result.text).toBe('Sunny, 18°C.');
  expect(server.requests[0]!.body.model).toBe('gpt-5.6-sol');
  // The AI SDK sends a reasoning model's instructions as the developer message.
  expect(server.requests[0]!.body.messages[0]).toMatchObject({
    role: 'developer',
    content: expect.stringContaining('Use the weatherTool to fetch current weather data.'),
  });
  expect(lastMessage(1)).toMatchObject({
    role: 'tool',
    content: '{"location":"London","temperatureCelsius":18,"conditions":"Sunny"}',
  });
});

const toolFiles: Record<string, () => Promise<{ weatherTool: AnyTool }>> = {
  zod: () => import('../fixtures/tools-page/weather-tool-zod.js'),
  valibot: () => import('../fixtures/tools-page/weather-tool-valibot.js'),
  arktype: () => import('../fixtures/tools-page/weather-tool-arktype.js'),
};

it.each(Object.keys(toolFiles))(
  'Tools page, the %s weather-tool.ts: the model gets its JSON schema, the run its checked output',
  async (library) => {
    const { weatherTool } = await toolFiles[library]!();
    const agent = new Agent({
      id: `${library}-weather`,
      name: 'Weather',
      model: 'openai/gpt-5-mini',
      tools: { weatherTool },
    });
    serve(() => [agent]);
    server.answer({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Sunny in Paris.' });

    await agent.generate("What's the weather in Paris?");

    const offered = server.requests[0]!.body.tools?.[0]?.function;
    expect(offered).toMatchObject({
      name: 'weatherTool',
      description: 'Fetches weather for a location',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    });
    expect(lastMessage(1)).toMatchObject({
      role: 'tool',
      content: '{"location":"Paris","temperatureCelsius":21,"conditions":"sunny"}',
    });
  },
);

it("Tools page, supervisor.ts: the writer is the supervisor's tool agent-writer", async () => {
  server.answer(
    { toolCalls: [{ name: 'agent-writer', args: { prompt: 'Write one line about rain.' } }] },
    { text: 'Rain taps the window.' },
    { text: 'Here it is: Rain taps the window.' },
  );
  const { supervisor } = await import('../fixtures/mastra-samples/tools/supervisor.js');

  const result = await supervisor.generate('Write one line about rain.');

  expect(server.requests[0]!.body.tools?.map((t) => t.function.name)).toEqual(['agent-writer']);
  expect(server.requests[0]!.body.tools?.[0]?.function.description).toContain('Drafts and edits written content');
  expect(server.requests[1]!.body.messages[0]).toMatchObject({ content: 'You are a skilled writer.' });
  expect(result.text).toBe('Here it is: Rain taps the window.');
});

it('Tools page, customer-tool.ts (为 UI 和对话记录转换工具 payload): the stream and the transcript get the masked SSN', async () => {
  const { customerTool } = await import('../fixtures/mastra-samples/tools/customer-tool.js');
  const agent = new Agent({
    id: 'customer-agent',
    name: 'Customers',
    model: 'openai/gpt-5-mini',
    tools: { customerTool },
  });
  serve(() => [agent]);
  const call = { toolCalls: [{ name: 'customerTool', args: { customerId: 'c-1' } }] };
  server.answer(call, { text: 'Found customer c-1.' }, call, { text: 'Found customer c-1.' });

  // The browser-facing stream: the display output.
  const stream = await agent.stream('Look up customer c-1');
  const chunks = [];
  for await (const chunk of stream.fullStream) chunks.push(chunk);
  expect(chunks.filter((c) => c.type === 'tool-result').map((c) => c.output)).toEqual([{ ssn: '***-**-****' }]);
  expect(JSON.stringify(chunks)).not.toContain('123-45-6789');

  // The application's code: the raw output; the user-visible transcript: the transcript output.
  const result = await agent.generate('Look up customer c-1');
  expect(result.toolResults).toMatchObject([{ isError: false, output: { ssn: '123-45-6789' } }]);
  expect(JSON.stringify(result.messages)).not.toContain('123-45-6789');
  expect(JSON.stringify(result.messages)).toContain('***-**-****');
});

it('Tools page, support-agent.ts (在工具调用前后运行逻辑): beforeToolCall and afterToolCall log a call', async () => {
  const { supportAgent } = await import('../fixtures/mastra-samples/tools/support-agent.js');
  serve(() => [supportAgent]);
  server.answer({ toolCalls: [{ name: 'lookupOrder', args: { orderId: 'o-7' } }] }, { text: 'Order o-7 has shipped.' });

  // The page's agent has no tools of its own; hooks apply to every source, so the run brings one the
  // caller runs (a client tool), and the caller gives its result.
  const lookupOrder = { description: 'Looks up an order', inputSchema: z.object({ orderId: z.string() }) };
  const paused = await supportAgent.generate('Look up the order status of o-7', { clientTools: { lookupOrder } });
  expect(paused.finishReason).toBe('tool-calls');
  expect(logs).toEqual([['Running lookupOrder', { orderId: 'o-7' }]]);
  const { client } = (await worker)!;
  const done = await client.decide(
    { runId: paused.runId, kind: 'result', result: { status: 'shipped' } },
    { then: 'result' },
  );

  expect(done.text).toBe('Order o-7 has shipped.');
  expect(logs).toEqual([
    ['Running lookupOrder', { orderId: 'o-7' }],
    ['Finished lookupOrder', { output: { status: 'shipped' }, error: undefined }],
  ]);
});

it("Tools page, the guarded agent (beforeToolCall): rm -rf is skipped, and the model gets the hook's output", async () => {
  const { guardedAgent } = await import('../fixtures/mastra-samples/tools/guarded-agent.js');
  server.answer(
    { toolCalls: [{ name: 'execute_command', args: { command: 'rm -rf /' } }] },
    { text: 'That command is blocked.' },
  );

  // As above, the page's agent has no tools: the run brings `execute_command` as a client tool. The hook
  // skips the call, so the run does not pause for its result.
  const execute_command = { description: 'Runs a shell command', inputSchema: z.object({ command: z.string() }) };
  const result = await guardedAgent.generate('Free some disk space', { clientTools: { execute_command } });

  expect(result.finishReason).toBe('stop');
  expect(result.text).toBe('That command is blocked.');
  expect(lastMessage(1)).toMatchObject({
    role: 'tool',
    content: expect.stringContaining('Command blocked by policy.'),
  });
});

it('Tools page, 单次执行的 hooks: the client refuses per-run hooks, which a durable run cannot keep', async () => {
  const { supportAgent } = await import('../fixtures/mastra-samples/tools/support-agent.js');
  serve(() => [supportAgent]);

  const refused = import('../fixtures/mastra-samples/tools/per-run-hooks.js');
  await expect(refused).rejects.toThrow(InvalidRunOptionsError);
  await expect(refused).rejects.toThrow(
    /^Invalid run options: hooks: functions cannot be stored with a durable run, .* Put them on the agent/,
  );
  expect(server.requests).toEqual([]);
  expect(logs).toEqual([]);
});

it('Tools page, 示例：使用 onInputAvailable 和 onOutput: both hooks log while the agent streams', async () => {
  const { weatherTool } = await import('../fixtures/mastra-samples/tools/lifecycle-weather-tool.js');
  const agent = new Agent({
    id: 'lifecycle-weather',
    name: 'Weather',
    model: 'openai/gpt-5-mini',
    tools: { weatherTool },
  });
  serve(() => [agent]);
  server.answer({ toolCalls: [{ name: 'weatherTool', args: { location: 'London' } }] }, { text: 'Sunny, 18°C.' });

  const stream = await agent.stream("What's the weather in London?");
  for await (const c of stream.textStream) process.stdout.write(c);

  expect(out).toBe('Sunny, 18°C.');
  expect(logs).toEqual([['Weather requested for: London'], ['weatherTool result: 18°C, Sunny']]);
});

it('Tools page, 为模型塑造输出 (toModelOutput): the fragment has no id, and createTool refuses it', async () => {
  await expect(import('../fixtures/mastra-samples/tools/model-output-weather-tool.js')).rejects.toThrow(
    'createTool: `id` is required',
  );
});

it("Tools page, place-order-tool.ts (处理输出校验失败): with outputValidation 'warn' the placed order's result goes through", async () => {
  const { placeOrderTool } = await import('../fixtures/mastra-samples/tools/place-order-tool.js');
  const agent = new Agent({ id: 'shop-agent', name: 'Shop', model: 'openai/gpt-5-mini', tools: { placeOrderTool } });
  serve(() => [agent]);
  server.answer(
    { toolCalls: [{ name: 'placeOrderTool', args: { sku: 'sku-1', quantity: 2 } }] },
    { text: 'Order o-1 is placed.' },
  );

  const result = await agent.generate('Order two of sku-1');

  // The total is a string, not the schema's number: the mismatch is logged, and the real result is kept,
  // so the model is not led to order again.
  expect(placedOrders).toEqual([{ sku: 'sku-1', quantity: 2 }]);
  expect(result.toolResults).toMatchObject([{ isError: false, output: { orderId: 'o-1', total: '12.50' } }]);
  expect(lastMessage(1)).toMatchObject({ role: 'tool', content: '{"orderId":"o-1","total":"12.50"}' });
  expect(result.text).toBe('Order o-1 is placed.');
});

it.todo(
  "the Tools page's other samples: the multiple-tools weather-agent.ts and research-agent.ts import a hazards-tool " +
    'and a research-workflow the page never shows; the shared weather-tool.ts is a fragment ("Rest of the tool ' +
    'definition..."); show-product-tool, toolChoice/activeTools, the toolName keys, the orchestrator, web search and ' +
    'fetch, ask_user, submit_plan and the task tools are not copied yet (test/integration/mastra-tools-page.test.ts ' +
    'runs them adapted, on the scripted model)',
);
