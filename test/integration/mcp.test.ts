/**
 * Tool sources on the dev server: MCP tools (a real MCP server, built with the official SDK, over stdio
 * and Streamable HTTP) called as activities with the agent's approval, hooks and idempotency key, a
 * server that went down named in the tool error; and a run's own `clientTools` / `toolsets`, which pause
 * for the caller's result. `prepareStep` is refused.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createTool,
  defineAgent,
  InvalidRunOptionsError,
  RunFailedError,
  type Agent,
  type RunOptions,
  type ToolCallHookContext,
} from '../../src/index.js';
import { AgentClient } from '../../src/client/index.js';
import { DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { startWorker, temporalAddress, type TestWorker } from '../helpers.js';
import { startHttpNotesServer, type HttpNotesServer } from '../fixtures/mcp/notes-server.js';
import { stdioNotesServer } from '../fixtures/mcp/servers.js';

const seen: Array<Pick<ToolCallHookContext, 'toolName' | 'args'> & { when: string; output?: unknown }> = [];

const stdioAgent = defineAgent({
  id: 'mcp-stdio',
  name: 'Notes over stdio',
  model: 'scripted',
  mcpServers: { notes: { ...stdioNotesServer, requireApproval: ['delete_note'] } },
  hooks: {
    beforeToolCall: ({ toolName, args }) => void seen.push({ when: 'before', toolName, args }),
    afterToolCall: ({ toolName, args, output }) => void seen.push({ when: 'after', toolName, args, output }),
  },
});

const colors = createTool({
  id: 'colors',
  description: 'Lists colours',
  inputSchema: z.object({}),
  execute: async () => ['red', 'blue'],
});
const plainAgent = defineAgent({ id: 'plain', name: 'Plain', model: 'scripted', tools: { colors } });

const callThen = (toolName: string, args: unknown, text = 'done') => [
  { toolCalls: [{ toolName, args: args as never }] },
  { text },
];

describe('MCP tools', () => {
  let w: TestWorker;
  let http: HttpNotesServer;
  let downHttp: HttpNotesServer;
  let silentHttp: HttpNotesServer;
  let flakyHttp: HttpNotesServer;

  beforeAll(async () => {
    http = await startHttpNotesServer();
    downHttp = await startHttpNotesServer();
    silentHttp = await startHttpNotesServer({ silentOn: 'tools/list' });
    flakyHttp = await startHttpNotesServer();
    const agents: Agent[] = [
      stdioAgent,
      plainAgent,
      defineAgent({
        id: 'mcp-http',
        name: 'Notes over HTTP',
        model: 'scripted',
        mcpServers: { notes: { url: http.url } },
      }),
      defineAgent({
        id: 'mcp-going-down',
        name: 'Notes that go down',
        model: 'scripted',
        mcpServers: { notes: { url: downHttp.url, requireApproval: true } },
      }),
      defineAgent({
        id: 'mcp-flaky',
        name: 'Notes that come and go',
        model: 'scripted',
        mcpServers: { notes: { url: flakyHttp.url } },
        modelRetry: { window: '4s', maximumInterval: '1s' },
      }),
      defineAgent({
        id: 'mcp-silent',
        name: 'Notes that never list their tools',
        model: 'scripted',
        mcpServers: { notes: { url: silentHttp.url } },
      }),
    ];
    w = await startWorker(agents);
  });
  afterAll(async () => {
    await w?.stop();
    await http?.close();
    await downHttp?.close();
    await silentHttp?.close();
    await flakyHttp?.close();
  });

  it('calls an MCP tool over stdio as a tool of the agent, inside its hooks', async () => {
    seen.length = 0;
    const result = await w.client.generate('mcp-stdio', 'add', { script: callThen('notes_add', { a: 2, b: 3 }) });
    expect(result.text).toBe('done');
    expect(result.toolCalls).toEqual([expect.objectContaining({ toolName: 'notes_add', args: { a: 2, b: 3 } })]);
    expect(result.toolResults).toEqual([expect.objectContaining({ toolName: 'notes_add', output: '5' })]);
    expect(seen).toEqual([
      { when: 'before', toolName: 'notes_add', args: { a: 2, b: 3 } },
      { when: 'after', toolName: 'notes_add', args: { a: 2, b: 3 }, output: '5' },
    ]);
  });

  it('pauses a call of an MCP tool that its server entry says needs approval, and runs it once approved', async () => {
    const paused = await w.client.generate('mcp-stdio', 'delete', {
      script: callThen('notes_delete_note', { id: 'n1' }),
    });
    expect(paused.finishReason).toBe('suspended');
    expect(paused.pendingToolCalls).toEqual([
      expect.objectContaining({ toolName: 'notes_delete_note', args: { id: 'n1' }, requiresApproval: true }),
    ]);
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, by: 'ops' });
    expect(done.text).toBe('done');
    expect(done.toolResults[0]).toMatchObject({ toolName: 'notes_delete_note', output: 'deleted n1' });
  });

  it("gives the model the server's error, and an answer over the run's bound as a tool error", async () => {
    const result = await w.client.generate('mcp-stdio', 'go', {
      script: [
        {
          toolCalls: [
            { toolName: 'notes_broken', args: {} },
            { toolName: 'notes_dump', args: { kib: 300 } },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(result.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'notes_broken',
        isError: true,
        error: 'MCP tool "notes_broken" answered with an error: the disk is on fire',
      }),
      expect.objectContaining({
        toolName: 'notes_dump',
        isError: true,
        error: expect.stringMatching(
          /^Tool "notes_dump" returned output of 301 KiB of JSON; at most 256 KiB fits in a run/,
        ),
      }),
    ]);
  });

  it("calls an MCP tool over Streamable HTTP with the call's idempotency key", async () => {
    const result = await w.client.generate('mcp-http', 'read', { script: callThen('notes_get_note', { id: 'n1' }) });
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'notes_get_note',
      output: { id: 'n1', text: 'buy milk' },
    });
    expect(http.idempotencyKeys).toEqual([`${result.runId}:${result.toolCalls[0]!.toolCallId}`]);
  });

  it('holds an approved call whose MCP server is down until it is back, then runs it on retry', async () => {
    const paused = await w.client.generate('mcp-going-down', 'add', { script: callThen('notes_add', { a: 1, b: 1 }) });
    expect(paused.finishReason).toBe('suspended');
    const port = Number(new URL(downHttp.url).port);
    await downHttp.close();
    const waiting = await w.client.approveToolCallGenerate({ runId: paused.runId });
    // The run does not tell the model the call failed: it waits, saying which server is down.
    expect(waiting.finishReason).toBe('suspended');
    const [call] = waiting.pendingToolCalls;
    expect(call).toMatchObject({ toolName: 'notes_add', kind: 'uncertain' });
    expect(call!.uncertainty).toMatch(
      /^MCP server "notes" of agent "mcp-going-down" \(http:\/\/127\.0\.0\.1:\d+\) is unavailable: fetch failed$/,
    );

    downHttp = await startHttpNotesServer({ port });
    const done = await w.client.decide(
      { kind: 'resolve', runId: paused.runId, toolCallId: call!.toolCallId, action: 'retry', principal: 'ops' },
      { then: 'result' },
    );
    expect(done.finishReason).toBe('stop');
    expect(done.toolResults[0]).toMatchObject({ toolName: 'notes_add', isError: false });
    expect(downHttp.idempotencyKeys).toEqual([`${paused.runId}:${call!.toolCallId}`]);
    await downHttp.close();
  });

  it("retries a call while its MCP server turns calls away, within the agent's window", async () => {
    flakyHttp.refuseCalls = 2;
    const result = await w.client.generate('mcp-flaky', 'add', { script: callThen('notes_add', { a: 2, b: 2 }) });
    expect(result.finishReason).toBe('stop');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'notes_add', isError: false });
    expect(flakyHttp.refuseCalls).toBe(0);
    expect(flakyHttp.idempotencyKeys).toHaveLength(1);
  });

  it('gives a call the server broke off (it may have run) 3 attempts, then tells the model', async () => {
    flakyHttp.dropCalls = 1_000;
    const result = await w.client.generate('mcp-flaky', 'add', { script: callThen('notes_add', { a: 5, b: 5 }) });
    expect(flakyHttp.dropCalls).toBe(1_000 - 3);
    flakyHttp.dropCalls = 0;
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'notes_add',
      isError: true,
      error: expect.stringMatching(/unavailable: .* \(during the call, which may have reached it\)/),
    });
  });

  it('waits once the window is over, and completes when an operator retries with the server back', async () => {
    flakyHttp.refuseCalls = 1_000;
    const { runId } = await w.client.start('mcp-flaky', 'add', { script: callThen('notes_add', { a: 3, b: 3 }) });
    const waiting = await w.client.next(runId);
    expect(waiting.finishReason).toBe('suspended');
    const [call] = waiting.pendingToolCalls;
    expect(call).toMatchObject({ toolName: 'notes_add', kind: 'uncertain' });
    expect(call!.uncertainty).toMatch(
      /^MCP server "notes" of agent "mcp-flaky" \(.*\) is unavailable: .*\(HTTP 503\): down for maintenance, for the whole retry window$/,
    );

    flakyHttp.refuseCalls = 0;
    const done = await w.client.decide(
      { kind: 'resolve', runId, toolCallId: call!.toolCallId, action: 'retry', principal: 'ops' },
      { then: 'result' },
    );
    expect(done.toolResults[0]).toMatchObject({ toolName: 'notes_add', isError: false });
  });

  it("fails a run whose agent's MCP server cannot be reached when it starts, naming the server", async () => {
    const err: unknown = await w.client
      .generate('mcp-going-down', 'add', { script: callThen('notes_add', { a: 1, b: 1 }) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).failureType).toBe('McpServerUnavailableError');
    expect((err as Error).message).toMatch(
      /MCP server "notes" of agent "mcp-going-down" \(http:\/\/127\.0\.0\.1:\d+\)/,
    );
  });

  it('fails a run whose MCP server never answers tools/list with McpServerUnavailableError, not a timeout', async () => {
    const err: unknown = await w.client
      .generate('mcp-silent', 'add', { script: callThen('notes_add', { a: 1, b: 1 }) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).failureType).toBe('McpServerUnavailableError');
    expect((err as Error).message).toMatch(
      /MCP server "notes" of agent "mcp-silent" \(http:\/\/127\.0\.0\.1:\d+\) is unavailable: it did not answer tools\/list within 15 s/,
    );
    // The worker goes on serving: a run of another agent completes.
    expect((await w.client.generate('mcp-http', 'add', { script: callThen('notes_add', { a: 1, b: 2 }) })).text).toBe(
      'done',
    );
  });
});

describe("a run's own tools: clientTools and toolsets", () => {
  let w: TestWorker;
  beforeAll(async () => {
    w = await startWorker([plainAgent]);
  });
  afterAll(async () => {
    await w?.stop();
  });

  it("offers clientTools next to the agent's tools and pauses for the caller's result", async () => {
    const paused = await w.client.generate('plain', 'pick', {
      clientTools: {
        pick_color: {
          description: 'Asks the user to pick a colour',
          inputSchema: z.object({ options: z.array(z.string()) }),
        },
      },
      script: callThen('pick_color', { options: ['red', 'blue'] }, 'picked'),
    });
    expect(paused.finishReason).toBe('tool-calls');
    expect(paused.pendingToolCalls).toEqual([
      expect.objectContaining({ toolName: 'pick_color', kind: 'client', args: { options: ['red', 'blue'] } }),
    ]);
    const done = await w.client.submitToolResultGenerate({ runId: paused.runId, result: 'blue' });
    expect(done.text).toBe('picked');
    expect(done.toolResults[0]).toMatchObject({ toolName: 'pick_color', output: 'blue' });
  });

  it("checks a call of a client tool against its JSON schema, like any tool's", async () => {
    const result = await w.client.generate('plain', 'pick', {
      clientTools: {
        pick_color: { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
      },
      script: callThen('pick_color', { n: 'three' }),
    });
    expect(result.toolResults[0]).toMatchObject({ toolName: 'pick_color', isError: true });
  });

  it('offers the tools of toolsets by their own names; one with an execute, which cannot be stored, is refused', async () => {
    const warnings: string[] = [];
    const client = await AgentClient.connect({
      address: temporalAddress(),
      namespace: 'default',
      taskQueue: w.taskQueue,
      warn: (m) => warnings.push(m),
    });
    try {
      const withExecute = createTool({
        id: 'confirm',
        description: 'Asks the user to confirm',
        inputSchema: z.object({ question: z.string() }),
        requireApproval: true,
        execute: async () => true,
      });
      const script = callThen('confirm', { question: 'ok?' }, 'confirmed');
      await expect(
        client.generate('plain', 'confirm', { toolsets: { ui: { confirm: withExecute } }, script }),
      ).rejects.toThrow(
        /^Invalid run options: toolsets\.ui\.confirm: execute is a function, which cannot be stored with a durable run\. Give the tool to the agent/,
      );
      // Without its execute it is a client tool: offered by its own name, its requireApproval kept.
      const paused = await client.generate('plain', 'confirm', {
        toolsets: { ui: { confirm: { ...withExecute, execute: undefined } } },
        script,
      });
      expect(warnings).toEqual([]);
      expect(paused.pendingToolCalls[0]).toMatchObject({ toolName: 'confirm', requiresApproval: true });
      const approved = await client.approveToolCallGenerate({ runId: paused.runId });
      expect(approved.pendingToolCalls[0]).toMatchObject({ toolName: 'confirm', kind: 'client' });
      const done = await client.submitToolResultGenerate({ runId: paused.runId, result: true });
      expect(done.text).toBe('confirmed');
    } finally {
      await client.close();
    }
  });

  it("refuses a client tool named as one of the agent's tools, and what cannot be stored", async () => {
    const clash = await w.client
      .generate('plain', 'x', { clientTools: { colors: { inputSchema: z.object({}) } }, script: [{ text: 'no' }] })
      .catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(RunFailedError);
    expect((clash as Error).message).toMatch(/clientTools: agent "plain" has tools named "colors" already/);
    const transform = createTool({
      id: 'shown',
      inputSchema: z.object({}),
      transform: { display: { input: () => ({}) } },
    });
    await expect(w.client.generate('plain', 'x', { clientTools: { shown: transform } })).rejects.toThrow(
      new InvalidRunOptionsError(
        'clientTools.shown: transform cannot be stored with a durable run, where the caller runs the tool; give the tool to the agent (defineAgent({ tools })) to have them apply',
      ),
    );
  });

  it('refuses prepareStep: a function cannot be stored with a durable run', async () => {
    const options = { prepareStep: () => ({}) } as unknown as Parameters<AgentClient['generate']>[2];
    await expect(w.client.generate('plain', 'x', options)).rejects.toThrow(
      /^Invalid run options: prepareStep: a function cannot be stored with a durable run/,
    );
  });
});

describe('clientTools over HTTP', () => {
  let w: TestWorker;
  const servers: Array<Awaited<ReturnType<typeof startServer>>> = [];
  beforeAll(async () => {
    w = await startWorker([plainAgent]);
  });
  afterAll(async () => {
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    await w?.stop();
  });

  const serve = async (requestOptions: ReadonlyArray<keyof RunOptions>) => {
    const server = await startServer(w.client, { port: 0, agents: [plainAgent], requestOptions });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const generate = (base: string, options: unknown) =>
    fetch(`${base}/agents/plain/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'pick', options }),
    });
  const options = {
    clientTools: { pick_color: { description: 'Pick a colour', inputSchema: { type: 'object' } } },
    script: callThen('pick_color', {}),
  };

  it("takes a request's clientTools (JSON schemas) where the server lets requests set them", async () => {
    const res = await generate(await serve([...DEFAULT_REQUEST_OPTIONS, 'script', 'clientTools']), options);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { finishReason: string; pendingToolCalls: unknown[] };
    expect(body.finishReason).toBe('tool-calls');
    expect(body.pendingToolCalls).toEqual([expect.objectContaining({ toolName: 'pick_color', kind: 'client' })]);
  });

  it('refuses them by default', async () => {
    const res = await generate(await serve([...DEFAULT_REQUEST_OPTIONS, 'script']), options);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/a request may not set clientTools/);
  });
});
