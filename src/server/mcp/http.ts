/**
 * The approver over MCP's Streamable HTTP transport, stateless: each POST gets a server of its own, bound
 * to the principal the HTTP server authenticated for that request, as the SDK shows for stateless servers.
 */
import { MCP_PEERS, requirePeers } from '../../peers.js';
import { approverMcpServer, type ApproverContext } from './approver.js';

/** Answers one MCP request (JSON-RPC over POST) in the name of the request's principal. */
export async function serveApproverMcp(request: Request, ctx: ApproverContext): Promise<Response> {
  requirePeers('the MCP approver (mcpApprover)', MCP_PEERS);
  const { WebStandardStreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  const server = await approverMcpServer(ctx);
  // No sessions (every request stands alone, with its own principal) and plain JSON answers, not SSE.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
