/** What `createServerApp` takes: who is calling, which agents' policies apply, and what a request may set. */
import type { Agent } from '../agent.js';
import type { Principal } from '../schemas/access.js';
import type { RequestContextValues, RunOptions } from '../schemas/run-options.js';
import type { Authenticator } from './auth/auth.js';
import type { ThreadPrivacy } from './auth/thread-access.js';

/** The run options a request may set unless the server says otherwise: none that loosen an agent's policy. */
export const DEFAULT_REQUEST_OPTIONS: ReadonlyArray<keyof RunOptions> = [
  'threadId',
  // Resumes only what the caller could resume by hand; approvals stay the agent's to open to chat.
  'autoResumeSuspendedTools',
  'maxSteps',
  'activeTools',
  'requireToolApproval',
  'toolChoice',
  'modelSettings',
  // The shape of the answer: it loosens nothing, and the schema is bounded.
  'structuredOutput',
];

/** The options of {@link createServerApp}. */
export interface ServerOptions {
  /**
   * Who is calling (see `bearerTokens`, `jwtAuth`). Without it the server serves loopback clients
   * only, as nobody in particular: for development on one machine.
   */
  authenticate?: Authenticator;
  /** The agents whose access policies say who may start runs (and read them); others are open to any principal. */
  agents?: Agent[];
  /** Host names (or `host:port`) the server answers to; default `localhost`, `127.0.0.1`, `::1`. */
  allowedHosts?: string[];
  /** Origins of web pages allowed to call the server (CORS, and the check on POSTs); default none. */
  allowedOrigins?: string[];
  /** The run options a request may set; default {@link DEFAULT_REQUEST_OPTIONS}. */
  requestOptions?: ReadonlyArray<keyof RunOptions>;
  /** The largest request body, bytes (default 1 MiB): a larger one gets 413. */
  maxBodyBytes?: number;
  /**
   * The request context of a run started here, from who is calling (`(principal) => ({ userId:
   * principal.id })`). A request may not send any key it returns, even one it leaves undefined for a
   * caller (return every key, undefined where there is no value); a request may send others only where
   * `requestOptions` lists `requestContext`. The agent's `requestContextSchema` must name them all.
   */
  requestContext?: (principal: Principal | undefined) => RequestContextValues;
  /**
   * Who may use a thread (read, list, start runs on it, resume its calls by a message): `user` (default)
   * keeps a thread to the principal who began it and those the agents' read rules let in; `tenant` shares
   * it within the tenant. See {@link ThreadPrivacy}.
   */
  threadPrivacy?: ThreadPrivacy;
  /**
   * Serve the approver over MCP at `POST /mcp` (Streamable HTTP, stateless, behind `authenticate`): tools that
   * list the waiting calls the caller may see and approve, decline or resume them. Needs the optional peer
   * `@modelcontextprotocol/sdk`. See docs/guides/mcp-approver.md.
   */
  mcpApprover?: boolean;
  /**
   * The secret (at least 32 characters) that seals the page tokens of the lists of waiting runs
   * (`nextPageToken`). Default: a random key of this process, so a token opens only on the server that gave
   * it; give every replica behind one address the same secret.
   */
  pageTokenKey?: string;
}

/** Every option of {@link ServerOptions}; any other is refused, naming the nearest. */
export const SERVER_OPTIONS = [
  'authenticate',
  'agents',
  'allowedHosts',
  'allowedOrigins',
  'requestOptions',
  'maxBodyBytes',
  'requestContext',
  'threadPrivacy',
  'mcpApprover',
  'pageTokenKey',
] as const satisfies ReadonlyArray<keyof ServerOptions>;
