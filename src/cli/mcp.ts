/** agentctl's MCP command: the approver over MCP on stdio, in the operator's name (see server/mcp/approver.ts). */
import type { Command } from 'commander';
import { Refusal, type CommandContext, type GlobalOptions } from './common.js';

export function addMcpCommand(program: Command, { connect }: CommandContext): void {
  program
    .command('mcp')
    .description(
      'serve the approver over MCP on stdin and stdout, as whoever agentctl acts as (--as, --identity): tools ' +
        'that list the waiting calls you may see and approve, decline or resume them; for an MCP client to start',
    )
    .addHelpText(
      'after',
      [
        '',
        'Needs @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk). Serves until stdin closes.',
        'An MCP client starts it as a command, for example:',
        '  {"command": "npx", "args": ["agentctl", "--identity", "keys.json", "--signing-key", "ann.pem",',
        '   "--key-id", "ann-2026", "mcp"]}',
      ].join('\n'),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const { MCP_PEERS, missingPeers } = await import('../peers.js');
      const missing = missingPeers(MCP_PEERS);
      if (missing.length > 0) throw new Refusal(`mcp needs ${missing.join(', ')}: npm install ${missing.join(' ')}`);
      const client = await connect(cmd);
      const { operatorIdentity } = await import('./identity.js');
      const { principalOf } = await import('../client/identity.js');
      const { canRead } = await import('../approvals/access.js');
      const { approverMcpServer } = await import('../server/mcp/approver.js');
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { principal: given } = await operatorIdentity(cmd.optsWithGlobals<GlobalOptions>());
      const principal = given ? principalOf(given, client.temporal.options.identity) : undefined;
      const mayRead = (run: Parameters<typeof canRead>[1] & { read?: Parameters<typeof canRead>[0] }) =>
        canRead(run.read, run, principal).allowed;
      const server = await approverMcpServer({ client, principal, mayRead });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        process.stdin.once('end', resolve);
      });
      await server.connect(transport);
      await closed;
      await server.close();
    });
}
