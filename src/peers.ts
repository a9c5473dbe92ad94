/**
 * The optional packages an entry needs (its peers, which npm does not install by itself): checked before
 * the entry loads them, so that a missing one is named with the command that installs it.
 */

/**
 * What `durable-agents/worker` and `/testing` need: the Temporal worker (its native core and bundler, about
 * 100 MB), which an application that only starts and decides runs never installs.
 */
export const WORKER_PEERS = ['@temporalio/worker'];

/** What `durable-agents/server` needs besides the package's own dependencies. */
export const SERVER_PEERS = ['hono', '@hono/node-server', 'jose'];

/** What the approver over MCP (`createServerApp({ mcpApprover: true })`, `agentctl mcp`) needs. */
export const MCP_PEERS = ['@modelcontextprotocol/sdk'];

/** What `durable-agents/tracing` (and tracing from the environment) needs. */
export const TRACING_PEERS = [
  '@ai-sdk/otel',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
];

/** The packages of `packages` that cannot be found from here. */
export function missingPeers(packages: readonly string[]): string[] {
  return packages.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** Throws, naming the missing packages and how to install them, when `entry` cannot load its peers. */
export function requirePeers(entry: string, packages: readonly string[]): void {
  const missing = missingPeers(packages);
  if (missing.length === 0) return;
  throw new Error(
    `${entry} needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed: ` +
      `npm install ${missing.join(' ')}`,
  );
}
