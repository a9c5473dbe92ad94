/** What the model is shown of a tool's outcome. Sandbox-safe. */
import type { JsonValue } from './json.js';

/** What the model is shown for a tool result (a subset of the AI SDK's `ToolResultOutput`). */
export type ToolModelOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'execution-denied'; reason?: string };
