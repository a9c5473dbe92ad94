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
 * Not run (`it.todo`, with the reason): block 6 (declares `const result` twice in one scope, which no
 * JavaScript runs), 11-13 (the second `agent.stream` names no thread, so nothing resumes), 16-17 and
 * the last (they use block 15's `supervisorAgent` and `stream`).
 * The Tools page's files are in `tools/` with only their import lines changed (`../tools/weather-tool` to
 * `./weather-tool.js`); its Zod, Valibot and ArkType weather tools are the copies in `../fixtures/tools-page/`
 * (test/integration/standard-schema.test.ts runs them on the scripted model; here they go to the page's
 * model over HTTP). The page calls none of them, so the tests call the agents' `generate`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { Agent, type AnyTool } from '../../src/index.js';
import { bindClient, type AgentClient } from '../../src/client/index.js';
import { deletedIds, serve, standInForWttr, takeAgents } from '../fixtures/mastra-samples/glue.js';
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

it.todo(
  'blocks 16-17 and the last (suspend() and generate() under a supervisor): they call a `supervisorAgent` ' +
    'and a `stream` of block 15 that a module of its own cannot share without running block 15 again',
);
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

it.todo(
  "the Tools page's other files: place-order-tool.ts (`orders` undefined), hazards-tool, research-workflow " +
    '(files the page never shows), and the transform, hook and MCP samples (not copied yet)',
);
