/**
 * The worker's side of MCP, against a real MCP server (the official SDK's, test/fixtures/mcp): agents'
 * server entries checked at definition; tools listed under `<server>_<tool>`; calls over stdio and
 * Streamable HTTP; what a server answers bounded; a server that is down named in a typed error.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MCP_RESPONSE_BYTES, McpConnections } from '../../src/worker/activities/tools/mcp-connections.js';
import { defineAgent, McpServerUnavailableError } from '../../src/index.js';
import { startHttpNotesServer, type HttpNotesServer } from '../fixtures/mcp/notes-server.js';
import { stdioNotesServer } from '../fixtures/mcp/servers.js';

const call = { signal: new AbortController().signal, idempotencyKey: 'run-1:call-0-0' };

describe('mcpServers in defineAgent', () => {
  const define = (mcpServers: unknown) =>
    defineAgent({ id: 'a', name: 'A', model: 'scripted', mcpServers: mcpServers as never });

  it('refuses a server name that would make tool names ambiguous, or an entry of neither transport', () => {
    expect(() => define({ my_files: { command: 'x' } })).toThrow(
      /mcpServers key "my_files" is not a valid server name/,
    );
    expect(() => define({ files: { args: ['x'] } })).toThrow(/mcpServers\.files must be \{ command/);
    expect(() => define({ files: { url: 'file:///etc/passwd' } })).toThrow(/is not an http\(s\) URL/);
    expect(() => define({ files: { command: 'x', requireApproval: 'yes' } })).toThrow(/mcpServers\.files/);
  });

  it('takes a URL object, as Mastra examples pass one, and keeps it as a string', () => {
    const agent = define({ web: { url: new URL('https://example.com/mcp'), requireApproval: ['delete'] } });
    expect(agent.mcpServers.web).toEqual({ url: 'https://example.com/mcp', requireApproval: ['delete'] });
  });
});

describe('McpConnections', () => {
  let http: HttpNotesServer;
  const mcp = new McpConnections(() => undefined);
  beforeAll(async () => {
    http = await startHttpNotesServer();
  });
  afterAll(async () => {
    await mcp.close();
    await http.close();
  });

  const stdioAgent = defineAgent({
    id: 'stdio',
    name: 'S',
    model: 'scripted',
    mcpServers: { notes: { ...stdioNotesServer, requireApproval: ['delete_note'] } },
  });

  it('lists a stdio server\'s tools under "<server>_<tool>", with the approval its entry asks for', async () => {
    const tools = await mcp.toolsOf(stdioAgent);
    expect(tools.map((t) => t.name)).toEqual([
      'notes_add',
      'notes_get_note',
      'notes_delete_note',
      'notes_broken',
      'notes_dump',
    ]);
    expect(tools.find((t) => t.name === 'notes_add')).toMatchObject({
      server: 'notes',
      tool: 'add',
      description: 'Adds two numbers',
      requireApproval: false,
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    });
    expect(tools.filter((t) => t.requireApproval).map((t) => t.name)).toEqual(['notes_delete_note']);
  });

  it("calls tools over stdio: text, structured content, the server's errors and input that does not fit", async () => {
    expect(await mcp.call(stdioAgent, 'notes_add', { a: 2, b: 3 }, call)).toEqual({ output: '5' });
    expect(await mcp.call(stdioAgent, 'notes_get_note', { id: 'n1' }, call)).toEqual({
      output: { id: 'n1', text: 'buy milk' },
    });
    expect(await mcp.call(stdioAgent, 'notes_broken', {}, call)).toEqual({
      error: 'MCP tool "notes_broken" answered with an error: the disk is on fire',
    });
    expect(await mcp.call(stdioAgent, 'notes_add', { a: 'two' }, call)).toEqual({
      error: expect.stringMatching(/^Invalid arguments for tool "notes_add": a: .*expected number/),
    });
    expect(await mcp.call(stdioAgent, 'notes_nope', {}, call)).toEqual({
      error: 'MCP server "notes" of agent "stdio" has no tool "nope" (any more).',
    });
    expect(await mcp.call(stdioAgent, 'other_add', {}, call)).toBeUndefined();
  });

  it("calls tools over Streamable HTTP, sending the call's idempotency key", async () => {
    const agent = defineAgent({ id: 'http', name: 'H', model: 'scripted', mcpServers: { notes: { url: http.url } } });
    expect((await mcp.toolsOf(agent)).map((t) => t.name)).toContain('notes_add');
    expect(await mcp.call(agent, 'notes_add', { a: 1, b: 1 }, call)).toEqual({ output: '2' });
    expect(http.idempotencyKeys).toEqual(['run-1:call-0-0']);
  });

  it('reads an HTTP response only up to its bound: more breaks the connection, naming the server', async () => {
    const agent = defineAgent({ id: 'big', name: 'B', model: 'scripted', mcpServers: { notes: { url: http.url } } });
    const kib = MAX_MCP_RESPONSE_BYTES / 1024 + 64;
    await expect(mcp.call(agent, 'notes_dump', { kib }, call)).rejects.toThrow(
      /MCP server "notes" of agent "big" \(http:\/\/127\.0\.0\.1:\d+\) is unavailable: the server sent more than 1024 KiB in one response/,
    );
    // The connection was dropped; the next call connects again.
    expect(await mcp.call(agent, 'notes_add', { a: 1, b: 2 }, call)).toEqual({ output: '3' });
  });

  it('bounds a server that never answers tools/list or initialize: a typed error, and the next listing works', async () => {
    const quick = new McpConnections(() => undefined, { listTimeoutMs: 500 });
    const silentList = await startHttpNotesServer({ silentOn: 'tools/list' });
    const silentInit = await startHttpNotesServer({ silentOn: 'initialize' });
    try {
      for (const [id, server, what] of [
        ['hung-list', silentList, 'tools/list'],
        ['hung-init', silentInit, 'initialize'],
      ] as const) {
        const agent = defineAgent({ id, name: 'H', model: 'scripted', mcpServers: { notes: { url: server.url } } });
        const err: unknown = await quick.toolsOf(agent).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(McpServerUnavailableError);
        expect(err).toMatchObject({ timedOut: true });
        expect((err as Error).message).toMatch(
          new RegExp(
            `^MCP server "notes" of agent "${id}" \\(http://127\\.0\\.0\\.1:\\d+\\) is unavailable: ` +
              `it did not answer ${what} within 0\\.5 s`,
          ),
        );
      }
      const fine = defineAgent({ id: 'fine', name: 'F', model: 'scripted', mcpServers: { notes: { url: http.url } } });
      expect((await quick.toolsOf(fine)).map((t) => t.name)).toContain('notes_add');
    } finally {
      await quick.close();
      await silentList.close();
      await silentInit.close();
    }
  });

  it('names a server that is down in a typed error, and one whose command does not start', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = defineAgent({
      id: 'down',
      name: 'D',
      model: 'scripted',
      mcpServers: { files: { url: `http://127.0.0.1:${port}/mcp` } },
    });
    const err: unknown = await mcp.toolsOf(down).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpServerUnavailableError);
    expect((err as Error).message).toMatch(
      new RegExp(`^MCP server "files" of agent "down" \\(http://127.0.0.1:${port}\\) is unavailable: `),
    );
    const missing = defineAgent({
      id: 'missing',
      name: 'M',
      model: 'scripted',
      mcpServers: { files: { command: '/no/such/mcp-server' } },
    });
    await expect(mcp.toolsOf(missing)).rejects.toThrow(
      /^MCP server "files" of agent "missing" \(stdio: \/no\/such\/mcp-server\) is unavailable: /,
    );
  });
});
