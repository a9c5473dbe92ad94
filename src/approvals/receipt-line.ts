/** A receipt as a line of an export. Apart from receipts.ts so that the client's entry can give it without zod. */
import type { JsonValue } from '../schemas/json.js';
import type { Receipt } from '../schemas/receipts.js';
import { canonicalJson } from './canonical-json.js';

/** A receipt as a line of an export: canonical JSON (keys sorted, no spaces), so that each line reads one way only. */
export function receiptLine(receipt: Receipt): string {
  return canonicalJson(receipt as unknown as JsonValue);
}
