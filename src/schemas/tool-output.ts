/** What the model is shown of a tool's outcome. Sandbox-safe. */
import type { JsonValue } from './json.js';

/**
 * One part of a multimodal tool result: text, or a file (image, document) by data or URL. (A key
 * may be `undefined`, as TypeScript types the parts of a mixed array literal; it is dropped.)
 */
export type ToolContentPart = { type: 'text'; text: string } | { type: string; [key: string]: JsonValue | undefined };

/**
 * What the model is shown for a tool result: the AI SDK's `ToolResultOutput` as plain data (what a
 * tool's `toModelOutput` returns is checked against the AI SDK's own schema).
 */
export type ToolModelOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: JsonValue }
  | { type: 'execution-denied'; reason?: string }
  | { type: 'content'; value: ToolContentPart[] };
