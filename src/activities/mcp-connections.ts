/**
 * The worker's connections to its agents' MCP servers, through the AI SDK's MCP client: one per agent
 * and server, opened when first needed, dropped when it breaks (the next activity attempt reconnects),
 * closed with the worker. What a server sends crosses a trust boundary: responses over HTTP are read up
 * to a bound, tool names and schemas are checked and bounded before they enter a run's history, and
 * results are bounded again by `executeTool`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createMCPClient, MCPClientError, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { Agent } from '../agent.js';
import { errorMessage, McpServerUnavailableError } from '../errors.js';
import { clip, jsonBytes, kib, MAX_DATA_BYTES, MAX_TEXT } from '../schemas/limits.js';
import { oneLine, zodFromJsonSchema, type JsonSchema, type JsonValue } from '../schemas/json.js';
import { mcpToolName, mcpToolNeedsApproval, type McpServer } from '../tools/mcp.js';

/** One tool of an MCP server, as the run offers it to the model. */
export interface McpToolEntry {
  /** `<server>_<tool>`: the name the model calls it by. */
  name: string;
  server: string;
  /** The tool's name on its server. */
  tool: string;
  description: string;
  inputSchema: JsonSchema;
  requireApproval: boolean;
}

/** What one call of an MCP tool came to: its output (JSON), or an error the model is told. */
export type McpCallOutcome = { output: JsonValue } | { error: string };

/** A server's HTTP responses are read up to this: more is a broken connection, never held in memory. */
export const MAX_MCP_RESPONSE_BYTES = 4 * MAX_DATA_BYTES;
/** At most this many tools of one server are offered; a server with more is refused, naming the bound. */
export const MAX_MCP_TOOLS = 128;
/** A tool's input schema is recorded in every run's history: one larger than this is left out. */
const MAX_MCP_SCHEMA_BYTES = 32 * 1024;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 15_000;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type ListedTool = Awaited<ReturnType<MCPClient['listTools']>>['tools'][number];

interface Connection {
  client: Promise<MCPClient>;
  /** The server's tools as last listed on this connection. */
  tools?: Promise<ListedTool[]>;
}

/** Connections of one worker to the MCP servers of the agents it serves. */
export class McpConnections {
  private readonly connections = new Map<string, Connection>();
  /** The idempotency key of the call in flight, for the HTTP request that carries it. */
  private readonly callKey = new AsyncLocalStorage<string>();

  constructor(private readonly warn: (message: string) => void = (message) => console.warn(message)) {}

  /**
   * Every tool the agent's MCP servers offer now, listed afresh (a run records what it was offered).
   * Throws {@link McpServerUnavailableError} naming a server that cannot be reached.
   */
  async toolsOf(agent: Agent): Promise<McpToolEntry[]> {
    const entries: McpToolEntry[] = [];
    for (const [key, server] of Object.entries(agent.mcpServers)) {
      const listed = await this.listed(agent, key, server, true);
      for (const tool of listed) {
        const entry = this.entry(agent, key, server, tool);
        if (entry) entries.push(entry);
      }
    }
    return entries;
  }

  /**
   * Calls the agent's MCP tool named `<server>_<tool>`; undefined when the agent has no such server.
   * A server that cannot be reached throws {@link McpServerUnavailableError} (the activity is retried);
   * anything the server answers (an error too) is an outcome for the model.
   */
  async call(
    agent: Agent,
    toolName: string,
    args: unknown,
    { signal, idempotencyKey }: { signal: AbortSignal; idempotencyKey: string },
  ): Promise<McpCallOutcome | undefined> {
    const split = toolName.indexOf('_');
    const key = split > 0 ? toolName.slice(0, split) : '';
    const server = Object.hasOwn(agent.mcpServers, key) ? agent.mcpServers[key] : undefined;
    if (!server) return undefined;
    const name = toolName.slice(split + 1);
    const listed = (await this.listed(agent, key, server, false)).find((t) => t.name === name);
    if (!listed) {
      return { error: `MCP server "${key}" of agent "${agent.id}" has no tool "${name}" (any more).` };
    }
    const invalid = inputProblem(listed, args);
    if (invalid) return { error: `Invalid arguments for tool "${toolName}": ${invalid}` };
    const client = await this.client(agent, key, server);
    let result;
    try {
      result = await this.callKey.run(idempotencyKey, () =>
        client.callTool({
          name,
          arguments: args as Record<string, unknown>,
          options: { signal, timeout: server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS },
        }),
      );
    } catch (err) {
      // A JSON-RPC error is the server's answer (unknown tool, bad params): the model hears it.
      if (err instanceof MCPClientError && err.code !== undefined) {
        return { error: `MCP tool "${toolName}" failed: ${clip(err.message, MAX_TEXT)}` };
      }
      throw this.unavailable(agent, key, server, err);
    }
    return callOutcome(toolName, result);
  }

  /** Closes every connection (the worker is stopping). */
  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(open.map(async (c) => (await c.client).close()));
  }

  private async listed(agent: Agent, key: string, server: McpServer, fresh: boolean): Promise<ListedTool[]> {
    const client = await this.client(agent, key, server);
    const connection = this.connections.get(connectionKey(agent, key));
    if (connection?.tools && !fresh) return connection.tools;
    const tools = listAll(client);
    if (connection) connection.tools = tools;
    try {
      const listed = await tools;
      if (listed.length > MAX_MCP_TOOLS) {
        throw new McpServerUnavailableError(
          agent.id,
          key,
          where(server),
          `it offers ${listed.length} tools, more than the ${MAX_MCP_TOOLS} an agent takes from one server`,
        );
      }
      return listed;
    } catch (err) {
      if (err instanceof McpServerUnavailableError) throw err;
      throw this.unavailable(agent, key, server, err);
    }
  }

  private client(agent: Agent, key: string, server: McpServer): Promise<MCPClient> {
    const id = connectionKey(agent, key);
    const known = this.connections.get(id);
    if (known) return known.client;
    const client = this.connect(agent, key, server);
    this.connections.set(id, { client });
    // A failed connection is forgotten, so that the next attempt connects again.
    client.catch(() => this.forget(id, client));
    return client;
  }

  private async connect(agent: Agent, key: string, server: McpServer): Promise<MCPClient> {
    const transport =
      'command' in server
        ? new StdioMCPTransport({
            command: server.command,
            ...(server.args ? { args: server.args } : {}),
            ...(server.env ? { env: server.env } : {}),
            ...(server.cwd ? { cwd: server.cwd } : {}),
          })
        : this.httpTransport(connectionKey(agent, key), server);
    try {
      const client = await createMCPClient({
        transport,
        clientName: 'durable-agents',
        // `initialize` first, which every MCP server takes; the stateless discovery probe fails loudly on
        // servers of the official SDK's current versions before the client falls back.
        protocolVersionDiscovery: false,
        initializationOptions: { timeout: CONNECT_TIMEOUT_MS },
        // A broken connection shows in the next request, which drops it; this only tells the operator.
        onUncaughtError: (err) => this.warn(`MCP server "${key}" of agent "${agent.id}": ${errorMessage(err)}`),
      });
      return client;
    } catch (err) {
      throw new McpServerUnavailableError(agent.id, key, where(server), clip(errorMessage(err), MAX_TEXT));
    }
  }

  private httpTransport(
    id: string,
    server: Extract<McpServer, { url: string }>,
  ): Parameters<typeof createMCPClient>[0]['transport'] {
    return {
      type: 'http',
      url: server.url,
      ...(server.headers ? { headers: server.headers } : {}),
      redirect: 'error',
      fetch: boundedFetch(
        MAX_MCP_RESPONSE_BYTES,
        () => this.callKey.getStore(),
        // The client would wait for the rest of the answer: closing the connection fails its requests.
        (reason) => {
          this.broken.set(id, reason);
          this.forgetId(id);
        },
      ),
    };
  }

  /** Why a connection was broken off on purpose (an answer over its bound), until a request reports it. */
  private readonly broken = new Map<string, string>();

  /** The error for a server that broke off: the connection is dropped, so that a retry reconnects. */
  private unavailable(agent: Agent, key: string, server: McpServer, err: unknown): McpServerUnavailableError {
    const id = connectionKey(agent, key);
    const reason = this.broken.get(id) ?? errorMessage(err);
    this.broken.delete(id);
    this.forgetId(id);
    return new McpServerUnavailableError(agent.id, key, where(server), clip(reason, MAX_TEXT));
  }

  private forget(id: string, client: Promise<MCPClient>): void {
    if (this.connections.get(id)?.client === client) this.connections.delete(id);
  }

  private forgetId(id: string): void {
    const known = this.connections.get(id);
    if (!known) return;
    this.connections.delete(id);
    void known.client.then((c) => c.close()).catch(() => undefined);
  }

  private entry(agent: Agent, key: string, server: McpServer, tool: ListedTool): McpToolEntry | undefined {
    const name = mcpToolName(key, tool.name);
    const leftOut = (why: string): undefined => {
      this.warn(`MCP tool "${tool.name}" of server "${key}" (agent "${agent.id}") is left out: ${why}`);
      return undefined;
    };
    if (!TOOL_NAME.test(name)) return leftOut(`"${clip(name, 100)}" is not a tool name (1-64 letters, digits, _ or -)`);
    const bytes = jsonBytes(tool.inputSchema);
    if (bytes > MAX_MCP_SCHEMA_BYTES) {
      return leftOut(`its input schema is ${kib(bytes)}, over the ${kib(MAX_MCP_SCHEMA_BYTES)} a run records`);
    }
    return {
      name,
      server: key,
      tool: tool.name,
      description: clip(tool.description ?? tool.title ?? '', MAX_TEXT),
      inputSchema: { ...tool.inputSchema, type: 'object' } as JsonSchema,
      requireApproval: mcpToolNeedsApproval(server, tool.name),
    };
  }
}

function connectionKey(agent: Agent, key: string): string {
  return `${agent.id}\u0000${key}`;
}

function where(server: McpServer): string {
  return 'command' in server ? `stdio: ${clip(server.command, 200)}` : `${new URL(server.url).origin}`;
}

/** Every tool of a server, page by page, up to one page past the bound (which is then refused). */
async function listAll(client: MCPClient): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { params: { cursor } } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length <= MAX_MCP_TOOLS);
  return tools;
}

/** Why the arguments do not fit the tool's input schema, where the schema can be checked here. */
function inputProblem(tool: ListedTool, args: unknown): string | undefined {
  let schema;
  try {
    schema = zodFromJsonSchema(tool.inputSchema as JsonSchema);
  } catch {
    // A schema zod cannot read is checked by the server itself.
    return undefined;
  }
  const parsed = schema.safeParse(args);
  return parsed.success ? undefined : oneLine(parsed.error.issues, true);
}

type CallToolResult = Awaited<ReturnType<MCPClient['callTool']>>;

/**
 * A tool's result as the run keeps it: its structured content when it has one, its text when it is all
 * text, else its content items; a result the server marks as an error is an error for the model.
 */
function callOutcome(toolName: string, result: CallToolResult): McpCallOutcome {
  if ('toolResult' in result) return { output: result.toolResult as JsonValue };
  const content = result.content ?? [];
  const texts = content.flatMap((item) => (item.type === 'text' ? [item.text] : []));
  const allText = texts.length === content.length;
  if (result.isError) {
    const said = allText ? texts.join('\n') : JSON.stringify(content);
    return { error: `MCP tool "${toolName}" answered with an error: ${clip(said, MAX_TEXT)}` };
  }
  if (result.structuredContent !== undefined) return { output: result.structuredContent as JsonValue };
  if (allText) return { output: texts.join('\n') };
  return { output: content as JsonValue };
}

/**
 * `fetch` that reads a response body up to `limit` bytes (more fails the request) and sends the call's
 * idempotency key (`Idempotency-Key`) with a tool call's request, so a server can recognise a retry.
 */
function boundedFetch(limit: number, key: () => string | undefined, overflow: (reason: string) => void): typeof fetch {
  return async (input, init) => {
    const idempotencyKey = key();
    const headers = new Headers(init?.headers);
    if (idempotencyKey) headers.set('Idempotency-Key', idempotencyKey);
    const response = await fetch(input, { ...init, headers });
    if (!response.body) return response;
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= limit) return controller.enqueue(chunk);
          const reason = `the server sent more than ${kib(limit)} in one response`;
          controller.error(new Error(reason));
          overflow(reason);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
