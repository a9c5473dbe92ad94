/**
 * An MCP server's tools as a run is offered them: listed page by page up to a bound, and each tool's name
 * and input schema checked before it enters a run's history.
 */
import type { MCPClient } from '@ai-sdk/mcp';
import type { Agent } from '../../../agent.js';
import type { JsonSchema } from '../../../schemas/json.js';
import { clip, jsonBytes, kib, MAX_TEXT } from '../../../schemas/limits.js';
import { mcpToolName, mcpToolNeedsApproval, type McpServer } from '../../../tools/mcp.js';
import type { ListedTool } from './mcp-answers.js';

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

/** At most this many tools of one server are offered; a server with more is refused, naming the bound. */
export const MAX_MCP_TOOLS = 128;
/** A tool's input schema is recorded in every run's history: one larger than this is left out. */
const MAX_MCP_SCHEMA_BYTES = 32 * 1024;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tool as the run offers it; undefined, with a warning, when its name or schema cannot go into a run. */
export function mcpToolEntry(
  agent: Agent,
  key: string,
  server: McpServer,
  tool: ListedTool,
  warn: (message: string) => void,
): McpToolEntry | undefined {
  const name = mcpToolName(key, tool.name);
  const leftOut = (why: string): undefined => {
    warn(`MCP tool "${tool.name}" of server "${key}" (agent "${agent.id}") is left out: ${why}`);
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

/** Every tool of a server, page by page, up to one page past the bound (which is then refused). */
export async function listAll(client: MCPClient, signal: AbortSignal): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools({ ...(cursor ? { params: { cursor } } : {}), options: { signal } });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length <= MAX_MCP_TOOLS);
  return tools;
}
