/**
 * MCP servers as a source of an agent's tools: how an agent declares them. The worker connects to them
 * (src/activities/mcp-connections.ts); the workflow only ever sees the tools' names and JSON schemas.
 */
import { z } from 'zod';
import { oneLine } from '../schemas/json.js';
import { MAX_ID } from '../schemas/limits.js';

/** What every server entry may say about the calls of its tools. */
const common = {
  /**
   * Pause calls of this server's tools for approval: `true` for every tool, or the names of the tools
   * that need it, as the server names them (`['delete_file']`, not `files_delete_file`).
   */
  requireApproval: z.union([z.boolean(), z.array(z.string().min(1).max(MAX_ID)).max(256)]).optional(),
  /** How long one call may take before it fails (ms; default 60 s, at most 10 minutes). */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(10 * 60_000)
    .optional(),
};

const HttpUrl = z.union([z.string(), z.instanceof(URL)]).transform((url, ctx) => {
  const parsed = URL.canParse(String(url)) ? new URL(String(url)) : undefined;
  if (parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) return parsed.href;
  ctx.addIssue({ code: 'custom', message: `"${String(url)}" is not an http(s) URL` });
  return z.NEVER;
});

/** A local MCP server the worker starts as a child process and talks to over stdio. */
export const McpStdioServerSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).max(256).optional(),
    /** The server's environment: only these, and the basics (PATH, HOME, ...) of the worker's own. */
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();

/** A remote MCP server, over the Streamable HTTP transport. */
export const McpHttpServerSchema = z
  .object({
    url: HttpUrl,
    /** Sent with every request (an `Authorization` header, say); they stay on the worker. */
    headers: z.record(z.string(), z.string()).optional(),
    ...common,
  })
  .strict();

export const McpServerSchema = z.union([McpStdioServerSchema, McpHttpServerSchema]);

/** How an agent reaches one MCP server: `{ command, args?, env?, cwd? }` (stdio) or `{ url, headers? }` (HTTP). */
export type McpServerConfig = z.input<typeof McpServerSchema>;
/** An MCP server entry as checked by {@link defineAgent}: the URL as a string. */
export type McpServer = z.output<typeof McpServerSchema>;

/** Server keys become the prefix of their tools' names (`files` gives `files_read_file`). */
const SERVER_KEY = /^[a-zA-Z0-9-]{1,32}$/;

/** A tool name as the model sees it: Mastra's `<server>_<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}_${tool}`;
}

/** Whether a call of this server's tool pauses for approval. */
export function mcpToolNeedsApproval(server: McpServer, tool: string): boolean {
  const policy = server.requireApproval;
  return policy === true || (Array.isArray(policy) && policy.includes(tool));
}

/** The entries of `mcpServers`, checked; throws a TypeError naming the server and what is wrong. */
export function checkMcpServers(where: string, servers: unknown): Record<string, McpServer> {
  if (servers === undefined) return {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new TypeError(`${where}: mcpServers must be an object of servers by name`);
  }
  const checked: Record<string, McpServer> = {};
  for (const [key, server] of Object.entries(servers)) {
    if (!SERVER_KEY.test(key)) {
      throw new TypeError(
        `${where}: mcpServers key "${key}" is not a valid server name; use 1-32 letters, digits or "-" ` +
          '(its tools are named "<server>_<tool>")',
      );
    }
    const parsed = McpServerSchema.safeParse(server);
    if (!parsed.success) {
      throw new TypeError(
        `${where}: mcpServers.${key} must be { command, args?, env?, cwd? } (stdio) or { url, headers? } ` +
          `(Streamable HTTP), each with requireApproval? and timeoutMs?: ${oneLine(parsed.error.issues, true)}`,
      );
    }
    checked[key] = parsed.data;
  }
  return checked;
}
