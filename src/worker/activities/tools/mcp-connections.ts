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
import type { Agent } from '../../../agent.js';
import { errorMessage, McpServerUnavailableError } from '../../../errors.js';
import { clip, MAX_DATA_BYTES, MAX_TEXT } from '../../../schemas/limits.js';
import type { McpServer } from '../../../tools/mcp.js';
import { boundedFetch, callOutcome, inputProblem, type ListedTool, type McpCallOutcome } from './mcp-answers.js';
import { listAll, MAX_MCP_TOOLS, mcpToolEntry, type McpToolEntry } from './mcp-tool-list.js';

export type { McpCallOutcome } from './mcp-answers.js';

/** A server's HTTP responses are read up to this: more is a broken connection, never held in memory. */
export const MAX_MCP_RESPONSE_BYTES = 4 * MAX_DATA_BYTES;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 15_000;
/**
 * How long listing a server's tools may take, connecting included: a server that has not answered by
 * then is unavailable (at a run's start, the run fails with it: another attempt would wait as long).
 */
export const MCP_LIST_TIMEOUT_MS = 15_000;

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

  private readonly listTimeoutMs: number;

  constructor(
    private readonly warn: (message: string) => void = (message) => console.warn(message),
    { listTimeoutMs = MCP_LIST_TIMEOUT_MS }: { listTimeoutMs?: number } = {},
  ) {
    this.listTimeoutMs = listTimeoutMs;
  }

  /**
   * Every tool the agent's MCP servers offer now, listed afresh (a run records what it was offered), the
   * servers at once, each within {@link MCP_LIST_TIMEOUT_MS}. Throws {@link McpServerUnavailableError}
   * naming a server that cannot be reached or did not answer in time (`timedOut`).
   */
  async toolsOf(agent: Agent): Promise<McpToolEntry[]> {
    const servers = Object.entries(agent.mcpServers);
    const lists = await Promise.all(servers.map(([key, server]) => this.listed(agent, key, server, true)));
    return servers.flatMap(([key, server], i) =>
      lists[i]!.flatMap((tool) => mcpToolEntry(agent, key, server, tool, (message) => this.warn(message)) ?? []),
    );
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
      throw this.unavailable(agent, key, server, err, false, !turnedAway(err));
    }
    return callOutcome(toolName, result);
  }

  /** Closes every connection (the worker is stopping). */
  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(open.map(async (c) => (await c.client).close()));
  }

  /** The server's tools, connecting first if need be; both within the listing's time. */
  private async listed(agent: Agent, key: string, server: McpServer, fresh: boolean): Promise<ListedTool[]> {
    const step = { now: 'initialize' };
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const seconds = this.listTimeoutMs / 1000;
        // The connection is dropped: a server that hangs on one request may hang on the next.
        const err = this.unavailable(agent, key, server, `it did not answer ${step.now} within ${seconds} s`, true);
        abort.abort(err);
        reject(err);
      }, this.listTimeoutMs);
    });
    try {
      return await Promise.race([this.listedNow(agent, key, server, fresh, step, abort.signal), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async listedNow(
    agent: Agent,
    key: string,
    server: McpServer,
    fresh: boolean,
    step: { now: string },
    signal: AbortSignal,
  ): Promise<ListedTool[]> {
    const client = await this.client(agent, key, server);
    step.now = 'tools/list';
    const connection = this.connections.get(connectionKey(agent, key));
    if (connection?.tools && !fresh) return connection.tools;
    const tools = listAll(client, signal);
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
      if (signal.aborted) throw signal.reason;
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
  private unavailable(
    agent: Agent,
    key: string,
    server: McpServer,
    err: unknown,
    timedOut = false,
    reached = false,
  ): McpServerUnavailableError {
    const id = connectionKey(agent, key);
    const reason = this.broken.get(id) ?? errorMessage(err);
    this.broken.delete(id);
    this.forgetId(id);
    return new McpServerUnavailableError(agent.id, key, where(server), clip(reason, MAX_TEXT), timedOut, reached);
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
}

function connectionKey(agent: Agent, key: string): string {
  return `${agent.id}\u0000${key}`;
}

function where(server: McpServer): string {
  return 'command' in server ? `stdio: ${clip(server.command, 200)}` : `${new URL(server.url).origin}`;
}

/** Connection failures before a request could be sent, by their Node error codes. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failed call cannot have reached the server: no connection (refused, no such host), or an
 * answer that says it was not taken (HTTP 503 or 429). A connection broken off during the call, or no
 * answer in time, may have run it.
 */
function turnedAway(err: unknown): boolean {
  for (let cause: unknown = err; cause instanceof Error; cause = cause.cause) {
    const { code, statusCode } = cause as { code?: unknown; statusCode?: unknown };
    if (typeof code === 'string' && NOT_SENT.has(code)) return true;
    if (statusCode === 503 || statusCode === 429) return true;
  }
  return false;
}
