/**
 * Fingerprints bind a decision to the exact call it is about. Pure JavaScript SHA-256 (@noble/hashes),
 * so that the workflow can compute one too (an approval with changed arguments gets its own).
 *
 * Every run of a worker shares this module (src/workflows/shared-schemas.ts): it must hold no state of
 * its own (test/unit/shared-schemas.test.ts).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { JsonValue } from '../schemas/json.js';
import { canonicalJson } from './canonical-json.js';

export { canonicalJson };

/** SHA-256 of a text, as hex. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * The fingerprint of a tool call: SHA-256 (hex) of the run id, the tool-call id, the tool name and the
 * canonical JSON of the arguments. An approval that names it is bound to exactly this call of this
 * run, so it cannot be replayed on another.
 */
export function toolCallFingerprint(call: {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
}): string {
  return sha256Hex(`${call.runId}\n${call.toolCallId}\n${call.toolName}\n${canonicalJson(call.args)}`);
}

/**
 * The fingerprint of a call shown with a preview: the call's own, bound to the SHA-256 of the preview's
 * canonical JSON. An approval that names it holds only for that call with that preview.
 */
export function previewFingerprint(callFingerprint: string, previewHash: string): string {
  return sha256Hex(`${callFingerprint}\npreview\n${previewHash}`);
}
