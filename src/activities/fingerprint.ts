import { createHash } from 'node:crypto';
import type { JsonValue } from '../schemas/json.js';

/** JSON with object keys sorted at every level, so equal values always give the same text. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The fingerprint of a tool call: SHA-256 (hex) of the tool name and the canonical JSON of its
 * arguments. An approval that names a fingerprint binds it to exactly these arguments.
 */
export function toolCallFingerprint(toolName: string, args: JsonValue): string {
  return createHash('sha256')
    .update(`${toolName}\n${canonicalJson(args)}`)
    .digest('hex');
}
