/** Canonical JSON, apart from the hashing: the client's entry gives `receiptLine` without loading a hash library. */
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
