/**
 * `durable-agents/server`: the HTTP server in front of `AgentClient` (Hono), its authentication, the
 * approval inbox and chat pages, and the codec endpoint. Its packages (`hono`, `@hono/node-server`,
 * `jose`) are optional peers: install them where this entry is used.
 */
export { createServerApp } from './app.js';
export { DEFAULT_REQUEST_OPTIONS } from './server-options.js';
export type { ServerOptions } from './server-options.js';
export { startServer } from './serve.js';
export type { StartServerOptions } from './serve.js';
export { bearerTokens, describeTenancy } from './auth/auth.js';
export type { Authenticator, BearerTokensOptions, Tenancy, TenancyMode } from './auth/auth.js';
export { DEFAULT_MAX_TOKEN_LIFETIME, jwtAuth } from './auth/jwt-auth.js';
export type { JwtAuthOptions, JwtClaimNames } from './auth/jwt-auth.js';
export { authenticatorFromEnv } from './auth/auth-env.js';
export type { ThreadPrivacy } from './auth/thread-access.js';
export { UiChunkMapper } from './ui-message-chunks.js';
export type {
  RunMessageMetadata,
  RunUIMessageChunk,
  ToolSuspendedData,
  ToolUncertainData,
} from './ui-message-chunks.js';
export { assertCodecEndpointExposure, createCodecEndpoint } from './codec/codec-endpoint.js';
export type { CodecEndpointOptions } from './codec/codec-endpoint.js';
export { codecEndpointSettings } from './codec/codec-endpoint-settings.js';
export type { CodecEndpointSettings } from './codec/codec-endpoint-settings.js';
